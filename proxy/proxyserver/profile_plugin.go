package proxyserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/storage"
)

// ProfileKey is the plugin program of pathwaysutils' profiling
// (jax.profiler.start_trace and stop_trace through the proxy). The program is
// compiled once and executed twice: the first execution starts a trace of
// this server and of the chosen hosts of its backend, the second stops it and
// writes it to ProfileTraceName under the request's traceLocation (gs://
// with package storage/gcs linked, file:// or a directory), as one Chrome
// trace-event JSON file that Perfetto opens: one process per host (this
// server first, then each worker), one thread per session or service.
//
// The hosts are the workers of a backend that takes host traces
// (profiling.Hosts: the cluster client): all of them unless maxNumHosts > 0
// (at most that many, in slice and host order; pathwaysutils sends 1 unless
// told otherwise) or devices.deviceIds names devices (the hosts that own
// them). An unknown device id or a negative maxNumHosts fails the compile with
// INVALID_ARGUMENT.
//
// Only one trace is taken at a time by a server, and by a worker: a second
// start fails with FAILED_PRECONDITION (a worker's refusal comes back with
// its code, and no host is left tracing). A worker that fails while stopping
// does not lose the others: the file is written with what every host sent,
// its otherData lists each host's error, and the stop fails with the first
// such error's code. maxDurationSecs stops recording (not the trace) after
// that long; the xprofTraceOptions' tracer settings and
// includeResourceManagers are accepted and not used.
const ProfileKey = "profileRequest"

// ProfileTraceName is where a trace goes under traceLocation: the TensorBoard
// profile plugin's layout, with RUN the request's traceSessionName (or the
// start time, as pathwaysutils names sessions).
const ProfileTraceName = "plugins/profile/RUN/pathways.trace.json"

type profileRequest struct {
	TraceLocation     string  `json:"traceLocation"`
	MaxNumHosts       int     `json:"maxNumHosts"`
	MaxDurationSecs   float64 `json:"maxDurationSecs"`
	XprofTraceOptions *struct {
		TraceDirectory   string `json:"traceDirectory"`
		TraceSessionName string `json:"traceSessionName"`
	} `json:"xprofTraceOptions"`
	Devices struct {
		DeviceIDs []int `json:"deviceIds"`
	} `json:"devices"`
}

// runName is what a trace session's name may be: one path element.
var runName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// profilePlugin compiles profileRequests of the server whose recorder is rec.
func profilePlugin(rec *profiling.Recorder) PluginHandler {
	return func(_ context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error) {
		var req profileRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&req); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: %v", err)
		}
		if req.TraceLocation == "" {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: traceLocation is required")
		}
		if _, err := storage.ParseURL(req.TraceLocation); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: traceLocation %q: %v", req.TraceLocation, err)
		}
		if req.MaxNumHosts < 0 || req.MaxDurationSecs < 0 || req.MaxDurationSecs > 1e6 {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: maxNumHosts and maxDurationSecs must not be negative (maxDurationSecs at most 1e6)")
		}
		for _, id := range req.Devices.DeviceIDs {
			if _, err := backend.LookupDevice(ifrt.DeviceID(id)); err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: devices.deviceIds: %d is not a device of this server", id)
			}
		}
		run := ""
		if req.XprofTraceOptions != nil {
			run = req.XprofTraceOptions.TraceSessionName
			if run != "" && !runName.MatchString(run) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "profileRequest: traceSessionName %q must be one path element of letters, digits, '_', '-' and '.'", run)
			}
		}
		devs := backend.AddressableDevices()
		if len(devs) == 0 {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "profileRequest: the backend has no device for the result token")
		}
		maxDuration := time.Duration(req.MaxDurationSecs * float64(time.Second))
		t := &profileTrace{
			rec: rec, location: req.TraceLocation, run: run, maxDuration: maxDuration,
			sel: profiling.Selection{MaxNumHosts: req.MaxNumHosts, DeviceIDs: req.Devices.DeviceIDs, MaxDuration: maxDuration},
		}
		t.hosts, _ = backend.(profiling.Hosts)
		return &PluginExecutable{
			Name:    ProfileKey,
			Devices: devs[:1],
			Execute: func(ctx context.Context, _ []ifrt.Array) ([]ifrt.Array, error) {
				if err := t.step(ctx); err != nil {
					return nil, err
				}
				if req.XprofTraceOptions == nil {
					return nil, nil
				}
				// pathwaysutils then expects one (1,) array on the default
				// device, a token it never reads.
				a, err := ifrt.MakeArrayFromSlice(ctx, backend, []bool{true}, ifrt.Shape{1}, ifrt.NewSingleDeviceSharding(devs[0], devs[0].DefaultMemoryKind()))
				if err != nil {
					return nil, err
				}
				return []ifrt.Array{a}, nil
			},
			Close: t.abandon,
		}, nil
	}
}

