package rm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the resource manager away from pjrt and cgo: it runs on CPU
// nodes and must build with CGO_ENABLED=0.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.CgoFiles}}", ".").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		if strings.HasPrefix(path, "github.com/openpathways/pathways/pjrt") {
			t.Errorf("rm depends on %s; it must not reach pjrt", path)
		}
		if strings.HasPrefix(path, "github.com/openpathways/") && cgo != "[]" {
			t.Errorf("rm depends on %s, which has cgo files %s", path, cgo)
		}
	}
}
