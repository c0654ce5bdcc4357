package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
)

// TestMain lets the test binary be the worker processes of part 1.
func TestMain(m *testing.M) {
	if child := os.Getenv(childEnv); child != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := runChild(ctx, os.Args[len(os.Args)-1], child); err != nil {
			report("error", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTwoWorkerProcessesOnCPU runs part 1 on the 0.115 XLA CPU plugin: two
// OS processes as processes 0 and 1 of one pjrtifrt client, their devices
// exchanged through the directory store.
func TestTwoWorkerProcessesOnCPU(t *testing.T) {
	path := testenv.LammpsPlugin.Path(t)
	p, err := pjrt.Load(path)
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	out = &buf
	defer func() { out = os.Stdout }()
	ctx := testenv.Context(t, 2*time.Minute)
	if err := twoWorkerProcesses(ctx, p); err != nil {
		t.Fatalf("twoWorkerProcesses: %v\n%s", err, buf.String())
	}
	report := buf.String()
	for _, want := range []string{
		`process0.devices: id=0 process=0 addressable=true kind="cpu", id=1 process=0 addressable=true kind="cpu", id=2048 process=1 addressable=false kind="cpu", id=2049 process=1 addressable=false kind="cpu"`,
		`process1.devices: id=0 process=0 addressable=false kind="cpu", id=1 process=0 addressable=false kind="cpu", id=2048 process=1 addressable=true kind="cpu", id=2049 process=1 addressable=true kind="cpu"`,
		"process0.add: [2 4 6 8]",
		"process1.add: [2 4 6 8]",
		"process0.spanning_compile: UNIMPLEMENTED",
		"process1.spanning_compile: UNIMPLEMENTED",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}
