package stablehlo

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentRuns runs one Module from several goroutines; under -race
// it checks that Run shares no mutable state.
func TestConcurrentRuns(t *testing.T) {
	for _, name := range []string{"mlp_train_step", "scan_cumulative", "sort_float"} {
		t.Run(name, func(t *testing.T) {
			c := loadGolden(t, goldenDir)[name]
			src, err := os.ReadFile(filepath.Join(goldenDir, name+".mlir"))
			if err != nil {
				t.Fatal(err)
			}
			m := mustParse(t, string(src))
			var args []*Tensor
			for _, in := range c.Inputs {
				a, err := goldenTensor(in)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, a)
			}
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 3; i++ {
						got, err := runMain(t, m, args...)
						if err != nil {
							t.Error(err)
							return
						}
						for k, o := range c.Outputs {
							want, _ := goldenTensor(o)
							if msg := compareTensors(got[k], want, c.RTol, c.ATol); msg != "" {
								t.Errorf("output %d: %s", k, msg)
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestRunDoesNotModifyArguments checks that in-place reuse of dead values
// never touches the caller's tensors, including ones viewed without copying.
func TestRunDoesNotModifyArguments(t *testing.T) {
	m := mustParse(t, `func.func @main(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>) {
  %r = stablehlo.reshape %x : (tensor<8192xf32>) -> tensor<8192xf32>
  %0 = stablehlo.negate %r : tensor<8192xf32>
  %1 = stablehlo.add %0, %y : tensor<8192xf32>
  %2 = stablehlo.multiply %1, %1 : tensor<8192xf32>
  %3 = stablehlo.exponential %y : tensor<8192xf32>
  return %2, %y : tensor<8192xf32>, tensor<8192xf32>
}`)
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{8192}}, Data: make([]byte, 4*8192)}
	y := &Tensor{Type: x.Type, Data: make([]byte, 4*8192)}
	for i := range x.Data {
		x.Data[i] = byte(i % 61)
		y.Data[i] = byte(i % 53)
	}
	xc, yc := string(x.Data), string(y.Data)
	out, err := runMain(t, m, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if string(x.Data) != xc || string(y.Data) != yc {
		t.Fatal("Run modified its arguments")
	}
	out[1].Data[0] ^= 0xff
	if string(y.Data) != yc {
		t.Fatal("a result aliases an argument")
	}
}
