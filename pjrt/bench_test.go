package pjrt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"
)

// Benchmarks, all measured in one run (go test -run '^$' -bench . ./pjrt/):
//
//	BenchmarkCallOverhead   an empty C call vs an empty Go call
//	BenchmarkRoundTrip64MiB host→device→host of 64 MiB per plugin and host
//	                        semantics, with the ratio to Go's copy (memcpy) of the
//	                        same bytes measured in the same benchmark
//	BenchmarkExecuteTiny    launch + wait of a 4-element add

//go:noinline
func goNoop() {}

func BenchmarkCallOverhead(b *testing.B) {
	if !haveCgo {
		b.Skip("needs cgo")
	}
	b.Run("cgo", func(b *testing.B) {
		for b.Loop() {
			cNoop()
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			goNoop()
		}
	})
}

var benchPlugins = []struct{ name, env, link string }{
	{"xla_cpu", "PATHWAYS_PJRT_CPU_PLUGIN", ".plugins/cpu.so"},
	{"lammps_cpu", "PATHWAYS_PJRT_LAMMPS_PLUGIN", ".plugins/lammps_cpu.so"},
}

func benchClient(b *testing.B, env, link string) *Client {
	b.Helper()
	path := os.Getenv(env)
	if path == "" {
		path = filepath.Join("..", link)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("plugin not found at %s (run scripts/setup_plugins.sh)", path)
	}
	if !haveCgo {
		b.Skip("needs cgo")
	}
	p, err := Load(path)
	if err != nil {
		b.Fatal(err)
	}
	c, err := p.NewClient(context.Background(), map[string]any{"cpu_device_count": int64(1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// aligned64 returns an n-byte slice whose start is 64-byte aligned.
func aligned64(n int) []byte {
	buf := make([]byte, n+64)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[0]))%64)) % 64
	return buf[off : off+n]
}

func BenchmarkRoundTrip64MiB(b *testing.B) {
	const n = 64 << 20
	src, dst, scratch := aligned64(n), aligned64(n), aligned64(n)
	for i := range src {
		src[i] = byte(i)
	}
	for _, bp := range benchPlugins {
		for _, sem := range []HostBufferSemantics{ImmutableOnlyDuringCall, ImmutableZeroCopy} {
			b.Run(bp.name+"/"+sem.String(), func(b *testing.B) {
				c := benchClient(b, bp.env, bp.link)
				ctx := context.Background()
				dims := []int64{n / 4}
				// Each iteration times one host→device→host round trip and, right
				// after it, the reference: two Go copies (memcpy) of the same bytes,
				// so both see the same machine load.
				var rt, mem time.Duration
				for b.Loop() {
					t0 := time.Now()
					buf, err := c.BufferFromHost(ctx, src, F32, dims, &HostBufferOptions{Semantics: sem})
					if err != nil {
						b.Fatal(err)
					}
					if err := buf.ToHost(ctx, dst); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					buf.Close()
					if ev := buf.HostDone(); ev != nil {
						if err := ev.Await(ctx); err != nil {
							b.Fatal(err)
						}
					}
					t2 := time.Now()
					copy(scratch, src)
					copy(dst, scratch)
					mem += time.Since(t2)
					rt += t1.Sub(t0)
				}
				rtBps := float64(b.N) * n / rt.Seconds()
				memBps := float64(b.N) * n / mem.Seconds()
				b.ReportMetric(rtBps/1e9, "roundtrip-GB/s")
				b.ReportMetric(memBps/1e9, "2xmemcpy-GB/s")
				b.ReportMetric(rtBps/memBps, "ratio-vs-memcpy")
			})
		}
	}
}

const tinyAdd = `module @add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

func BenchmarkExecuteTiny(b *testing.B) {
	for _, bp := range benchPlugins {
		b.Run(bp.name, func(b *testing.B) {
			c := benchClient(b, bp.env, bp.link)
			ctx := context.Background()
			x, err := c.Compile(ctx, []byte(tinyAdd), "mlir", CompileOptions{}.Marshal())
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			data := make([]byte, 16)
			in, err := c.BufferFromHost(ctx, data, F32, []int64{4}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			args := [][]*Buffer{{in, in}}
			out := make([]byte, 16)
			b.Run("execute+await", func(b *testing.B) {
				for b.Loop() {
					outs, evs, err := x.Execute(ctx, args, nil)
					if err != nil {
						b.Fatal(err)
					}
					if err := evs[0].Await(ctx); err != nil {
						b.Fatal(err)
					}
					evs[0].Close()
					outs[0][0].Close()
				}
			})
			b.Run("execute+tohost", func(b *testing.B) {
				for b.Loop() {
					outs, _, err := x.Execute(ctx, args, &ExecuteOptions{NoEvents: true})
					if err != nil {
						b.Fatal(err)
					}
					if err := outs[0][0].ToHost(ctx, out); err != nil {
						b.Fatal(err)
					}
					outs[0][0].Close()
				}
			})
			b.Run("execute+await-ctx-deadline", func(b *testing.B) {
				dctx, cancel := context.WithTimeout(ctx, time.Hour)
				defer cancel()
				for b.Loop() {
					outs, evs, err := x.Execute(dctx, args, nil)
					if err != nil {
						b.Fatal(err)
					}
					if err := evs[0].Await(dctx); err != nil {
						b.Fatal(err)
					}
					evs[0].Close()
					outs[0][0].Close()
				}
			})
		})
	}
}
