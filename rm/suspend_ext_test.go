package rm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

type suspendResult struct {
	slice rm.Slice
	err   error
}

// TestSuspendSliceStates walks one slice of two hosts through suspend and
// resume as its workers report, then loses a worker mid-suspend: DATA_LOSS,
// and the slice is SUSPENDED with that host unsaved.
func TestSuspendSliceStates(t *testing.T) {
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:2hx2", InstanceCount: 1})
	ctx := testContext(t)
	c := newClient(t, &n)
	events := watch(t, c)

	if _, err := c.SuspendSlice(ctx, 3, rm.SuspendOptions{}); !errors.Is(err, ifrt.ErrOutOfRange) {
		t.Errorf("SuspendSlice(3): %v; want OUT_OF_RANGE", err)
	}
	reg0, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: 0, Address: "w0:1", Platform: "cpu", Devices: localDevices(2)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SuspendSlice(ctx, 0, rm.SuspendOptions{}); !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Errorf("SuspendSlice with a host missing: %v; want FAILED_PRECONDITION", err)
	}
	reg1, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: 1, Address: "w1:1", Platform: "cpu", Devices: localDevices(2)})
	if err != nil {
		t.Fatal(err)
	}

	suspend := func() <-chan suspendResult {
		ch := make(chan suspendResult, 1)
		go func() {
			v, err := c.SuspendSlice(ctx, 0, rm.SuspendOptions{Reason: "test"})
			ch <- suspendResult{v, err}
		}()
		return ch
	}
	done := suspend()
	if v := waitState(ctx, t, events, rm.SliceSuspending); v.SuspendGeneration != 1 || v.SuspendReason != "test" {
		t.Fatalf("suspending: %+v; want generation 1, reason test", v)
	}
	if err := reg0.ReportSliceState(ctx, 1, rm.SliceSuspended, "file:///s/suspend/slice-0/gen-1", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		t.Fatalf("SuspendSlice returned %+v before every host saved", r)
	default:
	}
	if err := reg1.ReportSliceState(ctx, 1, rm.SliceSuspended, "file:///s/suspend/slice-0/gen-1", nil); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.slice.State != rm.SliceSuspended || r.slice.SuspendLocation != "file:///s/suspend/slice-0/gen-1" {
		t.Fatalf("SuspendSlice: %+v, %v; want SUSPENDED at the reported location", r.slice, r.err)
	}
	if err := reg1.ReportSliceState(ctx, 1, rm.SliceSuspended, "", nil); !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Errorf("a late report: %v; want FAILED_PRECONDITION", err)
	}
	if err := reg1.ReportSliceState(ctx, 1, rm.SliceResuming, "", nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("a report of RESUMING: %v; want INVALID_ARGUMENT", err)
	}
	view, err := c.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := view.Slices[0].State; got != rm.SliceSuspended {
		t.Errorf("GetCluster lists the slice %v", got)
	}

	resumed := make(chan error, 1)
	go func() {
		_, err := c.ResumeSlice(ctx, 0)
		resumed <- err
	}()
	waitState(ctx, t, events, rm.SliceResuming)
	for _, reg := range []*rm.Registration{reg0, reg1} {
		if err := reg.ReportSliceState(ctx, 1, rm.SliceActive, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-resumed; err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}

	// Host 1's worker is lost before it saved.
	done = suspend()
	waitState(ctx, t, events, rm.SliceSuspending)
	if err := reg0.ReportSliceState(ctx, 2, rm.SliceSuspended, "file:///s/suspend/slice-0/gen-2", nil); err != nil {
		t.Fatal(err)
	}
	reg1.Close()
	r = <-done
	if !errors.Is(r.err, ifrt.ErrDataLoss) {
		t.Fatalf("SuspendSlice with a worker lost mid-suspend: %v; want DATA_LOSS", r.err)
	}
	view, err = c.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := view.Slices[0]; s.State != rm.SliceSuspended || !cmp.Equal(s.UnsavedHosts, []int{1}) {
		t.Errorf("after the loss the slice is %+v; want SUSPENDED with host 1 unsaved", s)
	}
}

// TestSuspendFailureResumes: a worker that cannot save (no scratch location)
// fails the suspension; the hosts that saved take their arrays back and the
// slice is ACTIVE again, and SuspendSlice returns the worker's error.
func TestSuspendFailureResumes(t *testing.T) {
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:2hx2", InstanceCount: 1})
	ctx := testContext(t)
	c := newClient(t, &n)
	events := watch(t, c)
	var regs []*rm.Registration
	for h := range 2 {
		reg, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{Slice: 0, Host: h, Address: "w:" + string(rune('0'+h)), Platform: "cpu", Devices: localDevices(2)})
		if err != nil {
			t.Fatal(err)
		}
		regs = append(regs, reg)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.SuspendSlice(ctx, 0, rm.SuspendOptions{})
		done <- err
	}()
	waitState(ctx, t, events, rm.SliceSuspending)
	if err := regs[0].ReportSliceState(ctx, 1, rm.SliceSuspended, "file:///x", nil); err != nil {
		t.Fatal(err)
	}
	if err := regs[1].ReportSliceState(ctx, 1, rm.SliceSuspended, "", ifrt.Errorf(ifrt.FailedPrecondition, "no scratch")); err != nil {
		t.Fatal(err)
	}
	waitState(ctx, t, events, rm.SliceResuming) // after a failed save
	for _, reg := range regs {
		if err := reg.ReportSliceState(ctx, 1, rm.SliceActive, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Errorf("SuspendSlice: %v; want the worker's FAILED_PRECONDITION", err)
	}
	view, err := c.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := view.Slices[0].State; got != rm.SliceActive {
		t.Errorf("the slice is %v; want ACTIVE", got)
	}
}

// waitState skips events until slice 0 is in state: in a state event, or in
// a snapshot (the watch may start after the change).
func waitState(ctx context.Context, t *testing.T, events <-chan rm.Event, state rm.SliceState) rm.Slice {
	t.Helper()
	for {
		ev := next(ctx, t, events)
		switch {
		case ev.Type == rm.EventSliceState && ev.SliceInfo.State == state:
			return *ev.SliceInfo
		case ev.Type == rm.EventSnapshot && ev.Cluster.Slices[0].State == state:
			return ev.Cluster.Slices[0]
		}
	}
}
