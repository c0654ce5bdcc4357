package pjrt_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// TestCPUPluginsAsProcesses creates two clients of each CPU plugin in this
// process as processes 0 and 1 of one client, sharing a key-value store, and
// records what the plugins do with it: the 0.115 plugin honours
// "process_id" (global ids process<<11 + local, so the two are disjoint),
// the 0.81 one ignores it (both are process 0 with ids 0..n-1); neither calls
// the key-value store, and both refuse a device assignment that names
// another process's device with INVALID_ARGUMENT.
func TestCPUPluginsAsProcesses(t *testing.T) {
	for _, tc := range []struct {
		plugin        testPlugin
		honoursProcID bool
	}{{cpuPlugin, false}, {lammpsPlugin, true}} {
		t.Run(tc.plugin.Name, func(t *testing.T) {
			p := tc.plugin.load(t)
			kv := &pjrt.MemoryKeyValueStore{}
			ctx := testContext(t)
			var clients [2]*pjrt.Client
			for proc := range clients {
				c, err := p.NewClient(ctx, map[string]any{"cpu_device_count": int64(2), "process_id": int64(proc)},
					pjrt.WithKeyValueStore(kv))
				if err != nil {
					t.Fatalf("NewClient(process_id=%d): %v", proc, err)
				}
				t.Cleanup(func() { _ = c.Close() })
				clients[proc] = c
			}
			ids := map[int]int{} // global id -> process that has it
			collide := false
			for proc, c := range clients {
				wantIndex := 0
				if tc.honoursProcID {
					wantIndex = proc
				}
				if c.ProcessIndex() != wantIndex {
					t.Errorf("process %d: ProcessIndex = %d, want %d", proc, c.ProcessIndex(), wantIndex)
				}
				for i, d := range c.Devices() {
					if _, dup := ids[d.ID()]; dup {
						collide = true
					}
					ids[d.ID()] = proc
					if want := wantIndex<<11 + i; d.ID() != want || d.ProcessIndex() != wantIndex || !d.Addressable() {
						t.Errorf("process %d device %d: id %d process %d addressable %v, want id %d", proc, i, d.ID(), d.ProcessIndex(), d.Addressable(), want)
					}
				}
				if calls := c.KeyValueCalls(); len(calls) != 0 {
					t.Logf("process %d: the plugin called the key-value store: %v", proc, calls)
				}
			}
			if collide == tc.honoursProcID {
				t.Errorf("global ids collide = %v; want disjoint ids exactly when the plugin honours process_id", collide)
			}
			// A two-device program over device 0 of each process.
			other := 1 << 11
			opts := pjrt.CompileOptions{NumPartitions: 2, UseSPMDPartitioning: true,
				DeviceAssignment: [][]int{{clients[0].Devices()[0].ID(), other}}}
			_, err := clients[0].Compile(ctx, []byte(addProgram), "mlir", opts.Marshal())
			if ifrt.CodeOf(err) != ifrt.InvalidArgument {
				t.Errorf("Compile over devices of two processes = %v, want INVALID_ARGUMENT", err)
			}
			t.Logf("cross-process compile: %v", err)
		})
	}
}
