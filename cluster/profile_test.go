package cluster_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
)

// hostEvents maps each host's process name to the names of its events.
func hostEvents(hosts []profiling.HostTrace) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, h := range hosts {
		names := map[string]bool{}
		for _, e := range h.Events {
			names[e.Name] = true
		}
		out[h.Process] = names
	}
	return out
}

// TestHostTraces traces both workers of a cluster, each behind its own gRPC
// server, while a program runs on one slice and a gang on both: each
// worker's trace (made by the worker's own recorder, sent over its Profiler
// service) holds its requests, its backend's executions and its gang launch,
// and the merged file has one process per worker.
func TestHostTraces(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	traces, err := c.StartHostTraces(ctx, profiling.Selection{})
	if err != nil {
		t.Fatal(err)
	}

	first, spanning := c.Devices()[:4], ifrt.DeviceList{c.Devices()[2], c.Devices()[3], c.Devices()[4], c.Devices()[5]}
	for _, devs := range []ifrt.DeviceList{first, spanning} {
		exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: devs})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ifrt.NewTiledSharding(devs, 4)
		x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4, 5, 6, 7, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Fatal(err)
		}
		readF32(t, ctx, res.Outputs[0])
	}

	hosts, err := traces.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := hostEvents(hosts)
	for _, h := range hosts {
		if h.Err != nil || h.Start.IsZero() {
			t.Errorf("%s: error %v, start %v", h.Process, h.Err, h.Start)
		}
	}
	want := map[string][]string{
		"worker slice 0 host 0": {"IfrtProxy/CompileRequest", "IfrtProxy/LoadedExecutableExecuteRequest", "backend.Compile", "backend.Execute", "Gang/Launch"},
		"worker slice 1 host 0": {"Gang/Compile", "Gang/Launch"},
	}
	if len(got) != len(want) {
		t.Fatalf("traced hosts %v, want the two workers", got)
	}
	for process, names := range got {
		prefix, _, _ := strings.Cut(process, " (")
		for _, name := range want[prefix] {
			if !names[name] {
				t.Errorf("%s's trace lacks %s: %v", process, name, names)
			}
		}
	}

	data, err := profiling.Encode(hosts)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		TraceEvents []struct {
			Name  string         `json:"name"`
			Phase string         `json:"ph"`
			PID   int            `json:"pid"`
			Args  map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	processes := map[int]string{}
	for _, e := range file.TraceEvents {
		if e.Phase == "M" && e.Name == "process_name" {
			processes[e.PID], _ = e.Args["name"].(string)
		}
	}
	if len(processes) != 2 || !strings.HasPrefix(processes[1], "worker slice 0") || !strings.HasPrefix(processes[2], "worker slice 1") {
		t.Errorf("processes of the merged trace: %v", processes)
	}
}

// TestHostTraceSelection: maxNumHosts and device ids narrow the hosts; an
// unknown device or a negative count is INVALID_ARGUMENT; a host already
// tracing refuses with FAILED_PRECONDITION and leaves no other host tracing.
func TestHostTraceSelection(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 3, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	traced := func(sel profiling.Selection) []string {
		t.Helper()
		traces, err := c.StartHostTraces(ctx, sel)
		if err != nil {
			t.Fatalf("%+v: %v", sel, err)
		}
		hosts, err := traces.Stop(ctx)
		if err != nil {
			t.Fatalf("%+v: stop: %v", sel, err)
		}
		var names []string
		for _, h := range hosts {
			prefix, _, _ := strings.Cut(h.Process, " (")
			names = append(names, prefix)
		}
		return names
	}
	for _, tc := range []struct {
		sel  profiling.Selection
		want []string
	}{
		{profiling.Selection{}, []string{"worker slice 0 host 0", "worker slice 1 host 0", "worker slice 2 host 0"}},
		{profiling.Selection{MaxNumHosts: 1}, []string{"worker slice 0 host 0"}},
		{profiling.Selection{DeviceIDs: []int{int(c.Devices()[5].ID), int(c.Devices()[2].ID)}}, []string{"worker slice 1 host 0", "worker slice 2 host 0"}},
		{profiling.Selection{DeviceIDs: []int{int(c.Devices()[5].ID), int(c.Devices()[2].ID)}, MaxNumHosts: 1}, []string{"worker slice 1 host 0"}},
	} {
		if diff := cmp.Diff(tc.want, traced(tc.sel)); diff != "" {
			t.Errorf("%+v: hosts (-want +got):\n%s", tc.sel, diff)
		}
	}
	for _, sel := range []profiling.Selection{{DeviceIDs: []int{99}}, {MaxNumHosts: -1}, {MaxDuration: -time.Second}} {
		if _, err := c.StartHostTraces(ctx, sel); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT", sel, err)
		}
	}

	// Slice 1 traces for another client; a trace of every host fails there.
	other, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, err := other.StartHostTraces(ctx, profiling.Selection{DeviceIDs: []int{int(c.Devices()[2].ID)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartHostTraces(ctx, profiling.Selection{}); ifrt.CodeOf(err) != ifrt.FailedPrecondition || !strings.Contains(err.Error(), "slice 1 host 0") {
		t.Errorf("a trace of a host already tracing: %v, want FAILED_PRECONDITION naming it", err)
	}
	// Slices 0 and 2 were let go (their calls end shortly after).
	for _, dev := range []int{int(c.Devices()[0].ID), int(c.Devices()[4].ID)} {
		for {
			traces, err := c.StartHostTraces(ctx, profiling.Selection{DeviceIDs: []int{dev}})
			if err == nil {
				traces.Abandon()
				break
			}
			if ifrt.CodeOf(err) != ifrt.FailedPrecondition || ctx.Err() != nil {
				t.Fatalf("device %d's host after the failed start: %v", dev, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := held.Stop(ctx); err != nil {
		t.Errorf("the other client's trace: %v", err)
	}
}

// TestHostTraceLostWorker: a worker closed while it traces fails its part of
// the stop with UNAVAILABLE; the other worker's events still come back.
func TestHostTraceLostWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
	ctx := testContext(t)
	c := l.Client
	traces, err := c.StartHostTraces(ctx, profiling.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	readF32(t, ctx, x)
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	hosts, err := traces.Stop(ctx)
	if ifrt.CodeOf(err) != ifrt.Unavailable || !strings.Contains(err.Error(), "worker slice 1 host 0") {
		t.Errorf("stop with a lost worker: %v, want UNAVAILABLE naming it", err)
	}
	if len(hosts) != 2 || hosts[0].Err != nil || len(hosts[0].Events) == 0 || ifrt.CodeOf(hosts[1].Err) != ifrt.Unavailable {
		t.Fatalf("hosts: %+v", hosts)
	}
}
