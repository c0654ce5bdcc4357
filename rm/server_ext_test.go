package rm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

func ids(from, n int) []ifrt.DeviceID {
	out := make([]ifrt.DeviceID, n)
	for i := range out {
		out[i] = ifrt.DeviceID(from + i)
	}
	return out
}

func TestRegistrationToSliceUp(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	// Two slices of two hosts with four devices each.
	srv := startRM(t, n, rm.Config{InstanceType: "tpuv4:2x2x2", InstanceCount: 2, HeartbeatTimeout: time.Minute})
	c := newClient(t, n)
	events := watch(t, c)

	snap := next(ctx, t, events)
	if snap.Type != rm.EventSnapshot || snap.Cluster == nil {
		t.Fatalf("first event = %+v, want a snapshot", snap)
	}
	if got := len(snap.Cluster.Devices); got != 16 {
		t.Fatalf("snapshot lists %d devices, want 16", got)
	}
	for _, d := range snap.Cluster.Devices {
		if d.State != rm.StateMissing {
			t.Fatalf("device %d is %v before any registration, want missing", d.ID, d.State)
		}
	}

	raw := rawClient(t, n)
	type reg struct {
		slice, host int32
		want        []ifrt.DeviceID
	}
	for i, r := range []reg{{0, 0, ids(0, 4)}, {1, 1, ids(12, 4)}, {0, 1, ids(4, 4)}, {1, 0, ids(8, 4)}} {
		req := registerReq(r.slice, r.host, "w"+string(rune('a'+i)), "inc", 4)
		req.Platform = "tpu"
		resp, err := raw.RegisterWorker(ctx, req)
		if err != nil {
			t.Fatalf("RegisterWorker(slice %d, host %d): %v", r.slice, r.host, err)
		}
		got := make([]ifrt.DeviceID, len(resp.DeviceIds))
		for j, id := range resp.DeviceIds {
			got[j] = ifrt.DeviceID(id)
		}
		if diff := cmp.Diff(r.want, got); diff != "" {
			t.Errorf("slice %d host %d device ids (-want +got):\n%s", r.slice, r.host, diff)
		}
		select {
		case <-srv.Ready():
			if i < 3 {
				t.Fatalf("Ready closed after %d of 4 hosts", i+1)
			}
		default:
		}
	}

	// Joined, joined, joined, slice 0 up, joined, slice 1 up.
	var got []rm.EventType
	var upSlices []int
	for len(upSlices) < 2 {
		ev := next(ctx, t, events)
		got = append(got, ev.Type)
		if ev.Type == rm.EventSliceUp {
			upSlices = append(upSlices, ev.Slice)
		}
	}
	want := []rm.EventType{rm.EventWorkerJoined, rm.EventWorkerJoined, rm.EventWorkerJoined, rm.EventSliceUp, rm.EventWorkerJoined, rm.EventSliceUp}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 1}, upSlices); diff != "" {
		t.Errorf("slices up (-want +got):\n%s", diff)
	}
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		t.Fatal("Ready not closed with every slice up")
	}

	cl, err := c.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !cl.Ready() {
		t.Errorf("Cluster().Ready() = false with every host registered")
	}
	wantSlices := []rm.Slice{{Index: 0, Up: true, LiveHosts: 2}, {Index: 1, Up: true, LiveHosts: 2}}
	if diff := cmp.Diff(wantSlices, cl.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
	d := cl.Devices[13] // slice 1, host 1, local 1
	wantDev := rm.Device{
		ID: 13, Slice: 1, Host: 1, Local: 1, State: rm.StateLive, WorkerAddress: "wb", Platform: "tpu",
		Description: rm.LocalDevice{Kind: "cpu", LocalHardwareID: 1, MemoryKinds: []ifrt.MemoryKind{"device"}, DefaultMemoryKind: "device"},
	}
	if diff := cmp.Diff(wantDev, d); diff != "" {
		t.Errorf("device 13 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(srv.Cluster(), cl, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("GetCluster differs from Server.Cluster (-server +rpc):\n%s", diff)
	}
}

func TestRegisterErrors(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	startRM(t, n, rm.Config{InstanceType: "cpu:2", InstanceCount: 2, HeartbeatTimeout: time.Minute})
	raw := rawClient(t, n)
	if _, err := raw.RegisterWorker(ctx, registerReq(1, 0, "held", "inc-held", 2)); err != nil {
		t.Fatal(err)
	}

	mod := func(f func(*rmpb.RegisterWorkerRequest)) *rmpb.RegisterWorkerRequest {
		req := registerReq(0, 0, "a", "inc-a", 2)
		f(req)
		return req
	}
	tests := []struct {
		name string
		req  *rmpb.RegisterWorkerRequest
		want codes.Code
	}{
		{"slice out of range", mod(func(r *rmpb.RegisterWorkerRequest) { r.SliceIndex = 2 }), codes.OutOfRange},
		{"negative slice", mod(func(r *rmpb.RegisterWorkerRequest) { r.SliceIndex = -1 }), codes.OutOfRange},
		{"host out of range", mod(func(r *rmpb.RegisterWorkerRequest) { r.HostIndex = 1 }), codes.OutOfRange},
		{"host below -1", mod(func(r *rmpb.RegisterWorkerRequest) { r.HostIndex = -2 }), codes.InvalidArgument},
		{"too few devices", registerReq(0, 0, "a", "inc-a", 1), codes.FailedPrecondition},
		{"too many devices", registerReq(0, 0, "a", "inc-a", 3), codes.FailedPrecondition},
		{"no address", mod(func(r *rmpb.RegisterWorkerRequest) { r.Address = "" }), codes.InvalidArgument},
		{"no incarnation", mod(func(r *rmpb.RegisterWorkerRequest) { r.Incarnation = "" }), codes.InvalidArgument},
		{"coords outside topology", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[0].Coords = []int32{2} }), codes.InvalidArgument},
		{"coords in a missing dimension", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[0].Coords = []int32{0, 1} }), codes.InvalidArgument},
		{"default memory kind not listed", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[1].DefaultMemoryKind = "pinned_host" }), codes.InvalidArgument},
		{"duplicate memory kind", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[1].MemoryKinds = []string{"device", "device"} }), codes.InvalidArgument},
		{"negative local hardware id", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[1].LocalHardwareId = -2 }), codes.InvalidArgument},
		{"core on chip beyond the chip", mod(func(r *rmpb.RegisterWorkerRequest) { r.Devices[1].CoreOnChip = 1 }), codes.InvalidArgument},
		{"duplicate live host", registerReq(1, 0, "other", "inc-other", 2), codes.AlreadyExists},
		{"full slice", registerReq(1, -1, "other", "inc-other", 2), codes.ResourceExhausted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := raw.RegisterWorker(ctx, tc.req)
			if got := status.Code(err); got != tc.want {
				t.Errorf("RegisterWorker: code %v (%v), want %v", got, err, tc.want)
			}
		})
	}

	// Through rm.Client the code survives as an ifrt error.
	c := newClient(t, n)
	_, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 5, Host: 0, Address: "a", Devices: localDevices(2)})
	if !errors.Is(err, ifrt.ErrOutOfRange) {
		t.Errorf("RegisterAndHeartbeat(slice 5) = %v, want an OUT_OF_RANGE error", err)
	}
	_, err = c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: 0, Address: "a", Devices: localDevices(3)})
	if !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Errorf("RegisterAndHeartbeat(3 devices on cpu:2) = %v, want a FAILED_PRECONDITION error", err)
	}
	// ALREADY_EXISTS is retried (the holder may be a dead run of the same
	// worker), so with a deadline it fails with both errors.
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = c.RegisterAndHeartbeat(sctx, rm.WorkerInfo{Slice: 1, Host: 0, Address: "other", Devices: localDevices(2)})
	if !errors.Is(err, ifrt.ErrAlreadyExists) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("RegisterAndHeartbeat(held host) = %v, want ALREADY_EXISTS and the deadline", err)
	}
}

