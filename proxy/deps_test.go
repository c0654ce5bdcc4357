package proxy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// badDeps are packages the proxy client must not link, with the reason.
var badDeps = map[string]string{
	"github.com/openpathways/pathways/pjrt":              "the proxy client runs where no accelerator or cgo is",
	"github.com/openpathways/pathways/ifrt/gocpu":        "the client holds no arrays itself",
	"github.com/openpathways/pathways/proxy/proxyserver": "clients and servers are linked separately",
	"cloud.google.com/go/storage":                        "only the leaf package that needs it links the GCS SDK",
}

// TestDeps keeps the proxy client light: no cgo, no backend, no server.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", ".").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		for bad, why := range badDeps {
			if path == bad || strings.HasPrefix(path, bad+"/") {
				t.Errorf("proxy links %s: %s", path, why)
			}
		}
		if cgo != "0" && !strings.HasPrefix(path, "runtime") && !isStd(path) {
			t.Errorf("proxy links %s, which uses cgo", path)
		}
	}
}

func isStd(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") }
