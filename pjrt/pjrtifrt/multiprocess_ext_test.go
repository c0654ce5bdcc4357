package pjrtifrt_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// psumProgram is a two-partition program with a collective.
const psumProgram = `module @psum attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<2xf32> {mhlo.sharding = "{replicated}"}) {
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}`

// openProcesses opens count clients of plugin at once, as the processes of
// one client, through the backend string with a registered store.
func openProcesses(t *testing.T, plugin string, count int) []ifrt.Client {
	t.Helper()
	name := strings.ReplaceAll(t.Name(), "/", "_")
	pjrtifrt.RegisterKeyValueStore(name, &pjrt.MemoryKeyValueStore{})
	t.Cleanup(func() { pjrtifrt.RegisterKeyValueStore(name, nil) })
	clients := make([]ifrt.Client, count)
	errs := make(chan error, count)
	for i := range count {
		go func() {
			c, err := ifrt.Open(testContext(t), fmt.Sprintf("pjrt:plugin=%s,devices=2,process=%d/%d,kv=%s", plugin, i, count, name))
			clients[i] = c
			errs <- err
		}()
	}
	for range count {
		if err := <-errs; errors.Is(err, pjrt.ErrCgoUnavailable) {
			t.Skip("built without cgo")
		} else if err != nil {
			t.Fatalf("ifrt.Open: %v", err)
		}
	}
	for _, c := range clients {
		t.Cleanup(func() { _ = c.Close() })
	}
	return clients
}

func TestCPUPluginProcesses(t *testing.T) {
	path := lammpsPlugin.Path(t)
	clients := openProcesses(t, path, 2)
	wantIDs := []ifrt.DeviceID{0, 1, 2048, 2049}
	for i, c := range clients {
		var ids []ifrt.DeviceID
		for _, d := range c.Devices() {
			ids = append(ids, d.ID)
			if d.Addressable != (d.ProcessIndex == i) || d.ProcessIndex != int(d.ID>>11) {
				t.Errorf("process %d: device %d of process %d addressable=%v", i, d.ID, d.ProcessIndex, d.Addressable)
			}
		}
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("process %d: device ids %v, want %v (in this order)", i, ids, wantIDs)
		}
		if got := c.Platform().ProcessIndex; got != i {
			t.Errorf("process %d: Platform().ProcessIndex = %d", i, got)
		}
		if n := len(c.AddressableDevices()); n != 2 {
			t.Errorf("process %d: %d addressable devices, want 2", i, n)
		}
	}

	// A program over this process's devices compiles and runs as before.
	c := clients[1]
	local := c.AddressableDevices()
	exe, err := c.Compile(testContext(t), &ifrt.MLIRProgram{Module: []byte(psumProgram)}, &ifrt.CompileOptions{Devices: local})
	if err != nil {
		t.Fatalf("Compile over process 1's devices: %v", err)
	}
	_ = exe.Delete()

	// One over a device of each process is refused, naming the plugin.
	remote, err := c.LookupDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Compile(testContext(t), &ifrt.MLIRProgram{Module: []byte(psumProgram)},
		&ifrt.CompileOptions{Devices: ifrt.DeviceList{local[0], remote}})
	loaded := c.(*pjrtifrt.Client).PJRT().Plugin().Path()
	if ifrt.CodeOf(err) != ifrt.Unimplemented || !strings.Contains(err.Error(), loaded) || !strings.Contains(err.Error(), "gocpu") {
		t.Fatalf("Compile over devices of two processes = %v, want Unimplemented naming %s and gocpu", err, loaded)
	}
	t.Logf("refused: %v", err)
}

// TestCPUPluginIgnoringProcessID: xla-cpu-pjrt 0.81 ignores "process_id", so
// process 1 would have process 0's device ids.
func TestCPUPluginIgnoringProcessID(t *testing.T) {
	path := cpuPlugin.Path(t)
	_, err := pjrtifrt.New(testContext(t), pjrtifrt.Config{PluginPath: path, Devices: 2,
		Process: pjrtifrt.Process{Index: 1, Count: 2, KeyValueStore: &pjrt.MemoryKeyValueStore{}}})
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if ifrt.CodeOf(err) != ifrt.FailedPrecondition || !strings.Contains(err.Error(), "process_id") {
		t.Fatalf("New(process 1 of 2) = %v, want FailedPrecondition about process_id", err)
	}
}

// TestProcessWaitsForPeers: a process whose peers never come fails after its
// timeout instead of waiting forever, and leaves nothing open.
func TestProcessWaitsForPeers(t *testing.T) {
	path := lammpsPlugin.Path(t)
	_, err := pjrtifrt.New(testContext(t), pjrtifrt.Config{PluginPath: path, Devices: 1,
		Process: pjrtifrt.Process{Index: 0, Count: 3, KeyValueStore: &pjrt.MemoryKeyValueStore{}, Timeout: 20 * time.Millisecond}})
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if ifrt.CodeOf(err) != ifrt.DeadlineExceeded || !strings.Contains(err.Error(), "process 1 of 3") {
		t.Fatalf("New without peers = %v, want DeadlineExceeded waiting for process 1", err)
	}
	waitLive(t, pjrt.LiveObjects{})
}

// ifrtStore answers every Get with an ifrt-coded error, as a store built on
// ifrt errors (the resource manager's) would.
type ifrtStore struct{ pjrt.MemoryKeyValueStore }

func (s *ifrtStore) Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error) {
	return nil, ifrt.Errorf(ifrt.Unavailable, "coordination service unreachable")
}

func TestProcessStoreErrorKeepsItsCode(t *testing.T) {
	path := lammpsPlugin.Path(t)
	_, err := pjrtifrt.New(testContext(t), pjrtifrt.Config{PluginPath: path, Devices: 1,
		Process: pjrtifrt.Process{Index: 0, Count: 2, KeyValueStore: &ifrtStore{}}})
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if ifrt.CodeOf(err) != ifrt.Unavailable {
		t.Fatalf("New with an unreachable store = %v, want Unavailable", err)
	}
}

func TestProcessConfigErrors(t *testing.T) {
	kv := &pjrt.MemoryKeyValueStore{}
	pjrtifrt.RegisterKeyValueStore("config-errors", kv)
	defer pjrtifrt.RegisterKeyValueStore("config-errors", nil)
	for _, tc := range []struct {
		backend string
		code    ifrt.Code
	}{
		{"pjrt:plugin=/x.so,process=2/2,kv=config-errors", ifrt.InvalidArgument},
		{"pjrt:plugin=/x.so,process=-1/2,kv=config-errors", ifrt.InvalidArgument},
		{"pjrt:plugin=/x.so,process=1,kv=config-errors", ifrt.InvalidArgument},
		{"pjrt:plugin=/x.so,process=a/b", ifrt.InvalidArgument},
		{"pjrt:plugin=/x.so,process=0/2", ifrt.InvalidArgument}, // no store
		{"pjrt:plugin=/x.so,process=1/1", ifrt.InvalidArgument},
		{"pjrt:plugin=/x.so,process=0/2,kv=nobody", ifrt.NotFound},
	} {
		_, err := ifrt.Open(context.Background(), tc.backend)
		if ifrt.CodeOf(err) != tc.code {
			t.Errorf("ifrt.Open(%q) = %v, want %v", tc.backend, err, tc.code)
		}
	}
}
