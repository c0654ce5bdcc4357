// Command train is a Go-native training driver: it starts an in-process Pathways
// cluster (a resource manager, a worker with 8 gocpu devices, no Python, no plugin)
// and trains a small MLP with SGD, data-parallel over the cluster's devices.
//
// The training step (forward, backward and update) is StableHLO text that JAX
// lowered once (train_step.mlir, made by gen_step.py): parameters replicated, the
// batch split by rows over the devices. Each step puts a fresh batch on the devices,
// runs the step, keeps the new parameters on the devices and prints the loss.
//
// With -workers N (2, 4 or 8) the cluster has N workers of 8/N devices, and the
// step is the shard_map form of the same step (train_step_shard_map.mlir): each
// device computes its rows' gradients and an all-reduce across the workers
// averages them. The cluster runs it as one program over all workers (a gang);
// it prints the same losses as -workers 1, which runs that step on one worker.
//
//	go run ./examples/train -steps 100
//	go run ./examples/train -workers 2
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
)

//go:embed train_step.mlir
var trainStep []byte

//go:embed train_step_shard_map.mlir
var trainStepShardMap []byte

// The model's sizes, as gen_step.py lowered them.
const (
	devices = 8
	batch   = 64
	in      = 8
	hidden  = 32
	out     = 1
)

func main() {
	steps := flag.Int("steps", 100, "training steps")
	seed := flag.Uint64("seed", 1, "seed for the initial parameters and the data")
	verbose := flag.Bool("v", false, "log the cluster's events (as --log_level=info does)")
	var logFlags logging.Flags
	logFlags.Register(flag.CommandLine)
	workers := flag.Int("workers", 0, "run the shard_map step, data-parallel over this many workers (1, 2, 4 or 8) with an all-reduce across them; 0: the annotated step on one worker")
	flag.Parse()
	log.SetFlags(0)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	flag.Visit(func(f *flag.Flag) { *verbose = *verbose || strings.HasPrefix(f.Name, "log_") })
	if *verbose {
		var err error
		if logger, err = logFlags.New(os.Stderr); err != nil {
			log.Fatalf("train: %v", err)
		}
	}

	step, slices := trainStep, 1
	if *workers != 0 {
		if *workers < 0 || devices%*workers != 0 {
			log.Fatalf("train: -workers %d does not divide the %d devices", *workers, devices)
		}
		step, slices = trainStepShardMap, *workers
	}
	ctx := context.Background()
	cluster, err := local.Start(ctx, local.Config{Slices: slices, DevicesPerSlice: devices / slices, NoProxy: true, Logger: logger})
	if err != nil {
		log.Fatalf("train: start the local cluster: %v", err)
	}
	defer cluster.Close()
	fmt.Printf("cluster: resource manager at %s, %d devices on %d workers\n", cluster.RMAddress, len(cluster.Client.Devices()), slices)
	losses, err := train(ctx, cluster.Client, step, *steps, *seed, os.Stdout)
	if err != nil {
		log.Fatalf("train: %v", err)
	}
	fmt.Printf("loss %.5f -> %.5f over %d steps\n", losses[0], losses[len(losses)-1], len(losses))
}

// train runs steps SGD steps of program on the client's first 8 devices
// and returns the loss of each step.
func train(ctx context.Context, client ifrt.Client, program []byte, steps int, seed uint64, w io.Writer) ([]float32, error) {
	devs := client.AddressableDevices()
	if len(devs) < devices {
		return nil, fmt.Errorf("the step needs %d devices, the client has %d", devices, len(devs))
	}
	devs = devs[:devices]
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: program}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		return nil, fmt.Errorf("compile the training step: %w", err)
	}
	defer exe.Delete()

	replicated, err := ifrt.NewReplicatedSharding(devs)
	if err != nil {
		return nil, err
	}
	rows, err := ifrt.NewTiledSharding(devs, devices, 1)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0))

	// Parameters: w1, b1, w2, b2, scaled for tanh.
	var params []ifrt.Array
	for _, p := range []struct {
		shape ifrt.Shape
		scale float64
	}{{ifrt.Shape{in, hidden}, 1 / math.Sqrt(in)}, {ifrt.Shape{hidden}, 0}, {ifrt.Shape{hidden, out}, 1 / math.Sqrt(hidden)}, {ifrt.Shape{out}, 0}} {
		a, err := ifrt.MakeArrayFromSlice(ctx, client, normal(r, int(p.shape.NumElements()), p.scale), p.shape, replicated)
		if err != nil {
			return nil, err
		}
		params = append(params, a)
	}

	losses := make([]float32, 0, steps)
	for step := range steps {
		xs, ys := batchOf(r)
		x, err := ifrt.MakeArrayFromSlice(ctx, client, xs, ifrt.Shape{batch, in}, rows)
		if err != nil {
			return nil, err
		}
		y, err := ifrt.MakeArrayFromSlice(ctx, client, ys, ifrt.Shape{batch, out}, rows)
		if err != nil {
			return nil, err
		}
		res, err := exe.Execute(ctx, append(params[:4:4], x, y), nil)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		for _, a := range append(params, x, y) {
			a.Delete()
		}
		params = res.Outputs[:4]
		loss, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[4])
		if err != nil {
			return nil, err
		}
		res.Outputs[4].Delete()
		losses = append(losses, loss[0])
		fmt.Fprintf(w, "step %4d/%d %s loss %.5f\n", step+1, steps, bar(step+1, steps), loss[0])
	}
	for _, a := range params {
		a.Delete()
	}
	return losses, nil
}

// batchOf draws a batch of the regression task y = sin(x0 + x1) + x2*x3/2.
func batchOf(r *rand.Rand) (xs, ys []float32) {
	xs = normal(r, batch*in, 1)
	ys = make([]float32, batch*out)
	for i := range batch {
		x := xs[i*in:]
		ys[i] = float32(math.Sin(float64(x[0]+x[1])) + float64(x[2]*x[3])/2)
	}
	return xs, ys
}

func normal(r *rand.Rand, n int, scale float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64() * scale)
	}
	return out
}

func bar(done, total int) string {
	const width = 30
	n := done * width / total
	return "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "]"
}
