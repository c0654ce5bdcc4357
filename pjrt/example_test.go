package pjrt_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/openpathways/pathways/pjrt"
)

// Example compiles and runs a StableHLO program on the XLA CPU plugin named by
// PATHWAYS_PJRT_CPU_PLUGIN.
func Example() {
	ctx := context.Background()
	plugin, err := pjrt.Load(os.Getenv("PATHWAYS_PJRT_CPU_PLUGIN"))
	if err != nil {
		log.Fatal(err)
	}
	client, err := plugin.NewClient(ctx, map[string]any{"cpu_device_count": int64(1)})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	program := `func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}`
	exe, err := client.Compile(ctx, []byte(program), "mlir", pjrt.CompileOptions{}.Marshal())
	if err != nil {
		log.Fatal(err)
	}
	defer exe.Close()

	in, err := client.BufferFromHost(ctx, f32Bytes(3, 4), pjrt.F32, []int64{2}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	outs, events, err := exe.Execute(ctx, [][]*pjrt.Buffer{{in}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer events[0].Close()
	defer outs[0][0].Close()

	dst := make([]byte, 8)
	if err := outs[0][0].ToHost(ctx, dst); err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytesF32(dst))
}
