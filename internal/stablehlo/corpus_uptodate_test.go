package stablehlo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/testenv"
)

// corpusJaxlib is the jaxlib version that generated testdata/golden.
const corpusJaxlib = "0.10.2"

// TestCorpusUpToDate runs scripts/gen_stablehlo_corpus.py with each JAX
// environment (subtests jaxlib-VERSION). With corpusJaxlib it checks that the
// checked-in programs, inputs and outputs still match; with any other jaxlib,
// whose lowering differs in its text, that every program it generates parses
// and runs in the interpreter and matches that JAX's outputs.
func TestCorpusUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the corpus takes several seconds")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		dir := generateCorpus(t, jax.Python)
		if jax.Jaxlib == corpusJaxlib {
			checkCorpusUpToDate(t, dir)
			return
		}
		cases := loadGolden(t, dir)
		if want := len(listCorpus(t, goldenDir)) / 2; len(cases) < want {
			t.Errorf("jaxlib %s generated %d programs, want the corpus's %d", jax.Jaxlib, len(cases), want)
		}
		for name, c := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				checkGoldenCase(t, dir, c)
			})
		}
	})
}

// generateCorpus runs the generator with python into a new temporary directory.
func generateCorpus(t *testing.T, python string) string {
	ctx := testenv.Context(t, 5*time.Minute)
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, python, filepath.Join("..", "..", "scripts", "gen_stablehlo_corpus.py"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_stablehlo_corpus.py: %v\n%s", err, out)
	}
	return dir
}

// checkCorpusUpToDate compares the corpus regenerated into dir with the checked-in
// one. MLIR text is compared without location information, which depends on
// source line numbers in the generator script. Inputs, integer and bool
// outputs, types and shapes must match exactly; float outputs within the
// program's stored tolerance, because XLA's CPU code differs by processor
// (vector width, FMA) in the last bits.
func checkCorpusUpToDate(t *testing.T, dir string) {
	want := listCorpus(t, goldenDir)
	got := listCorpus(t, dir)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("corpus files differ (-checked in +regenerated):\n%s", diff)
	}
	for _, name := range want {
		a := golden.ReadFile(t, filepath.Join(goldenDir, name))
		b := golden.ReadFile(t, filepath.Join(dir, name))
		if filepath.Ext(name) == ".json" {
			if msg := compareRegenerated(a, b); msg != "" {
				t.Errorf("%s: JAX results changed beyond the program's tolerance on this processor (%s):\n%s", name, cpuFeatures(), msg)
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

var (
	locAliasLine = regexp.MustCompile(`(?m)^#loc[0-9]* = .*\n?`)
	locSuffix    = regexp.MustCompile(` loc\((?:[^()]|\([^()]*\))*\)`)
)

func stripLocations(b []byte) string {
	b = locAliasLine.ReplaceAll(b, nil)
	b = locSuffix.ReplaceAll(b, nil)
	return string(bytes.TrimSpace(b))
}

// compareRegenerated compares a checked-in corpus entry with its regenerated
// twin and returns "" when they agree: the same name, tolerances, inputs
// (bit for bit) and output types, and outputs equal within the tolerance.
func compareRegenerated(checkedIn, regenerated []byte) string {
	var want, got golden.Case
	if err := json.Unmarshal(checkedIn, &want); err != nil {
		return "checked in: " + err.Error()
	}
	if err := json.Unmarshal(regenerated, &got); err != nil {
		return "regenerated: " + err.Error()
	}
	header := func(c golden.Case) any {
		return []any{c.Name, c.RTol, c.ATol, c.Inputs, len(c.Outputs)}
	}
	if diff := cmp.Diff(header(want), header(got)); diff != "" {
		return "name, tolerance, inputs or output count (-checked in +regenerated):\n" + diff
	}
	var msgs []string
	for i := range want.Outputs {
		w, err := goldenTensor(want.Outputs[i])
		if err != nil {
			return fmt.Sprintf("checked-in output %d: %v", i, err)
		}
		g, err := goldenTensor(got.Outputs[i])
		if err != nil {
			return fmt.Sprintf("regenerated output %d: %v", i, err)
		}
		if msg := compareTensors(g, w, want.RTol, want.ATol); msg != "" {
			msgs = append(msgs, fmt.Sprintf("output %d: %s", i, msg))
		}
	}
	return strings.Join(msgs, "\n")
}

// cpuFeatures names the vector features of this processor that change XLA's
// CPU code, for failure messages; "" where /proc/cpuinfo is not readable.
func cpuFeatures() string {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	var model string
	var feats []string
	for _, line := range strings.Split(string(info), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name":
			if model == "" {
				model = strings.TrimSpace(val)
			}
		case "flags":
			if feats != nil {
				continue
			}
			feats = []string{}
			for _, f := range strings.Fields(val) {
				if strings.HasPrefix(f, "avx") || strings.HasPrefix(f, "amx") || f == "fma" || f == "f16c" {
					feats = append(feats, f)
				}
			}
		}
	}
	return fmt.Sprintf("%s %q: %s", runtime.GOARCH, model, strings.Join(feats, " "))
}
