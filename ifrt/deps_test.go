package ifrt_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps ifrt free of dependencies: every package it imports, directly or
// not, must be in the standard library, so any backend can implement it and any
// program can use it without pulling in gRPC, cgo or cloud SDKs.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/openpathways/pathways/ifrt" {
			t.Errorf("ifrt imports %s, which is not in the standard library", p)
		}
	}
	cgo, err := exec.Command("go", "list", "-f", "{{.CgoFiles}}", ".").Output()
	if err == nil && strings.TrimSpace(string(cgo)) != "[]" {
		t.Errorf("ifrt has cgo files: %s", cgo)
	}
}
