package pjrtifrt_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/testenv"
)

// BenchmarkCompileCorpus compiles the golden corpus's portable artifacts (what
// JAX sends) on gocpu and on the PJRT CPU plugin built from jaxlib's XLA,
// alternating in one run, and reports the time per program of each (best
// pass) and their ratio. Programs one of them cannot compile are left out of
// both.
func BenchmarkCompileCorpus(b *testing.B) {
	p := lammpsPlugin.client(b, 8)
	g, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	files, _ := filepath.Glob(filepath.Join(testenv.ModuleRoot(), "internal", "stablehlo", "testdata", "golden", "*.mlirbc"))
	type program struct {
		module  []byte
		devices int
	}
	compile := func(c ifrt.Client, pr program) error {
		exe, err := c.Compile(testContext(b), &ifrt.MLIRProgram{Module: pr.module}, &ifrt.CompileOptions{Devices: c.Devices()[:pr.devices]})
		if err == nil {
			exe.Delete()
		}
		return err
	}
	var programs []program
	for _, f := range files {
		module, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		m, err := stablehlo.Parse(module)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		pr := program{module, m.NumPartitions()}
		if compile(g, pr) == nil && compile(p, pr) == nil {
			programs = append(programs, pr)
		}
	}
	if len(programs) < 80 {
		b.Fatalf("only %d of %d programs compile on both", len(programs), len(files))
	}
	pass := func(c ifrt.Client) time.Duration {
		start := time.Now()
		for _, pr := range programs {
			if err := compile(c, pr); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	bestGo, bestPJRT := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ResetTimer()
	for b.Loop() {
		bestGo = min(bestGo, pass(g))
		bestPJRT = min(bestPJRT, pass(p))
	}
	n := float64(len(programs))
	b.ReportMetric(bestGo.Seconds()*1e3/n, "gocpu-ms/program")
	b.ReportMetric(bestPJRT.Seconds()*1e3/n, "pjrt-ms/program")
	b.ReportMetric(float64(bestPJRT)/float64(bestGo), "pjrt/gocpu")
	b.ReportMetric(n, "programs")
}
