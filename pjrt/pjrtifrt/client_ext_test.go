package pjrtifrt_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

func TestOpen(t *testing.T) {
	path := cpuPlugin.Path(t)
	ctx := testContext(t)
	c, err := ifrt.Open(ctx, "pjrt:plugin="+path+",devices=4")
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	if n := len(c.AddressableDevices()); n != 4 {
		t.Errorf("%d devices, want 4", n)
	}
	p := c.Platform()
	if p.Name != "cpu" || p.RuntimeType != pjrtifrt.RuntimeType || p.Version == "" {
		t.Errorf("Platform() = %+v", p)
	}
	var pc *pjrt.Client
	if !c.As(&pc) || pc == nil {
		t.Errorf("As(**pjrt.Client) failed")
	}
	attrs := c.Attributes()
	if s, _ := attrs.String("plugin_path"); s == "" {
		t.Errorf("Attributes()[plugin_path] = %v", attrs["plugin_path"])
	}
	for i, d := range c.AddressableDevices() {
		if d.ID != ifrt.DeviceID(i) || d.Kind != "cpu" || d.Platform != "cpu" || len(d.Memories) == 0 {
			t.Errorf("device %d: %+v", i, d)
		}
		if d.DefaultMemoryKind() != ifrt.MemoryKindDevice {
			t.Errorf("device %d default memory kind %q", i, d.DefaultMemoryKind())
		}
	}
	for _, bad := range []string{"pjrt:devices=x,plugin=" + path, "pjrt:plugin=" + path + ",color=blue", "pjrt:devices=2"} {
		if _, err := ifrt.Open(ctx, bad); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("Open(%q) = %v, want InvalidArgument", bad, err)
		}
	}
	if _, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: "/no/such/plugin.so"}); err == nil || ifrt.CodeOf(err) == ifrt.OK {
		t.Errorf("New with a missing plugin: %v", err)
	}
}

// TestHostBufferSemantics checks that OnDoneWithHostBuffer runs exactly once
// for every semantics and sharding, and only after PJRT is done: with zero copy,
// not before the array is deleted (when its buffer may alias the host data).
func TestHostBufferSemantics(t *testing.T) {
	forEachClient(t, 2, func(t *testing.T, c *pjrtifrt.Client) {
		ctx := testContext(t)
		devs := c.AddressableDevices()
		shardings := map[string]ifrt.Sharding{"single": ifrt.NewSingleDeviceSharding(devs[1], "")}
		shardings["tiled"], _ = ifrt.NewTiledSharding(devs, 2)
		shardings["replicated"], _ = ifrt.NewHloSharding(devs, "", ifrt.Replicated())
		for name, s := range shardings {
			for _, sem := range []ifrt.HostBufferSemantics{ifrt.ImmutableOnlyDuringCall, ifrt.ImmutableUntilTransferCompletes, ifrt.ImmutableZeroCopy} {
				t.Run(fmt.Sprint(name, "/", sem), func(t *testing.T) {
					data := make([]byte, 4*64) // f32[64]
					for i := range data {
						data[i] = byte(i)
					}
					var calls atomic.Int32
					doneCh := make(chan struct{})
					opts := &ifrt.HostBufferOptions{Semantics: sem, OnDoneWithHostBuffer: func() {
						if calls.Add(1) == 1 {
							close(doneCh)
						}
					}}
					a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{64}, Sharding: s}, opts)
					if err != nil {
						t.Fatal(err)
					}
					if sem == ifrt.ImmutableOnlyDuringCall && calls.Load() != 1 {
						t.Errorf("OnDoneWithHostBuffer not called before return")
					}
					if got := get(t, a); string(got) != string(data) {
						t.Errorf("contents differ")
					}
					if err := a.Ready().Await(ctx); err != nil {
						t.Errorf("Ready: %v", err)
					}
					a.Delete()
					select {
					case <-doneCh:
					case <-time.After(30 * time.Second):
						t.Fatal("OnDoneWithHostBuffer never called")
					}
					time.Sleep(time.Millisecond)
					if n := calls.Load(); n != 1 {
						t.Errorf("OnDoneWithHostBuffer called %d times", n)
					}
				})
			}
		}
	})
}

