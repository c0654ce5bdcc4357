package proxyserver

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

// ProfileKey is the plugin program of pathwaysutils' profiling
// (jax.profiler.start_trace and stop_trace through the proxy). The program is
// compiled once and executed twice: the first execution starts a trace of
// the servers of this process (profile.go), the second stops it and writes it
// to ProfileTraceName under the request's traceLocation (gs:// with package
// storage/gcs linked, file:// or a directory), as Chrome trace-event JSON that
// Perfetto opens. Every server serves it.
//
// Only one trace is taken at a time in a process; a second start fails with
// FAILED_PRECONDITION. maxDurationSecs stops recording (not the trace) after
// that long. The trace holds what the servers of this process did: the proxy
// server's requests and its backend's compiles and executions (and, in an
// in-process cluster such as cluster/local, the workers' too); maxNumHosts
// and the xprofTraceOptions' tracer settings are accepted and not used.
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
}

// runName is what a trace session's name may be: one path element.
var runName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func profilePlugin(_ context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error) {
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
	t := &profileTrace{location: req.TraceLocation, run: run, maxDuration: time.Duration(req.MaxDurationSecs * float64(time.Second))}
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

// profileTrace is one compiled profileRequest: started by its first
// execution, stopped and written by its second.
type profileTrace struct {
	location    string
	run         string
	maxDuration time.Duration

	mu    sync.Mutex
	p     *profile // while started
	steps int
}

func (t *profileTrace) step(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps++
	switch t.steps {
	case 1:
		p := newProfile(t.maxDuration)
		if !activeProfile.CompareAndSwap(nil, p) {
			t.steps = 0
			return ifrt.Errorf(ifrt.FailedPrecondition, "profileRequest: a trace is already being taken in this server's process; stop it first")
		}
		t.p = p
		if t.run == "" {
			t.run = p.start.UTC().Format("2006_01_02_15_04_05")
		}
		return nil
	case 2:
		p := t.p
		t.p = nil
		activeProfile.CompareAndSwap(p, nil)
		return writeTrace(ctx, p, t.location, strings.Replace(ProfileTraceName, "RUN", t.run, 1))
	}
	return ifrt.Errorf(ifrt.FailedPrecondition, "profileRequest: this trace was started and stopped already; compile a new request for another")
}

// abandon ends a trace whose executable is released while it runs.
func (t *profileTrace) abandon() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p != nil {
		activeProfile.CompareAndSwap(t.p, nil)
		t.p = nil
	}
}

func writeTrace(ctx context.Context, p *profile, location, name string) error {
	data, err := p.encode()
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "profileRequest: encoding the trace: %v", err)
	}
	loc, err := storage.Open(ctx, location)
	if err != nil {
		return err
	}
	defer loc.Close()
	return loc.Put(ctx, name, data)
}