// profileTrace is one compiled profileRequest: started by its first
// execution, stopped and written by its second.
type profileTrace struct {
	rec         *profiling.Recorder
	hosts       profiling.Hosts // nil: a backend without hosts of its own
	sel         profiling.Selection
	location    string
	run         string
	maxDuration time.Duration

	mu     sync.Mutex
	local  *profiling.Trace     // while started
	remote profiling.HostTraces // while started, with hosts
	steps  int
}

func (t *profileTrace) step(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps++
	switch t.steps {
	case 1:
		local, err := t.rec.Start(t.maxDuration)
		if err != nil {
			t.steps = 0
			return ifrt.Errorf(ifrt.CodeOf(err), "profileRequest: %w", err)
		}
		if t.hosts != nil {
			remote, err := t.hosts.StartHostTraces(ctx, t.sel)
			if err != nil {
				local.Stop()
				t.steps = 0
				return ifrt.Errorf(ifrt.CodeOf(err), "profileRequest: %w", err)
			}
			t.remote = remote
		}
		t.local = local
		if t.run == "" {
			t.run = local.Began().UTC().Format("2006_01_02_15_04_05")
		}
		return nil
	case 2:
		return t.stop(ctx)
	}
	return ifrt.Errorf(ifrt.FailedPrecondition, "profileRequest: this trace was started and stopped already; compile a new request for another")
}

// stop collects every host's trace and writes the file, even when some
// hosts failed; their first error is the stop's.
func (t *profileTrace) stop(ctx context.Context) error {
	local, remote := t.local, t.remote
	t.local, t.remote = nil, nil
	events, dropped := local.Stop()
	process := "proxy-server"
	if host, err := os.Hostname(); err == nil {
		process += " " + host
	}
	traces := []profiling.HostTrace{{Process: process, Start: local.Began(), Events: events, Dropped: dropped}}
	var hostsErr error
	if remote != nil {
		hosts, err := remote.Stop(ctx)
		traces, hostsErr = append(traces, hosts...), err
	}
	data, err := profiling.Encode(traces)
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "profileRequest: encoding the trace: %v", err)
	}
	name := strings.Replace(ProfileTraceName, "RUN", t.run, 1)
	if err := writeTrace(ctx, t.location, name, data); err != nil {
		return err
	}
	if hostsErr != nil {
		return ifrt.Errorf(ifrt.CodeOf(hostsErr), "profileRequest: the trace was written to %s/%s, but not every host's events are in it: %w", t.location, name, hostsErr)
	}
	return nil
}

// abandon ends a trace whose executable is released while it runs.
func (t *profileTrace) abandon() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local != nil {
		t.local.Stop()
		t.local = nil
	}
	if t.remote != nil {
		t.remote.Abandon()
		t.remote = nil
	}
}

func writeTrace(ctx context.Context, location, name string, data []byte) error {
	loc, err := storage.Open(ctx, location)
	if err != nil {
		return err
	}
	defer loc.Close()
	return loc.Put(ctx, name, data)
}