func TestHeartbeatTimeoutLosesWorker(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1, HeartbeatTimeout: 20 * time.Millisecond})
	events := watch(t, newClient(t, n))
	next(ctx, t, events) // snapshot

	// Registered, but no heartbeat stream: a hung worker.
	if _, err := rawClient(t, n).RegisterWorker(ctx, registerReq(0, 0, "hung", "inc", 1)); err != nil {
		t.Fatal(err)
	}
	var got []rm.EventType
	var lost rm.Event
	for len(got) < 4 {
		ev := next(ctx, t, events)
		got = append(got, ev.Type)
		if ev.Type == rm.EventWorkerLost {
			lost = ev
		}
	}
	want := []rm.EventType{rm.EventWorkerJoined, rm.EventSliceUp, rm.EventWorkerLost, rm.EventSliceDown}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if lost.Worker == nil || lost.Worker.State != rm.StateLost || lost.Worker.Address != "hung" || lost.Worker.LostReason == "" {
		t.Errorf("lost event worker = %+v, want the hung worker, lost, with a reason", lost.Worker)
	}
}

func TestHeartbeatStreamBreakLosesWorkerAtOnce(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	// A timeout far beyond the test's deadline: only the broken stream can
	// make the worker lost in time.
	startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1, HeartbeatTimeout: time.Hour})
	events := watch(t, newClient(t, n))
	next(ctx, t, events)

	raw := rawClient(t, n)
	resp, err := raw.RegisterWorker(ctx, registerReq(0, 0, "w", "inc", 1))
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	stream, err := raw.Heartbeat(sctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&rmpb.HeartbeatRequest{LeaseId: resp.LeaseId}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatalf("first heartbeat answer: %v", err)
	}
	waitFor(ctx, t, events, rm.EventSliceUp)
	cancel() // the worker process "dies"
	if ev := next(ctx, t, events); ev.Type != rm.EventWorkerLost {
		t.Fatalf("after the stream broke got %v, want worker-lost", ev.Type)
	}
	if ev := next(ctx, t, events); ev.Type != rm.EventSliceDown {
		t.Fatalf("got %v, want slice-down", ev.Type)
	}

	// The lease is gone: heartbeating on it is NOT_FOUND.
	stream2, err := raw.Heartbeat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stream2.Send(&rmpb.HeartbeatRequest{LeaseId: resp.LeaseId})
	if _, err := stream2.Recv(); status.Code(err) != codes.NotFound {
		t.Errorf("heartbeat on a lost lease: %v, want NOT_FOUND", err)
	}
}

