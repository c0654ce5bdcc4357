package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

const defaultTestTimeout = 30 * time.Second

func TestTrainingLossFalls(t *testing.T) {
	backend, err := gocpu.New(gocpu.Config{Devices: devices})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := local.Start(context.Background(), local.Config{
		NoProxy:    true,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewBackend: func(int) (ifrt.Client, error) { return backend, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	client := cluster.Client
	var out bytes.Buffer
	const steps = 60
	losses, err := train(context.Background(), client, trainStep, steps, 1, &out)
	if err != nil {
		t.Fatalf("train: %v", err)
	}
	if len(losses) != steps {
		t.Fatalf("got %d losses, want %d", len(losses), steps)
	}
	var last float32
	for _, l := range losses[steps-10:] {
		last += l / 10
	}
	if !(last < losses[0]/2) {
		t.Errorf("mean loss of the last 10 steps %.4f is not below half the first %.4f", last, losses[0])
	}
	if !strings.Contains(out.String(), "step   60/60 [==============================] loss") {
		t.Errorf("progress output lacks the final step:\n%s", out.String())
	}
	// Deletes travel to the worker asynchronously; wait for them to land.
	deadline := time.Now().Add(defaultTestTimeout)
	for {
		arrays, exes := backend.Live()
		if arrays == 0 && exes == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("training left %d arrays and %d executables alive on the worker", arrays, exes)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The shard_map step, data-parallel over 2 workers with an all-reduce across
// them, prints the same losses as on one worker, and they match the
// annotated step's.
func TestTrainingAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	run := func(workers int, program []byte) []float32 {
		t.Helper()
		cluster, err := local.Start(ctx, local.Config{Slices: workers, DevicesPerSlice: devices / workers, NoProxy: true,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer cluster.Close()
		losses, err := train(ctx, cluster.Client, program, 30, 1, io.Discard)
		if err != nil {
			t.Fatalf("train on %d workers: %v", workers, err)
		}
		return losses
	}
	one, two, annotated := run(1, trainStepShardMap), run(2, trainStepShardMap), run(1, trainStep)
	for i := range one {
		if fmt.Sprintf("%.5f", one[i]) != fmt.Sprintf("%.5f", two[i]) {
			t.Errorf("step %d: loss %.5f on 2 workers, %.5f on one", i+1, two[i], one[i])
		}
		if d := math.Abs(float64(one[i] - annotated[i])); d > 1e-5*max(1, math.Abs(float64(annotated[i]))) {
			t.Errorf("step %d: the shard_map step's loss %g differs from the annotated step's %g", i+1, one[i], annotated[i])
		}
	}
	if !(two[len(two)-1] < two[0]) {
		t.Errorf("the loss did not fall on 2 workers: %v", two)
	}
}
