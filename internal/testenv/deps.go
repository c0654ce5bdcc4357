package testenv

import (
	"os/exec"
	"strings"
	"testing"
)

// CheckDeps fails the test for each package that pkg (a go list pattern, such
// as ".") depends on, directly or not, which forbidden names: by its path, or
// by a path ending in "/..." for that package and those below it. The test
// error gives forbidden's reason. Any package outside the standard library
// with cgo files fails it too: what pkg links must build with CGO_ENABLED=0.
// It skips when go list is not available.
func CheckDeps(t *testing.T, pkg string, forbidden map[string]string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", pkg).Output()
	if err != nil {
		t.Skipf("go list is not available: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var path, std, cgo string
		if f := strings.Fields(line); len(f) == 3 {
			path, std, cgo = f[0], f[1], f[2]
		}
		for bad, why := range forbidden {
			tree, below := strings.CutSuffix(bad, "/...")
			if path == bad || below && (path == tree || strings.HasPrefix(path, tree+"/")) {
				t.Errorf("%s depends on %s: %s", pkg, path, why)
			}
		}
		if std == "false" && cgo != "0" {
			t.Errorf("%s depends on %s, which uses cgo", pkg, path)
		}
	}
}