func TestReRegistrationKeepsDeviceIDs(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	srv := startRM(t, n, rm.Config{InstanceType: "tpuv5e:2x4", InstanceCount: 2, HeartbeatTimeout: time.Hour})
	events := watch(t, newClient(t, n))
	next(ctx, t, events)
	raw := rawClient(t, n)

	register := func(addr, inc string) ([]int32, error) {
		resp, err := raw.RegisterWorker(ctx, registerReq(1, 1, addr, inc, 4))
		return resp.GetDeviceIds(), err
	}
	first, err := register("10.0.0.2:29005", "boot-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{12, 13, 14, 15}, first); diff != "" {
		t.Fatalf("ids of slice 1 host 1 (-want +got):\n%s", diff)
	}
	waitFor(ctx, t, events, rm.EventWorkerJoined)

	// The same process registering again: no events, same ids.
	again, err := register("10.0.0.2:29005", "boot-1")
	if err != nil || !cmp.Equal(first, again) {
		t.Fatalf("same incarnation again: ids %v, err %v; want %v", again, err, first)
	}
	// A new incarnation at the same address (the worker restarted) takes the
	// host over: the old one is lost, the new one joins, same ids.
	restarted, err := register("10.0.0.2:29005", "boot-2")
	if err != nil || !cmp.Equal(first, restarted) {
		t.Fatalf("new incarnation: ids %v, err %v; want %v", restarted, err, first)
	}
	lost := next(ctx, t, events)
	if lost.Type != rm.EventWorkerLost || lost.Worker.Incarnation != "boot-1" {
		t.Fatalf("got %v %+v, want boot-1 lost", lost.Type, lost.Worker)
	}
	joined := next(ctx, t, events)
	if joined.Type != rm.EventWorkerJoined || joined.Worker.Incarnation != "boot-2" {
		t.Fatalf("got %v %+v, want boot-2 joined", joined.Type, joined.Worker)
	}
	// Another address while boot-2 is live: refused.
	if _, err := register("10.0.0.9:29005", "boot-x"); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("other worker on a live host: %v, want ALREADY_EXISTS", err)
	}

	// A lost worker can be replaced from any address, again with the same ids.
	// Losing it: a heartbeat stream that the worker closes.
	resp, err := raw.RegisterWorker(ctx, registerReq(1, 1, "10.0.0.2:29005", "boot-2", 4))
	if err != nil {
		t.Fatal(err)
	}
	stream := heartbeat(ctx, t, raw, resp.LeaseId)
	stream.CloseSend()
	waitFor(ctx, t, events, rm.EventWorkerLost)
	moved, err := register("10.0.0.3:29005", "boot-3")
	if err != nil || !cmp.Equal(first, moved) {
		t.Fatalf("after loss, new address: ids %v, err %v; want %v", moved, err, first)
	}
	w := srv.Cluster().Workers[3]
	if w.State != rm.StateLive || w.Address != "10.0.0.3:29005" || w.Incarnation != "boot-3" {
		t.Errorf("worker slot = %+v, want boot-3 live at 10.0.0.3", w)
	}
}

