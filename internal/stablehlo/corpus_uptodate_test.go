package stablehlo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCorpusUpToDate regenerates the golden corpus with the pinned JAX and
// checks that the checked-in programs, inputs and outputs still match.
// MLIR text is compared without location information, which depends on
// source line numbers in the generator script.
func TestCorpusUpToDate(t *testing.T) {
	python := os.Getenv("PATHWAYS_PYTHON")
	if python == "" {
		const msg = "PATHWAYS_PYTHON is not set: it must name the Python binary of the pinned JAX environment (e.g. .venv/bin/python)"
		if os.Getenv("PATHWAYS_REQUIRE_INTEROP") == "1" {
			t.Fatal(msg + ", and PATHWAYS_REQUIRE_INTEROP=1")
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skip("regenerating the corpus takes several seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, python, filepath.Join("..", "..", "scripts", "gen_stablehlo_corpus.py"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_stablehlo_corpus.py: %v\n%s", err, out)
	}
	want := listCorpus(t, goldenDir)
	got := listCorpus(t, dir)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("corpus files differ (-checked in +regenerated):\n%s", diff)
	}
	for _, name := range want {
		a := readFile(t, filepath.Join(goldenDir, name))
		b := readFile(t, filepath.Join(dir, name))
		if filepath.Ext(name) == ".json" {
			var ja, jb any
			if err := json.Unmarshal(a, &ja); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := json.Unmarshal(b, &jb); err != nil {
				t.Fatalf("%s (regenerated): %v", name, err)
			}
			if diff := cmp.Diff(ja, jb); diff != "" {
				t.Errorf("%s: JAX results changed (-checked in +regenerated):\n%s", name, diff)
			}
			continue
		}
		if diff := cmp.Diff(stripLocations(a), stripLocations(b)); diff != "" {
			t.Errorf("%s: lowering changed (-checked in +regenerated):\n%s", name, diff)
		}
	}
}

func listCorpus(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, pat := range []string{"*.mlir", "*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	sort.Strings(names)
	return names
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	locAliasLine = regexp.MustCompile(`(?m)^#loc[0-9]* = .*\n?`)
	locSuffix    = regexp.MustCompile(` loc\((?:[^()]|\([^()]*\))*\)`)
)

func stripLocations(b []byte) string {
	b = locAliasLine.ReplaceAll(b, nil)
	b = locSuffix.ReplaceAll(b, nil)
	return string(bytes.TrimSpace(b))
}
