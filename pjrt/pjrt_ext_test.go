package pjrt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

const addProgram = `module @add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

const matmulProgram = `module @matmul {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    return %0, %arg0 : tensor<2x2xf32>, tensor<2x3xf32>
  }
}`

// spmdProgram doubles an 8x2 array split by rows over 8 partitions and also
// returns the column sums (an all-reduce across the partitions), replicated.
const spmdProgram = `module @spmd attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x2xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<8x2xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<2xf32> {mhlo.sharding = "{replicated}"}) {
    %two = stablehlo.constant dense<2.0> : tensor<8x2xf32>
    %0 = stablehlo.multiply %arg0, %two : tensor<8x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %0, %1 : tensor<8x2xf32>, tensor<2xf32>
  }
}`

func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func upload(t testing.TB, c *pjrt.Client, data []byte, typ pjrt.BufferType, dims []int64, opts *pjrt.HostBufferOptions) *pjrt.Buffer {
	t.Helper()
	b, err := c.BufferFromHost(testContext(t), data, typ, dims, opts)
	if err != nil {
		t.Fatalf("BufferFromHost(%v%v): %v", typ, dims, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func download(t testing.TB, b *pjrt.Buffer) []byte {
	t.Helper()
	n, err := b.HostSize()
	if err != nil {
		t.Fatalf("HostSize: %v", err)
	}
	dst := make([]byte, n)
	if err := b.ToHost(context.Background(), dst); err != nil {
		t.Fatalf("ToHost: %v", err)
	}
	return dst
}

func closeAll(outs [][]*pjrt.Buffer, events []*pjrt.Event) {
	for _, row := range outs {
		for _, b := range row {
			_ = b.Close()
		}
	}
	for _, e := range events {
		_ = e.Close()
	}
}

func TestPluginVersionAndAttributes(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			plugin := p.load(t)
			major, minor := plugin.Version()
			t.Logf("%s: PJRT API %d.%d, function table %d bytes (%d slots), extensions %v",
				plugin.Path(), major, minor, plugin.TableSize(), (plugin.TableSize()-40)/8, plugin.Extensions())
			if major != 0 || minor < pjrt.MinMinorVersion {
				t.Errorf("Version() = %d.%d, want 0.>=%d", major, minor, pjrt.MinMinorVersion)
			}
			attrs := plugin.Attributes()
			t.Logf("attributes: %v", attrs)
			cur, min, ok := plugin.StableHLOVersions()
			if !ok || len(cur) != 3 || len(min) != 3 {
				t.Errorf("StableHLOVersions() = %v, %v, %v; want two 3-element versions", cur, min, ok)
			}
			if _, ok := plugin.XLAVersion(); !ok {
				t.Errorf("no xla_version attribute in %v", attrs)
			}
			again, err := pjrt.Load(plugin.Path())
			if err != nil || again != plugin {
				t.Errorf("Load(same path) = %p, %v; want the same *Plugin %p", again, err, plugin)
			}
			if !plugin.Has("PJRT_Client_Compile") {
				t.Error(`Has("PJRT_Client_Compile") = false`)
			}
			t.Logf("Has(PJRT_Event_Create)=%v Has(PJRT_Device_GetAttributes)=%v",
				plugin.Has("PJRT_Event_Create"), plugin.Has("PJRT_Device_GetAttributes"))
		})
	}
}

func TestClientDevicesAndMemories(t *testing.T) {
	forEachClient(t, 8, func(t *testing.T, c *pjrt.Client) {
		t.Logf("%v: platform %q version %q process %d", c, c.PlatformName(), c.PlatformVersion(), c.ProcessIndex())
		if c.PlatformName() != "cpu" {
			t.Errorf("PlatformName() = %q, want cpu", c.PlatformName())
		}
		devs := c.AddressableDevices()
		if len(devs) != 8 || len(c.Devices()) != 8 {
			t.Fatalf("got %d devices, %d addressable; want 8 (cpu_device_count=8)", len(c.Devices()), len(devs))
		}
		for i, d := range devs {
			if d.ID() != i || d.ProcessIndex() != 0 || !d.Addressable() || d.Kind() != "cpu" {
				t.Errorf("device %d: id %d process %d addressable %v kind %q", i, d.ID(), d.ProcessIndex(), d.Addressable(), d.Kind())
			}
			if c.LookupDevice(d.ID()) != d {
				t.Errorf("LookupDevice(%d) != device", d.ID())
			}
			def := d.DefaultMemory()
			if def == nil || def.Kind() != "device" {
				t.Fatalf("device %d default memory %v", i, def)
			}
			if got := def.AddressableBy(); len(got) != 1 || got[0] != d {
				t.Errorf("default memory of device %d addressable by %v", i, got)
			}
			var kinds []string
			for _, m := range d.Memories() {
				kinds = append(kinds, m.Kind())
			}
			if i == 0 {
				t.Logf("device 0: %s / %s, attributes %v, memories %v", d, d.DebugString(), d.Attributes(), kinds)
			}
		}
		assignment, err := c.DefaultDeviceAssignment(1, 8)
		if err != nil {
			t.Fatalf("DefaultDeviceAssignment: %v", err)
		}
		t.Logf("default device assignment 1x8: %v", assignment)
	})
}

func TestTopologyOnCPU(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			plugin := p.load(t)
			topo, err := plugin.NewTopology(testContext(t), "cpu", nil)
			if err != nil {
				t.Logf("NewTopology on the CPU plugin: %v (code %v)", err, ifrt.CodeOf(err))
				if ifrt.CodeOf(err) == ifrt.OK {
					t.Errorf("error without a code: %v", err)
				}
				return
			}
			defer topo.Close()
			t.Logf("CPU topology: %s %s, %d devices", topo.PlatformName(), topo.PlatformVersion(), len(topo.Devices()))
		})
	}
}

func TestCreateOptions(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			plugin := p.load(t)
			ctx := testContext(t)
			c, err := plugin.NewClient(ctx, map[string]any{"no_such_option": int64(1)})
			if err != nil {
				t.Logf("unknown option: %v (code %v)", err, ifrt.CodeOf(err))
			} else {
				t.Logf("unknown option accepted silently; %d devices", len(c.Devices()))
				c.Close()
			}
			// The 0.81 CPU plugin aborts on a mistyped cpu_device_count; the
			// package checks the type first.
			if _, err := plugin.NewClient(ctx, map[string]any{"cpu_device_count": "eight"}); !errors.Is(err, ifrt.ErrInvalidArgument) {
				t.Errorf("cpu_device_count as a string: %v, want INVALID_ARGUMENT", err)
			}
			if _, err := plugin.NewClient(ctx, map[string]any{"x": struct{}{}}); !errors.Is(err, ifrt.ErrInvalidArgument) {
				t.Errorf("NewClient with a struct option: %v, want INVALID_ARGUMENT", err)
			}
		})
	}
}

func TestCompileAndExecute(t *testing.T) {
	forEachClient(t, 8, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		x := mustCompile(t, c, addProgram, pjrt.CompileOptions{})
		types, err := x.OutputTypes()
		if err != nil {
			t.Fatal(err)
		}
		dims, err := x.OutputDims()
		if err != nil {
			t.Fatal(err)
		}
		kinds, _ := x.OutputMemoryKinds()
		fp, fpErr := x.Fingerprint()
		size, _ := x.GeneratedCodeSize()
		t.Logf("executable %q: outputs %d %v %v kinds %v, replicas %d partitions %d, devices %v, fingerprint %q (%v), code %d bytes",
			x.Name(), x.NumOutputs(), types, dims, kinds, x.NumReplicas(), x.NumPartitions(), x.AddressableDevices(), fp, fpErr, size)
		if diff := cmp.Diff([]pjrt.BufferType{pjrt.F32}, types); diff != "" {
			t.Errorf("OutputTypes diff (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([][]int64{{4}}, dims); diff != "" {
			t.Errorf("OutputDims diff (-want +got):\n%s", diff)
		}

		a := upload(t, c, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, nil)
		b := upload(t, c, f32Bytes(10, 20, 30, 40), pjrt.F32, []int64{4}, nil)
		outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a, b}}, nil)
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		defer closeAll(outs, events)
		for _, ev := range events {
			if err := ev.Await(ctx); err != nil {
				t.Fatalf("completion event: %v", err)
			}
		}
		got := bytesF32(download(t, outs[0][0]))
		if diff := cmp.Diff([]float32{11, 22, 33, 44}, got); diff != "" {
			t.Errorf("add result diff (-want +got):\n%s", diff)
		}
		if outs[0][0].Device() != c.AddressableDevices()[0] || outs[0][0].Type() != pjrt.F32 {
			t.Errorf("output on %v type %v", outs[0][0].Device(), outs[0][0].Type())
		}

		// A portable executable runs on any device; chain it on device 3's buffers.
		px := mustCompile(t, c, matmulProgram, pjrt.CompileOptions{Portable: true})
		dev := c.AddressableDevices()[3]
		m1 := upload(t, c, f32Bytes(1, 2, 3, 4, 5, 6), pjrt.F32, []int64{2, 3}, &pjrt.HostBufferOptions{Device: dev})
		m2 := upload(t, c, f32Bytes(1, 0, 0, 1, 1, 1), pjrt.F32, []int64{3, 2}, &pjrt.HostBufferOptions{Device: dev})
		outs2, ev2, err := px.Execute(ctx, [][]*pjrt.Buffer{{m1, m2}}, &pjrt.ExecuteOptions{Device: dev, NoEvents: true})
		if err != nil {
			t.Fatalf("Execute portable: %v", err)
		}
		defer closeAll(outs2, ev2)
		if ev2 != nil {
			t.Errorf("NoEvents: got %d events", len(ev2))
		}
		if got := bytesF32(download(t, outs2[0][0])); !cmp.Equal(got, []float32{4, 5, 10, 11}) {
			t.Errorf("matmul = %v, want [4 5 10 11]", got)
		}
		if d := outs2[0][0].Device(); d != dev {
			t.Errorf("portable output on %v, want %v", d, dev)
		}
		if got := outs2[0][1].Dims(); !cmp.Equal(got, []int64{2, 3}) {
			t.Errorf("second output dims %v", got)
		}
	})
}

func TestBufferRoundTrip(t *testing.T) {
	types := []pjrt.BufferType{pjrt.PRED, pjrt.S8, pjrt.S16, pjrt.S32, pjrt.S64, pjrt.U8, pjrt.U16, pjrt.U32,
		pjrt.U64, pjrt.F16, pjrt.BF16, pjrt.F32, pjrt.F64, pjrt.C64, pjrt.C128, pjrt.F8E4M3FN, pjrt.F8E5M2}
	sems := []pjrt.HostBufferSemantics{pjrt.ImmutableOnlyDuringCall, pjrt.ImmutableUntilTransferCompletes,
		pjrt.ImmutableZeroCopy, pjrt.MutableZeroCopy}
	forEachClient(t, 2, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		rng := rand.New(rand.NewPCG(1, 2))
		dims := []int64{3, 5, 7}
		for _, typ := range types {
			for _, sem := range sems {
				data := make([]byte, 3*5*7*typ.ByteSize())
				for i := range data {
					data[i] = byte(rng.Uint32())
				}
				if typ == pjrt.PRED {
					for i := range data {
						data[i] &= 1
					}
				}
				want := bytes.Clone(data)
				b, err := c.BufferFromHost(ctx, data, typ, dims, &pjrt.HostBufferOptions{Semantics: sem, Device: c.AddressableDevices()[1]})
				if err != nil {
					t.Fatalf("%v %v: BufferFromHost: %v", typ, sem, err)
				}
				if b.Type() != typ || !cmp.Equal(b.Dims(), dims) || b.Device() != c.AddressableDevices()[1] {
					t.Errorf("%v %v: buffer is %v%v on %v", typ, sem, b.Type(), b.Dims(), b.Device())
				}
				if m := b.Memory(); m == nil || m.Kind() != "device" {
					t.Errorf("%v %v: buffer memory %v", typ, sem, m)
				}
				if size, err := b.OnDeviceSize(); err != nil || size != int64(len(data)) {
					t.Errorf("%v %v: OnDeviceSize = %d, %v; want %d", typ, sem, size, err, len(data))
				}
				if got := download(t, b); !bytes.Equal(got, want) {
					t.Errorf("%v %v: round trip differs", typ, sem)
				}
				// Cancellable context: the asynchronous path.
				got := make([]byte, len(data))
				if err := b.ToHost(ctx, got); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%v %v: ToHost with deadline: %v, equal %v", typ, sem, err, bytes.Equal(got, want))
				}
				hostDone := b.HostDone()
				if (hostDone == nil) != (sem == pjrt.ImmutableOnlyDuringCall) {
					t.Errorf("%v %v: HostDone() = %v", typ, sem, hostDone)
				}
				if err := b.Close(); err != nil {
					t.Errorf("%v %v: Close: %v", typ, sem, err)
				}
				if hostDone != nil {
					if err := hostDone.Await(ctx); err != nil {
						t.Errorf("%v %v: host done event: %v", typ, sem, err)
					}
				}
				if err := b.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
				if err := b.ToHost(ctx, got); !errors.Is(err, pjrt.ErrClosed) {
					t.Errorf("ToHost after Close: %v, want ErrClosed", err)
				}
			}
		}
	})
}

func TestStridedHostBuffer(t *testing.T) {
	forEachClient(t, 1, func(t *testing.T, c *pjrt.Client) {
		// Host array is column-major 2x3: element (i,j) at 4*(i + 2*j).
		colMajor := f32Bytes(1, 4, 2, 5, 3, 6)
		b := upload(t, c, colMajor, pjrt.F32, []int64{2, 3}, &pjrt.HostBufferOptions{ByteStrides: []int64{4, 8}})
		if got := bytesF32(download(t, b)); !cmp.Equal(got, []float32{1, 2, 3, 4, 5, 6}) {
			t.Errorf("column-major upload read back as %v, want row-major 1..6", got)
		}
		// Rows padded to 4 elements: row stride 16 bytes.
		padded := f32Bytes(1, 2, 3, -1, 4, 5, 6, -1)
		b2 := upload(t, c, padded, pjrt.F32, []int64{2, 3}, &pjrt.HostBufferOptions{ByteStrides: []int64{16, 4}})
		if got := bytesF32(download(t, b2)); !cmp.Equal(got, []float32{1, 2, 3, 4, 5, 6}) {
			t.Errorf("padded upload read back as %v", got)
		}
		// Too little data for the strides is refused before reaching the plugin.
		_, err := c.BufferFromHost(testContext(t), padded[:20], pjrt.F32, []int64{2, 3}, &pjrt.HostBufferOptions{ByteStrides: []int64{16, 4}})
		if !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("short strided data: %v, want INVALID_ARGUMENT", err)
		}
	})
}

func TestSerializeDeserialize(t *testing.T) {
	forEachClient(t, 1, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		x := mustCompile(t, c, addProgram, pjrt.CompileOptions{})
		blob, err := x.Serialize()
		if err != nil {
			t.Fatalf("Serialize: %v", err)
		}
		t.Logf("serialized executable: %d bytes", len(blob))
		y, err := c.DeserializeExecutable(ctx, blob)
		if err != nil {
			t.Fatalf("DeserializeExecutable: %v", err)
		}
		defer y.Close()
		if y.NumOutputs() != 1 {
			t.Errorf("deserialized NumOutputs = %d", y.NumOutputs())
		}
		a := upload(t, c, f32Bytes(1, 1, 1, 1), pjrt.F32, []int64{4}, nil)
		outs, events, err := y.Execute(ctx, [][]*pjrt.Buffer{{a, a}}, nil)
		if err != nil {
			t.Fatalf("Execute deserialized: %v", err)
		}
		defer closeAll(outs, events)
		if got := bytesF32(download(t, outs[0][0])); !cmp.Equal(got, []float32{2, 2, 2, 2}) {
			t.Errorf("deserialized add = %v", got)
		}
		if opts, err := x.CompileOptions(); err != nil {
			t.Logf("CompileOptions: %v", err)
		} else {
			t.Logf("CompileOptions: %d bytes", len(opts))
		}
		if _, err := c.DeserializeExecutable(ctx, []byte("not an executable")); err == nil {
			t.Error("DeserializeExecutable(garbage) succeeded")
		} else {
			t.Logf("garbage executable: %v", err)
		}
	})
}

func TestCompileErrors(t *testing.T) {
	forEachClient(t, 1, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		_, err := c.Compile(ctx, []byte("module { this is not mlir }"), "mlir", pjrt.CompileOptions{}.Marshal())
		var perr *pjrt.Error
		if !errors.As(err, &perr) {
			t.Fatalf("Compile(bad MLIR) = %v, want *pjrt.Error", err)
		}
		t.Logf("bad MLIR: code %v, message %q", perr.Code, perr.Msg)
		// XLA's MLIR parser reports UNKNOWN (both CPU plugins); accept it or
		// INVALID_ARGUMENT, and require the plugin's message.
		if (perr.Code != ifrt.InvalidArgument && perr.Code != ifrt.Unknown) || perr.Msg == "" {
			t.Errorf("bad MLIR: code %v message %q, want INVALID_ARGUMENT or UNKNOWN with a message", perr.Code, perr.Msg)
		}
		if ifrt.CodeOf(err) != perr.Code || !errors.Is(err, map[ifrt.Code]error{ifrt.Unknown: ifrt.ErrUnknown, ifrt.InvalidArgument: ifrt.ErrInvalidArgument}[perr.Code]) {
			t.Errorf("CodeOf/errors.Is disagree with the code of %v", err)
		}
		// Empty options are refused in Go (some plugins abort on them).
		if _, err := c.Compile(ctx, []byte(addProgram), "mlir", nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("Compile without options: %v", err)
		}
		// Wrong argument count at Execute.
		x := mustCompile(t, c, addProgram, pjrt.CompileOptions{})
		a := upload(t, c, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, nil)
		if _, _, err := x.Execute(ctx, [][]*pjrt.Buffer{{a}}, nil); err == nil {
			t.Error("Execute with 1 of 2 arguments succeeded")
		} else {
			t.Logf("Execute with 1 of 2 arguments: %v", err)
		}
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.Compile(canceled, []byte(addProgram), "mlir", pjrt.CompileOptions{}.Marshal()); !errors.Is(err, context.Canceled) {
			t.Errorf("Compile with canceled context: %v", err)
		}
	})
}

func TestSPMDExecute(t *testing.T) {
	forEachClient(t, 8, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		assignment := [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}
		x := mustCompile(t, c, spmdProgram, pjrt.CompileOptions{NumPartitions: 8, UseSPMDPartitioning: true, DeviceAssignment: assignment})
		if x.NumPartitions() != 8 || len(x.AddressableDevices()) != 8 {
			t.Fatalf("NumPartitions %d, %d devices", x.NumPartitions(), len(x.AddressableDevices()))
		}
		dims, _ := x.OutputDims()
		types, _ := x.OutputTypes()
		t.Logf("SPMD outputs: %v %v", types, dims)
		if sh, err := x.OutputShardings(); err != nil {
			t.Logf("OutputShardings: %v", err)
		} else {
			t.Logf("OutputShardings: %d serialized OpShardings %x", len(sh), sh)
		}
		if da, err := x.DeviceAssignment(); err == nil {
			t.Logf("DeviceAssignment: %d bytes", len(da))
		}
		if ids, err := x.LogicalIDs(); err != nil {
			t.Logf("LogicalIDs: %v", err)
		} else if want := [][2]int{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}}; !cmp.Equal(ids, want) {
			t.Errorf("LogicalIDs = %v, want %v", ids, want)
		}
		args := make([][]*pjrt.Buffer, 8)
		for i, d := range x.AddressableDevices() {
			args[i] = []*pjrt.Buffer{upload(t, c, f32Bytes(float32(i), float32(10*i)), pjrt.F32, []int64{1, 2}, &pjrt.HostBufferOptions{Device: d})}
		}
		outs, events, err := x.Execute(ctx, args, nil)
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		defer closeAll(outs, events)
		if len(outs) != 8 || len(events) != 8 {
			t.Fatalf("got %d output rows, %d events", len(outs), len(events))
		}
		for i := range outs {
			if err := events[i].Await(ctx); err != nil {
				t.Fatalf("device %d: %v", i, err)
			}
			if got := bytesF32(download(t, outs[i][0])); !cmp.Equal(got, []float32{2 * float32(i), 20 * float32(i)}) {
				t.Errorf("device %d shard = %v", i, got)
			}
			if got := bytesF32(download(t, outs[i][1])); !cmp.Equal(got, []float32{28, 280}) {
				t.Errorf("device %d column sums = %v, want [28 280]", i, got)
			}
			if outs[i][0].Device() != x.AddressableDevices()[i] {
				t.Errorf("row %d output on %v", i, outs[i][0].Device())
			}
		}
		// Move a shard to another device and to host memory.
		moved, err := outs[7][0].CopyToDevice(ctx, c.AddressableDevices()[0])
		if err != nil {
			t.Fatalf("CopyToDevice: %v", err)
		}
		defer moved.Close()
		if moved.Device() != c.AddressableDevices()[0] || !cmp.Equal(bytesF32(download(t, moved)), []float32{14, 140}) {
			t.Errorf("copied buffer on %v = %v", moved.Device(), bytesF32(download(t, moved)))
		}
		for _, m := range c.AddressableDevices()[2].Memories() {
			cp, err := outs[0][1].CopyToMemory(ctx, m)
			if err != nil {
				t.Logf("CopyToMemory(%s): %v", m.Kind(), err)
				continue
			}
			if got := bytesF32(download(t, cp)); !cmp.Equal(got, []float32{28, 280}) || cp.Memory() != m {
				t.Errorf("CopyToMemory(%s) = %v in %v", m.Kind(), got, cp.Memory())
			}
			cp.Close()
		}
	})
}

func TestEventsAndContexts(t *testing.T) {
	c := cpuPlugin.client(t, 1)
	ctx := testContext(t)
	b := upload(t, c, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, nil)
	ready, err := b.ReadyEvent()
	if err != nil {
		t.Fatalf("ReadyEvent: %v", err)
	}
	select {
	case <-ready.Done():
	case <-time.After(time.Minute):
		t.Fatal("ReadyEvent never fired")
	}
	if err := ready.Err(); err != nil {
		t.Errorf("ready event error: %v", err)
	}
	if err := ready.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := ready.Await(ctx); err != nil {
		t.Errorf("Await after Close of a fired event: %v", err)
	}
	// An expired context returns its own error, unchanged.
	expired, cancel := context.WithCancel(ctx)
	cancel()
	dst := make([]byte, 16)
	if err := b.ToHost(expired, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("ToHost(canceled) = %v", err)
	}
	ev, err := b.ToHostAsync(dst)
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Await(expired); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Await(canceled) = %v", err)
	}
	if err := ev.Await(ctx); err != nil {
		t.Errorf("Await: %v", err)
	}
	if got := bytesF32(dst); !cmp.Equal(got, []float32{1, 2, 3, 4}) {
		t.Errorf("async copy = %v", got)
	}
	// Delete frees the memory but keeps the handle.
	if err := b.Delete(); err != nil {
		t.Fatal(err)
	}
	if !b.IsDeleted() {
		t.Error("IsDeleted() = false after Delete")
	}
	if err := b.ToHost(context.Background(), dst); err == nil {
		t.Error("ToHost of a deleted buffer succeeded")
	} else {
		t.Logf("ToHost of a deleted buffer: %v", err)
	}
}

// TestLeaks checks that every native object is released: explicitly, by the
// client's Close, and by the garbage-collection safety net.
func TestLeaks(t *testing.T) {
	plugin := cpuPlugin.load(t)
	ctx := testContext(t)
	before := pjrt.Live()
	c, err := plugin.NewClient(ctx, map[string]any{"cpu_device_count": int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Compile(ctx, []byte(addProgram), "mlir", pjrt.CompileOptions{}.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.BufferFromHost(ctx, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, &pjrt.HostBufferOptions{Semantics: pjrt.ImmutableZeroCopy})
	if err != nil {
		t.Fatal(err)
	}
	outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a, a}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	during := pjrt.Live()
	t.Logf("live before %+v, during %+v", before, during)
	if during.Clients != before.Clients+1 || during.Executables != before.Executables+1 || during.Buffers != before.Buffers+2 {
		t.Errorf("live during = %+v, before %+v", during, before)
	}
	// Forget the output: the cleanup must destroy it.
	if len(outs) != 1 {
		t.Fatalf("%d output rows", len(outs))
	}
	outs = nil
	_ = outs
	for i := 0; i < 50 && pjrt.LiveBuffers() > before.Buffers+1; i++ {
		runGC()
	}
	if got := pjrt.LiveBuffers(); got != before.Buffers+1 {
		t.Errorf("after GC of a forgotten output: %d live buffers, want %d", got, before.Buffers+1)
	}
	// Closing the client closes everything else.
	if err := c.Close(); err != nil {
		t.Fatalf("Client.Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Buffer.Close after Client.Close: %v", err)
	}
	if _, err := x.Serialize(); !errors.Is(err, pjrt.ErrClosed) {
		t.Errorf("Serialize after Client.Close: %v, want ErrClosed", err)
	}
	if _, err := c.BufferFromHost(ctx, f32Bytes(1), pjrt.F32, []int64{1}, nil); !errors.Is(err, pjrt.ErrClosed) {
		t.Errorf("BufferFromHost after Close: %v", err)
	}
	_ = events
	waitLive(t, before)
}

func runGC() {
	for i := 0; i < 3; i++ {
		runtimeGC()
		time.Sleep(10 * time.Millisecond)
	}
}

func waitLive(t *testing.T, want pjrt.LiveObjects) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pjrt.Live() != want && time.Now().Before(deadline) {
		runGC()
	}
	if got := pjrt.Live(); got != want {
		t.Errorf("live objects = %+v, want %+v", got, want)
	}
}

// TestConcurrentUse runs uploads, executions and reads from many goroutines,
// then closes the client while they are still running: every call must either
// succeed or return ErrClosed, and nothing may leak or crash.
func TestConcurrentUse(t *testing.T) {
	for _, p := range cpuPlugins {
		t.Run(p.Name, func(t *testing.T) {
			plugin := p.load(t)
			ctx := testContext(t)
			before := pjrt.Live()
			c, err := plugin.NewClient(ctx, map[string]any{"cpu_device_count": int64(4)})
			if err != nil {
				t.Fatal(err)
			}
			x, err := c.Compile(ctx, []byte(addProgram), "mlir", pjrt.CompileOptions{Portable: true}.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			const workers, rounds = 8, 30
			errs := make(chan error, workers)
			started := make(chan struct{}, workers)
			for w := 0; w < workers; w++ {
				go func() {
					dev := c.AddressableDevices()[w%4]
					var first error
					for i := 0; i < rounds; i++ {
						if i == rounds/2 {
							started <- struct{}{}
						}
						err := func() error {
							in, err := c.BufferFromHost(ctx, f32Bytes(float32(w), float32(i), 1, 2), pjrt.F32, []int64{4},
								&pjrt.HostBufferOptions{Device: dev, Semantics: pjrt.HostBufferSemantics(i % 4)})
							if err != nil {
								return err
							}
							defer in.Close()
							outs, evs, err := x.Execute(ctx, [][]*pjrt.Buffer{{in, in}}, &pjrt.ExecuteOptions{Device: dev})
							if err != nil {
								return err
							}
							defer closeAll(outs, evs)
							got := make([]byte, 16)
							if err := outs[0][0].ToHost(ctx, got); err != nil {
								return err
							}
							if v := bytesF32(got); v[0] != 2*float32(w) || v[1] != 2*float32(i) {
								t.Errorf("worker %d round %d: %v", w, i, v)
							}
							return nil
						}()
						if err != nil {
							if !errors.Is(err, pjrt.ErrClosed) && first == nil {
								first = err
							}
							break
						}
					}
					errs <- first
				}()
			}
			for w := 0; w < workers; w++ {
				<-started
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close under load: %v", err)
			}
			for w := 0; w < workers; w++ {
				if err := <-errs; err != nil {
					t.Errorf("worker: %v", err)
				}
			}
			_ = x.Close()
			waitLive(t, before)
		})
	}
}

// donateProgram aliases its argument to its output, so Execute may donate it.
const donateProgram = `module @donate {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

func TestDonation(t *testing.T) {
	forEachClient(t, 1, func(t *testing.T, c *pjrt.Client) {
		ctx := testContext(t)
		x := mustCompile(t, c, donateProgram, pjrt.CompileOptions{})
		for _, keep := range []bool{false, true} {
			in := upload(t, c, f32Bytes(1, 2, 3, 4), pjrt.F32, []int64{4}, nil)
			opts := &pjrt.ExecuteOptions{}
			if keep {
				opts.NonDonatable = []int64{0}
			}
			outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{in}}, opts)
			if err != nil {
				t.Fatalf("Execute (non-donatable %v): %v", keep, err)
			}
			if got := bytesF32(download(t, outs[0][0])); !cmp.Equal(got, []float32{2, 4, 6, 8}) {
				t.Errorf("result %v", got)
			}
			t.Logf("non-donatable %v: input deleted after Execute: %v", keep, in.IsDeleted())
			if keep == in.IsDeleted() {
				t.Errorf("NonDonatable %v: input deleted = %v", keep, in.IsDeleted())
			}
			if keep {
				if got := bytesF32(download(t, in)); !cmp.Equal(got, []float32{1, 2, 3, 4}) {
					t.Errorf("kept input = %v", got)
				}
			}
			closeAll(outs, events)
		}
	})
}
