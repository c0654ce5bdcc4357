package rm

import (
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm/rmpb"
)

func TestParseInstanceType(t *testing.T) {
	tests := []struct {
		in                                          string
		platform                                    string
		topology                                    []int
		hosts, chipsPerHost, devicesPerHost, slices int
	}{
		// One host of 4 chips; 2x2x2 is two hosts (pathways-job: chips/4 VMs).
		{"tpuv4:2x2x1", "tpu", []int{2, 2, 1}, 1, 4, 4, 4},
		{"tpuv4:2x2x2", "tpu", []int{2, 2, 2}, 2, 4, 4, 8},
		{"tpuv4:4x4x8", "tpu", []int{4, 4, 8}, 32, 4, 4, 128},
		{"tpuv5:2x2x1", "tpu", []int{2, 2, 1}, 1, 4, 4, 4},
		{"tpuv5:2x2x2", "tpu", []int{2, 2, 2}, 2, 4, 4, 8},
		{"tpuv5:2x4x4_untwisted", "tpu", []int{2, 4, 4}, 8, 4, 4, 32},
		// v5e/v6e on 4-chip VMs: 2x4 is two hosts; the -8t kinds put it on one.
		{"tpuv5e:1x1", "tpu", []int{1, 1}, 1, 1, 1, 1},
		{"tpuv5e:2x2", "tpu", []int{2, 2}, 1, 4, 4, 4},
		{"tpuv5e:2x4", "tpu", []int{2, 4}, 2, 4, 4, 8},
		{"tpuv5e:4x4", "tpu", []int{4, 4}, 4, 4, 4, 16},
		{"tpuv5e:16x16", "tpu", []int{16, 16}, 64, 4, 4, 256},
		{"tpuv5e1t:2x4", "tpu", []int{2, 4}, 1, 8, 8, 8},
		{"tpuv6e:2x2", "tpu", []int{2, 2}, 1, 4, 4, 4},
		{"tpuv6e:2x4", "tpu", []int{2, 4}, 2, 4, 4, 8},
		{"tpuv6e1t:2x4", "tpu", []int{2, 4}, 1, 8, 8, 8},
		// TPU7x: four chips per VM, two devices per chip.
		{"tpu7x:2x2x1", "tpu", []int{2, 2, 1}, 1, 4, 8, 8},
		{"tpu7x:4x4x4", "tpu", []int{4, 4, 4}, 16, 4, 8, 128},
		// CPU slices: one host.
		{"cpu:4", "cpu", []int{4}, 1, 4, 4, 4},
		{"cpu:2x2", "cpu", []int{2, 2}, 1, 4, 4, 4},
		{"cpu:1", "cpu", []int{1}, 1, 1, 1, 1},
		// CPU slices of several hosts: <H>h leads.
		{"cpu:2hx4", "cpu", []int{4}, 2, 4, 4, 8},
		{"cpu:4hx2x2", "cpu", []int{2, 2}, 4, 4, 4, 16},
		{"cpu:1hx8", "cpu", []int{8}, 1, 8, 8, 8},
		// GPU slices: one host of N GPUs, platform as the CUDA plugin names it.
		{"gpu:1", "cuda", []int{1}, 1, 1, 1, 1},
		{"gpu:8", "cuda", []int{8}, 1, 8, 8, 8},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			it, err := ParseInstanceType(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{it.Platform, it.Topology, it.Hosts, it.ChipsPerHost, it.DevicesPerHost(), it.DevicesPerSlice()}
			want := []any{tc.platform, tc.topology, tc.hosts, tc.chipsPerHost, tc.devicesPerHost, tc.slices}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(platform, topology, hosts, chips/host, devices/host, devices/slice) (-want +got):\n%s", diff)
			}
			if it.String() != tc.in {
				t.Errorf("String() = %q", it.String())
			}
		})
	}
}

func TestParseInstanceTypeErrors(t *testing.T) {
	for _, in := range []string{
		"", "tpuv4", "tpuv4:", ":2x2", "tpuv9:2x2", "TPUV4:2x2x1",
		"tpuv4:2x2",       // v4 is 3-D
		"tpuv5e:2x2x1",    // v5e is 2-D
		"tpuv4:2x3x1",     // 6 chips do not split into hosts of 4
		"tpuv5e:0x4",      // zero
		"tpuv5e:-2x4",     // sign
		"tpuv5e:+2x4",     // sign
		"tpuv5e:2x",       // empty dimension
		"tpuv5e:2x2x2x2",  // four dimensions
		"tpuv5e: 2x2",     // space
		"cpu:99999999999", // overflow
		"cpu:5000",        // too many devices on one host
		"cpu:2_untwisted",
		"cpu:2hx",          // no devices
		"cpu:2h",           // no devices
		"cpu:0hx4",         // zero hosts
		"cpu:hx4",          // no host count
		"cpu:2hx2hx4",      // two host counts
		"tpuv5e:2hx4",      // TPU hosts come from the topology
		"cpu:99999hx99999", // too many devices
		"tpuv5e:1024x1025", // too many chips
		"gpu:0",            // zero
		"gpu:2x4",          // a count, not a grid
		"gpu:2hx4",         // one host
		"gpu:8_untwisted",
		"gpu:5000", // too many devices on one host
		"GPU:1",
	} {
		if it, err := ParseInstanceType(in); err == nil {
			t.Errorf("ParseInstanceType(%q) = %+v, want an error", in, it)
		} else if !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("ParseInstanceType(%q) = %v, want INVALID_ARGUMENT", in, err)
		}
	}
}

