package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt/gocpu"
)

func TestTrainingLossFalls(t *testing.T) {
	client, err := gocpu.New(gocpu.Config{Devices: devices})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
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
	if arrays, exes := client.Live(); arrays != 0 || exes != 0 {
		t.Errorf("training left %d arrays and %d executables alive", arrays, exes)
	}
}
