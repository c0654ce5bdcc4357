package testenv

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

func TestCompareVersions(t *testing.T) {
	ordered := []string{"0.9", "0.9.1", "0.10.2", "0.11.1", "0.11.2", "0.12.0", "0.12.0.1", "1.0"}
	for i, a := range ordered {
		for j, b := range ordered {
			if got, want := compareVersions(a, b), cmp.Compare(i, j); got != want {
				t.Errorf("compareVersions(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestPinnedJaxlibs(t *testing.T) {
	got := PinnedJaxlibs()
	if len(got) == 0 || !slices.Contains(got, "0.10.2") {
		t.Fatalf("PinnedJaxlibs() = %v, want the versions of scripts/requirements, 0.10.2 among them", got)
	}
	if !slices.IsSortedFunc(got, compareVersions) {
		t.Errorf("PinnedJaxlibs() = %v, not oldest first", got)
	}
}

// TestForEachJAXFindsPATHWAYS_PYTHON runs ForEachJAX with PATHWAYS_PYTHON naming
// a stand-in interpreter that reports jaxlib 0.0.1: it gets a subtest of its
// own, after (and besides) the pinned versions.
func TestForEachJAXFindsPATHWAYS_PYTHON(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "python")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 0.0.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PythonVar, fake)
	if envs := JAXEnvs(); len(envs) == 0 || envs[0] != (JAX{Jaxlib: "0.0.1", Python: fake}) {
		t.Errorf("JAXEnvs() = %v, want {0.0.1 %s} first", envs, fake)
	}
	t.Setenv(RequireInteropVar, "") // the pinned environments may be missing here
	var ran []string
	ForEachJAX(t, func(t *testing.T, env JAX) {
		if !strings.HasSuffix(t.Name(), "/"+env.Name()) {
			t.Errorf("subtest %s runs environment %s", t.Name(), env.Name())
		}
		ran = append(ran, env.Jaxlib)
	})
	if len(ran) == 0 || ran[0] != "0.0.1" {
		t.Errorf("ForEachJAX ran %v, want 0.0.1 first", ran)
	}
	for _, v := range ran[1:] {
		if !slices.Contains(PinnedJaxlibs(), v) {
			t.Errorf("ForEachJAX ran jaxlib %s, which is neither pinned nor PATHWAYS_PYTHON's", v)
		}
	}
	if diff := gocmp.Diff(ran, slices.SortedFunc(slices.Values(ran), compareVersions)); diff != "" {
		t.Errorf("ForEachJAX order (-got +sorted):\n%s", diff)
	}
}