func FuzzParseInstanceType(f *testing.F) {
	for _, s := range []string{"tpuv4:2x2x1", "tpuv5e:4x4", "tpuv5e1t:2x4", "tpu7x:4x4x4", "cpu:8", "cpu:2x2", "cpu:2hx4", "gpu:8", "tpuv5:2x4x4_untwisted", "x:", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it, err := ParseInstanceType(s)
		if err != nil {
			if ifrt.CodeOf(err) != ifrt.InvalidArgument {
				t.Fatalf("ParseInstanceType(%q): code %v, want INVALID_ARGUMENT", s, ifrt.CodeOf(err))
			}
			return
		}
		if it.Hosts < 1 || it.ChipsPerHost < 1 || it.DevicesPerChip < 1 {
			t.Fatalf("ParseInstanceType(%q) = %+v: non-positive counts", s, it)
		}
		if it.Hosts*it.ChipsPerHost != it.Chips() {
			t.Fatalf("ParseInstanceType(%q): %d hosts x %d chips != %d chips", s, it.Hosts, it.ChipsPerHost, it.Chips())
		}
		if it.DevicesPerSlice() > 2*maxDevicesPerSlice {
			t.Fatalf("ParseInstanceType(%q): %d devices per slice", s, it.DevicesPerSlice())
		}
	})
}

// FuzzRegisterWorker feeds arbitrary bytes through the RegisterWorker request
// decoder, the validator and the registration itself: every outcome must be
// a registration or an error with one of the documented codes.
func FuzzRegisterWorker(f *testing.F) {
	seed := func(req *rmpb.RegisterWorkerRequest) {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dev := func(coords ...int32) *rmpb.LocalDevice {
		return &rmpb.LocalDevice{Kind: "TPU v5 lite", Coords: coords, MemoryKinds: []string{"device", "pinned_host"}, DefaultMemoryKind: "device"}
	}
	seed(&rmpb.RegisterWorkerRequest{SliceIndex: 1, HostIndex: 1, Address: "a:1", Incarnation: "i", Platform: "tpu",
		Devices: []*rmpb.LocalDevice{dev(0, 2, 0), dev(1, 2, 0), dev(0, 3, 0), dev(1, 3, 0)}})
	seed(&rmpb.RegisterWorkerRequest{SliceIndex: 0, HostIndex: -1, Address: "a:1", Incarnation: "j",
		Devices: []*rmpb.LocalDevice{dev(), dev(), dev(), dev()}})
	seed(&rmpb.RegisterWorkerRequest{SliceIndex: 7, HostIndex: 9, Devices: []*rmpb.LocalDevice{dev(9, 9, 9, 9)}})
	f.Add([]byte{})

	s, err := New(Config{InstanceType: "tpuv5e:2x4", InstanceCount: 2, HeartbeatTimeout: time.Hour, Logger: discard})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	allowed := map[ifrt.Code]bool{
		ifrt.InvalidArgument: true, ifrt.OutOfRange: true, ifrt.FailedPrecondition: true,
		ifrt.AlreadyExists: true, ifrt.ResourceExhausted: true,
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req := &rmpb.RegisterWorkerRequest{}
		if proto.Unmarshal(b, req) != nil {
			return
		}
		if err := validateRegister(s.it, s.cfg.InstanceCount, req); err != nil {
			if !allowed[ifrt.CodeOf(err)] {
				t.Fatalf("validate: unexpected code %v: %v", ifrt.CodeOf(err), err)
			}
			return
		}
		reg, err := s.register(workerInfoFromPB(req))
		if err != nil {
			if !allowed[ifrt.CodeOf(err)] {
				t.Fatalf("register: unexpected code %v: %v", ifrt.CodeOf(err), err)
			}
			return
		}
		want := int(req.SliceIndex)*s.it.DevicesPerSlice() + reg.host*s.it.DevicesPerHost()
		if len(reg.ids) != s.it.DevicesPerHost() || int(reg.ids[0]) != want {
			t.Fatalf("register: ids %v for slice %d host %d", reg.ids, req.SliceIndex, reg.host)
		}
	})
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestSlowWatcherIsDropped(t *testing.T) {
	s, err := New(Config{InstanceType: "cpu:1", InstanceCount: 1, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := s.subscribe()
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	for range s.watchBuffer() + 1 {
		s.emitLocked(Event{Type: EventSliceUp})
	}
	s.mu.Unlock()
	select {
	case <-w.dropped:
	default:
		t.Fatal("a watcher that read nothing was not dropped")
	}
	s.mu.Lock()
	_, still := s.watchers[w]
	s.mu.Unlock()
	if still {
		t.Error("a dropped watcher is still subscribed")
	}
}
