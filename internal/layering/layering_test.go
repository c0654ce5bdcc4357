package layering_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the layering of DESIGN.md: cgo only under pjrt, and the serving
// side of the cluster (proxy, rm, worker) free of it, so that they build and run
// anywhere; the backend is injected.
func TestDeps(t *testing.T) {
	const module = "github.com/openpathways/pathways"
	banned := map[string]string{
		module + "/pjrt":   "the cgo PJRT loader: servers take their backend as an ifrt.Client",
		"cloud.google.com": "the GCS SDK belongs to one leaf package only (storage/gcs)",
	}
	for _, pkg := range []string{"proxy", "proxy/proxyserver", "rm", "worker", "ifrt/gocpu", "internal/stablehlo", "cluster", "cluster/local", "storage"} {
		pkg = module + "/" + pkg
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for prefix, why := range banned {
				if strings.HasPrefix(dep, prefix) {
					t.Errorf("%s imports %s (%s)", pkg, dep, why)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != module+"/pjrt" {
			t.Errorf("%s uses cgo; only pjrt may", p)
		}
	}
}
