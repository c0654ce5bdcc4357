package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
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
	losses, err := train(context.Background(), client, steps, 1, &out)
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
