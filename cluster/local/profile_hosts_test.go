package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling/profiletest"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
)

// executedBy returns the first word and the slice of each process of the
// trace in which name was executed on a backend ("proxy-server",
// "worker slice 1"), with the processes' names.
func executedBy(f profiletest.File, name string) (map[string]bool, map[int]string) {
	processes := f.Processes()
	by := map[string]bool{}
	for _, e := range f.TraceEvents {
		if e.Phase == "X" && e.Name == "backend.Execute" && e.Args["executable"] == name {
			p := processes[e.PID]
			if strings.HasPrefix(p, "worker") {
				p, _, _ = strings.Cut(p, " host")
			} else {
				p = strings.Fields(p)[0]
			}
			by[p] = true
		}
	}
	return by, processes
}

const doubleOnTwo = `module @double attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`

// profileSession is a Go IFRT Proxy client of the cluster's proxy server that
// takes traces with profileRequest plugin programs.
type profileSession struct {
	t   *testing.T
	ctx context.Context
	c   *proxy.Client
	dir string
}

func newProfileSession(t *testing.T, ctx context.Context, l *localtest.Cluster) *profileSession {
	c, err := proxy.Dial(ctx, l.ProxyAddress, proxy.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &profileSession{t: t, ctx: ctx, c: c, dir: t.TempDir()}
}

func (p *profileSession) compile(request string) (ifrt.LoadedExecutable, error) {
	body := `{"profileRequest": {"traceLocation": "file://` + p.dir + `", "xprofTraceOptions": {"traceSessionName": "run"}, ` + request + `}}`
	return p.c.Compile(p.ctx, &ifrt.PluginProgram{Data: []byte(body)}, nil)
}

// step executes a compiled profileRequest once: its first run starts the
// trace, its second stops it.
func (p *profileSession) step(exe ifrt.LoadedExecutable) error {
	res, err := exe.Execute(p.ctx, nil, &ifrt.ExecuteOptions{FillStatus: true})
	if err != nil {
		return err
	}
	return res.Status.Await(p.ctx)
}

// double runs a program on the two devices of slice 0, and on those of
// slice 1: the worker of each runs it on its backend.
func (p *profileSession) double() {
	for slice := range 2 {
		devs := p.c.Devices()[2*slice : 2*slice+2]
		exe, err := p.c.Compile(p.ctx, &ifrt.MLIRProgram{Module: []byte(doubleOnTwo)}, &ifrt.CompileOptions{Devices: devs})
		if err != nil {
			p.t.Fatal(err)
		}
		s, _ := ifrt.NewTiledSharding(devs, 2)
		data := make([]byte, 32)
		x, err := p.c.MakeArrayFromHostBuffer(p.ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
		if err != nil {
			p.t.Fatal(err)
		}
		res, err := exe.Execute(p.ctx, []ifrt.Array{x}, nil)
		if err != nil {
			p.t.Fatal(err)
		}
		if err := res.Outputs[0].CopyToHostBuffer(p.ctx, data, nil); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *profileSession) read() profiletest.File {
	data, err := os.ReadFile(filepath.Join(p.dir, "plugins", "profile", "run", "pathways.trace.json"))
	if err != nil {
		p.t.Fatal(err)
	}
	return profiletest.Decode(p.t, data)
}

// TestProfileHosts takes a trace through the proxy server of a cluster whose
// workers each serve on their own gRPC server: the workers' events come from
// their own recorders over their Profiler service (the proxy server's
// recorder sees only its own requests), one process per host. maxNumHosts
// and device ids choose the hosts.
func TestProfileHosts(t *testing.T) {
	ctx := testenv.Context(t, time.Minute)
	l, err := localtest.Start(ctx, local.Config{Slices: 3, DevicesPerSlice: 2, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		request string
		want    []string // executed double, by process
	}{
		{`"maxNumHosts": 0`, []string{"proxy-server", "worker slice 0", "worker slice 1"}},
		{`"maxNumHosts": 1`, []string{"proxy-server", "worker slice 0"}},
		{`"devices": {"deviceIds": [2]}`, []string{"proxy-server", "worker slice 1"}},
		{`"devices": {"deviceIds": [4, 5]}`, []string{"proxy-server"}}, // slice 2 traces, runs nothing
	} {
		p := newProfileSession(t, ctx, l)
		exe, err := p.compile(tc.request)
		if err != nil {
			t.Fatalf("%s: %v", tc.request, err)
		}
		if err := p.step(exe); err != nil {
			t.Fatalf("%s: start: %v", tc.request, err)
		}
		p.double()
		if err := p.step(exe); err != nil {
			t.Fatalf("%s: stop: %v", tc.request, err)
		}
		by, processes := executedBy(p.read(), "double")
		if len(by) != len(tc.want) {
			t.Errorf("%s: double executed by %v, want %v; processes %v", tc.request, by, tc.want, processes)
		}
		for _, w := range tc.want {
			if !by[w] {
				t.Errorf("%s: double executed by %v, want %v; processes %v", tc.request, by, tc.want, processes)
			}
		}
		if tc.request == `"devices": {"deviceIds": [4, 5]}` && (len(processes) != 2 || !strings.HasPrefix(processes[2], "worker slice 2")) {
			t.Errorf("devices 4 and 5: processes %v, want the proxy server's and slice 2's", processes)
		}
	}
}

// TestProfileHostErrors: bad requests fail to compile with INVALID_ARGUMENT,
// a second start with FAILED_PRECONDITION; a worker lost while tracing fails
// the stop with UNAVAILABLE, and the file still holds the other hosts'
// events and names the lost one's error.
func TestProfileHostErrors(t *testing.T) {
	ctx := testenv.Context(t, time.Minute)
	l, err := localtest.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 2, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := newProfileSession(t, ctx, l)
	for _, bad := range []string{`"maxNumHosts": -1`, `"devices": {"deviceIds": [99]}`, `"maxDurationSecs": -2`} {
		if _, err := p.compile(bad); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	exe, err := p.compile(`"maxNumHosts": 0`)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.step(exe); err != nil {
		t.Fatal(err)
	}
	second, err := p.compile(`"maxNumHosts": 0`)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.step(second); ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("a second start while tracing: %v, want FAILED_PRECONDITION", err)
	}
	p.double()
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	if err := p.step(exe); ifrt.CodeOf(err) != ifrt.Unavailable || !strings.Contains(err.Error(), "slice 1") {
		t.Errorf("stop with a lost worker: %v, want UNAVAILABLE naming it", err)
	}
	f := p.read()
	by, processes := executedBy(f, "double")
	if !by["proxy-server"] || !by["worker slice 0"] || len(processes) != 3 {
		t.Errorf("double executed by %v, processes %v; want the proxy server and slice 0, and slice 1 listed", by, processes)
	}
	if len(f.OtherData.Hosts) != 3 || f.OtherData.Hosts[2].Code != "UNAVAILABLE" || f.OtherData.Hosts[1].Code != "" {
		t.Errorf("otherData.hosts: %+v, want slice 1's UNAVAILABLE", f.OtherData.Hosts)
	}
}