func TestRMRestartClientRegistersAgain(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	// Loss detection here comes from the broken stream, not the timeout.
	cfg := rm.Config{InstanceType: "cpu:2", InstanceCount: 1, HeartbeatTimeout: time.Minute}
	first := startRM(t, n, cfg)
	c := newClient(t, n)
	events := watch(t, c)

	reg, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: rm.AnyHost, Address: "w0:29005", Platform: "cpu", Devices: localDevices(2)})
	if err != nil {
		t.Fatal(err)
	}
	a := reg.Assignment()
	if diff := cmp.Diff([]ifrt.DeviceID{0, 1}, a.DeviceIDs); diff != "" {
		t.Fatalf("device ids (-want +got):\n%s", diff)
	}
	if a.Host != 0 || a.RMIncarnation != first.Cluster().RMIncarnation {
		t.Fatalf("assignment %+v: want host 0 from the first RM", a)
	}
	select {
	case <-first.Ready():
	case <-ctx.Done():
		t.Fatal("first RM never ready")
	}

	// The RM dies and a new one, with no memory, comes up at the same address.
	changed := reg.Changed()
	first.Close()
	second := startRM(t, n, cfg)
	select {
	case <-second.Ready():
	case <-ctx.Done():
		t.Fatal("the worker did not register with the restarted RM")
	}
	var b rm.Assignment
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the registration did not report the new assignment")
		}
		changed = reg.Changed()
		if b = reg.Assignment(); b.RMIncarnation == second.Cluster().RMIncarnation {
			break
		}
	}
	if diff := cmp.Diff(a.DeviceIDs, b.DeviceIDs); diff != "" {
		t.Errorf("device ids changed across the RM restart (-before +after):\n%s", diff)
	}

	// The watcher reconnected too, and got the new RM's view.
	for {
		ev := waitFor(ctx, t, events, rm.EventSnapshot)
		if ev.Cluster.RMIncarnation == second.Cluster().RMIncarnation {
			break
		}
	}

	// Closing the registration makes the worker leave at once.
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := reg.Err(); err != nil {
		t.Errorf("Err after Close = %v, want nil", err)
	}
	if ev := waitFor(ctx, t, events, rm.EventWorkerLost); ev.Worker.Address != "w0:29005" {
		t.Errorf("lost worker %+v, want w0:29005", ev.Worker)
	}
}

func TestRegistrationEndsWithContext(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	srv := startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1, HeartbeatTimeout: time.Hour})
	c := newClient(t, n)
	rctx, cancel := context.WithCancel(ctx)
	reg, err := c.RegisterAndHeartbeat(rctx, rm.WorkerInfo{Address: "w", Devices: localDevices(1)})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-reg.Done():
	case <-ctx.Done():
		t.Fatal("registration did not end with its context")
	}
	if !errors.Is(reg.Err(), context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", reg.Err())
	}
	for ev, err := range c.Watch(ctx) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		if ev.Type == rm.EventSnapshot && ev.Cluster.Workers[0].State == rm.StateLost {
			break
		}
		if ev.Type == rm.EventWorkerLost {
			break
		}
	}
	if w := srv.Cluster().Workers[0]; w.State != rm.StateLost {
		t.Errorf("worker is %v after its context ended, want lost", w.State)
	}
}

