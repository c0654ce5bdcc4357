package stablehlo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// FuzzCollectives mutates programs with collectives and manual regions (the
// shard_map programs of the golden corpus, text and bytecode): odd
// replica groups, channels, dimensions, shardings and grids must fail
// cleanly (never a panic, an Internal error or a hang) in Run and when every
// process runs on its own (RunProcesses, zero arguments).
func FuzzCollectives(f *testing.F) {
	seeds, err := filepath.Glob("testdata/golden/shard_map_*.mlir*")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no shard_map programs in testdata/golden: %v", err)
	}
	for _, name := range seeds {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzParseAndRun(t, src)
		m, err := Parse(src)
		if err != nil || m.Unsupported() != nil || m.numProcesses() < 0 || m.numProcesses() > 16 || hasLargeValues(m, 1<<12) {
			return
		}
		params, _ := m.ProcessShardings()
		args := make([][]*Tensor, m.numProcesses())
		for id := range args {
			for i, v := range m.Main().Params() {
				pl, err := placementFor(params[i], v.Type, m.numPartitions)
				if err != nil || !v.Type.supported() {
					return
				}
				lt := pl.localType(v.Type, id%m.numPartitions)
				args[id] = append(args[id], &Tensor{Type: lt, Data: make([]byte, lt.NumElements()*int64(lt.Elem.ByteSize()))})
			}
		}
		ctx := testenv.Context(t, time.Second)
		if _, err := m.RunProcesses(ctx, args); errorCode(err) == Internal {
			t.Fatalf("RunProcesses: %v", err)
		}
	})
}
