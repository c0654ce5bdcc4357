package ifrt_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps ifrt and ifrt/backend free of dependencies: every package they
// import, directly or not, must be in the standard library, so any backend can implement it and any
// program can use it without pulling in gRPC, cgo or cloud SDKs.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "./backend").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/openpathways/pathways/ifrt" && p != "github.com/openpathways/pathways/ifrt/backend" {
			t.Errorf("ifrt or ifrt/backend imports %s, which is not in the standard library", p)
		}
	}
	cgo, err := exec.Command("go", "list", "-f", "{{.CgoFiles}}", ".", "./backend").Output()
	if err == nil && strings.Trim(strings.Join(strings.Fields(string(cgo)), ""), "[]") != "" {
		t.Errorf("ifrt or ifrt/backend has cgo files: %s", cgo)
	}
}