func TestLifecycle(t *testing.T) {
	t.Run("Shutdown", func(t *testing.T) {
		ctx := testContext(t)
		n := &network{}
		srv := startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
		raw := rawClient(t, n)
		stream, err := raw.Watch(ctx, &rmpb.WatchRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
		// A heartbeat stream that never sent anything must not hold up a
		// graceful shutdown either.
		if _, err := raw.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if err := <-srv.served; err != nil {
			t.Errorf("Serve after Shutdown = %v, want nil", err)
		}
		if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
			t.Errorf("watch stream after Shutdown: %v, want UNAVAILABLE", err)
		}
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("second Shutdown = %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close after Shutdown = %v", err)
		}
		if err := srv.Serve(n.listen()); !errors.Is(err, rm.ErrServerClosed) {
			t.Errorf("Serve after Shutdown = %v, want ErrServerClosed", err)
		}
	})
	t.Run("Close", func(t *testing.T) {
		n := &network{}
		srv := startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-srv.served; !errors.Is(err, rm.ErrServerClosed) {
			t.Errorf("Serve after Close = %v, want ErrServerClosed", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
	})
	t.Run("NewStartsNothing", func(t *testing.T) {
		srv, err := rm.New(rm.Config{InstanceType: "cpu:1", InstanceCount: 1, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown of a server never served = %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close of a server never served = %v", err)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  rm.Config
		ok   bool
	}{
		{"ok", rm.Config{InstanceType: "tpuv5e:4x4", InstanceCount: 2}, true},
		{"no instance type", rm.Config{InstanceCount: 1}, false},
		{"bad instance type", rm.Config{InstanceType: "tpuv9:2x2", InstanceCount: 1}, false},
		{"no instance count", rm.Config{InstanceType: "cpu:1"}, false},
		{"negative timeout", rm.Config{InstanceType: "cpu:1", InstanceCount: 1, HeartbeatTimeout: -time.Second}, false},
		{"ids overflow int32", rm.Config{InstanceType: "tpuv5e:1024x1024", InstanceCount: 4096}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ifrt.ErrInvalidArgument) {
				t.Errorf("Validate() = %v, want INVALID_ARGUMENT", err)
			}
			if _, nerr := rm.New(tc.cfg); (nerr == nil) != tc.ok {
				t.Errorf("New() = %v, want ok=%v", nerr, tc.ok)
			}
		})
	}
}

func TestAnyHost(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	startRM(t, n, rm.Config{InstanceType: "tpuv6e:4x4", InstanceCount: 1, HeartbeatTimeout: time.Hour})
	raw := rawClient(t, n)
	host := func(addr, inc string) int32 {
		t.Helper()
		resp, err := raw.RegisterWorker(ctx, registerReq(0, -1, addr, inc, 4))
		if err != nil {
			t.Fatalf("RegisterWorker(%s, %s): %v", addr, inc, err)
		}
		return resp.HostIndex
	}
	for i, addr := range []string{"a", "b", "c"} {
		if got := host(addr, addr+"-1"); got != int32(i) {
			t.Fatalf("worker %s got host %d, want %d", addr, got, i)
		}
	}
	// The same process asking again keeps its host.
	if got := host("b", "b-1"); got != 1 {
		t.Errorf("b again got host %d, want 1", got)
	}
	// Lose b (its stream ends), then a lost host comes back to its address.
	resp, err := raw.RegisterWorker(ctx, registerReq(0, 1, "b", "b-1", 4))
	if err != nil {
		t.Fatal(err)
	}
	stream := heartbeat(ctx, t, raw, resp.LeaseId)
	stream.CloseSend()
	if _, err := stream.Recv(); err == nil {
		t.Fatal("heartbeat stream still open after CloseSend")
	}
	if got := host("d", "d-1"); got != 3 {
		t.Errorf("new worker d got host %d, want the free host 3", got)
	}
	if got := host("b", "b-2"); got != 1 {
		t.Errorf("b restarted got host %d, want its old host 1", got)
	}
	if _, err := raw.RegisterWorker(ctx, registerReq(0, -1, "e", "e-1", 4)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("fifth worker on four hosts: %v, want RESOURCE_EXHAUSTED", err)
	}
}

func TestHeartbeatStreamTakeover(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	srv := startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1, HeartbeatTimeout: time.Hour})
	raw := rawClient(t, n)
	resp, err := raw.RegisterWorker(ctx, registerReq(0, 0, "w", "inc", 1))
	if err != nil {
		t.Fatal(err)
	}
	first := heartbeat(ctx, t, raw, resp.LeaseId)
	second := heartbeat(ctx, t, raw, resp.LeaseId)
	if _, err := first.Recv(); status.Code(err) != codes.Aborted {
		t.Errorf("first stream after a takeover: %v, want ABORTED", err)
	}
	if err := second.Send(&rmpb.HeartbeatRequest{LeaseId: resp.LeaseId}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Recv(); err != nil {
		t.Errorf("second stream: %v", err)
	}
	if w := srv.Cluster().Workers[0]; w.State != rm.StateLive {
		t.Errorf("worker is %v after a stream takeover, want live", w.State)
	}
}

func TestWatchEndsWhenClientCloses(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
	c := newClient(t, n)
	var last error
	first := true
	for ev, err := range c.Watch(ctx) {
		if first {
			if ev.Type != rm.EventSnapshot {
				t.Fatalf("first event %v, want snapshot", ev.Type)
			}
			first = false
			c.Close()
			continue
		}
		last = err
	}
	if !errors.Is(last, ifrt.ErrFailedPrecondition) {
		t.Errorf("Watch after Close ended with %v, want FAILED_PRECONDITION (client closed)", last)
	}
}
