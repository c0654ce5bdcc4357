package layering_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDoc keeps a package comment on every package of the module,
// commands and test-only packages included: it is what go doc shows a reader
// first (what the package is for, how to use it, its concurrency and lifetime
// rules).
func TestEveryPackageHasDoc(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", "github.com/openpathways/pathways/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, "\t")
		ok, err := hasPackageDoc(dir)
		if err != nil {
			t.Errorf("%s: %v", pkg, err)
		} else if !ok {
			t.Errorf("%s has no package comment; add a doc.go saying what it is for and how to use it", pkg)
		}
	}
}

// hasPackageDoc reports whether any Go file in dir, tests included, has a comment
// right above its package clause.
func hasPackageDoc(dir string) (bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return false, err
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return false, err
		}
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			return true, nil
		}
	}
	return false, nil
}