// TestReuseInputSharesBuffers checks that arrays sharing buffers (ReuseInput)
// keep them until the last one is deleted, that an executable never donates a
// shared buffer, and that closing the client frees everything.
func TestReuseInputSharesBuffers(t *testing.T) {
	cpuPlugin.Path(t)
	before := pjrt.Live()
	c := cpuPlugin.client(t, 2)
	ctx := testContext(t)
	devs := c.AddressableDevices()
	single := ifrt.NewSingleDeviceSharding(devs[0], "")
	data := make([]byte, 16)
	for i := range data {
		data[i] = byte(i)
	}
	a := put(t, c, data, ifrt.F32, ifrt.Shape{4}, single)
	shared, err := c.CopyArrays(ctx, []ifrt.Array{a}, devs[:1], nil, ifrt.ReuseInput)
	if err != nil {
		t.Fatal(err)
	}
	var ab, sb []*pjrt.Buffer
	if !a.As(&ab) || !shared[0].As(&sb) || ab[0] != sb[0] {
		t.Fatalf("ReuseInput on the same device did not share the buffer")
	}
	const donate = `module @donate {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(donate)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := exe.DonatableParameters(); len(got) != 1 || got[0] != 0 {
		t.Errorf("DonatableParameters() = %v, want [0]", got)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.IsDeleted() {
		t.Errorf("the donated argument is alive")
	}
	if string(get(t, shared[0])) != string(data) {
		t.Errorf("the array sharing the donated argument's buffer lost its contents")
	}
	get(t, res.Outputs[0])
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: single}, nil); !errors.Is(err, ifrt.ErrClientClosed) {
		t.Errorf("MakeArrayFromHostBuffer after Close: %v", err)
	}
	if err := shared[0].CopyToHostBuffer(ctx, data, nil); !errors.Is(err, ifrt.ErrClientClosed) {
		t.Errorf("CopyToHostBuffer after Close: %v", err)
	}
	waitLive(t, before)
}

func TestErrors(t *testing.T) {
	c := cpuPlugin.client(t, 2)
	ctx := testContext(t)
	_, err := c.Compile(ctx, &ifrt.PluginProgram{Data: []byte(`{"x": 1}`)}, nil)
	if !errors.Is(err, ifrt.ErrUnimplemented) {
		t.Errorf("Compile(PluginProgram) = %v, want Unimplemented", err)
	}
	_, err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte("module { func.func @main( }")}, nil)
	var pe *pjrt.Error
	if !errors.Is(err, ifrt.ErrInvalidArgument) || !errors.As(err, &pe) {
		t.Errorf("Compile(malformed) = %v, want InvalidArgument with the *pjrt.Error in the chain", err)
	}
	_, err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte("module {}")}, &ifrt.CompileOptions{XLA: []byte{0xff, 0xff}})
	if !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("Compile with bad XLA options = %v, want InvalidArgument", err)
	}
	const uneven = `module @uneven attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<5xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<5xf32>
    return %0 : tensor<5xf32>
  }
}`
	_, err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(uneven)}, &ifrt.CompileOptions{Devices: c.AddressableDevices()[:2]})
	if !errors.Is(err, ifrt.ErrUnimplemented) {
		t.Errorf("Compile of an unevenly sharded program = %v, want Unimplemented", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Compile(canceled, &ifrt.MLIRProgram{Module: []byte("module {}")}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Compile with a canceled context = %v", err)
	}
}

// TestCloseUnderLoad closes the client while goroutines upload, execute, copy
// and read: every call must succeed or fail with an ifrt error (never panic or
// hang), and every PJRT object must be released.
func TestCloseUnderLoad(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			p.Path(t)
			before := pjrt.Live()
			ctx := testContext(t)
			c := p.client(t, 4)
			devs := c.AddressableDevices()
			exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(addProgram)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			const workers = 6
			started := make(chan struct{}, workers)
			errs := make(chan error, workers)
			for w := range workers {
				go func() {
					var first error
					for i := 0; ; i++ {
						if i == 5 {
							started <- struct{}{}
						}
						s := ifrt.NewSingleDeviceSharding(devs[0], "")
						x, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: s},
							&ifrt.HostBufferOptions{Semantics: ifrt.HostBufferSemantics(i % 3)})
						if err == nil {
							var res *ifrt.ExecuteResult
							res, err = exe.Execute(ctx, []ifrt.Array{x, x}, &ifrt.ExecuteOptions{FillStatus: w%2 == 0})
							if err == nil {
								_, err = c.CopyArrays(ctx, res.Outputs, devs[1+w%3:2+w%3], nil, ifrt.DonateInput)
							}
							if err == nil {
								err = x.CopyToHostBuffer(ctx, make([]byte, 16), nil)
							}
						}
						if err != nil {
							if ifrt.CodeOf(err) == ifrt.Unknown || ifrt.CodeOf(err) == ifrt.Internal {
								first = err
							}
							break
						}
					}
					if first != nil {
						t.Logf("worker %d: %v", w, first)
					}
					errs <- first
				}()
			}
			for range workers {
				<-started
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close under load: %v", err)
			}
			for range workers {
				if err := <-errs; err != nil {
					t.Errorf("worker: %v", err)
				}
			}
			waitLive(t, before)
		})
	}
}
