package worker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/shardio"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/zarr"
)

// Suspend and resume (docs/cluster.md): the worker follows its slice's state
// through its watch of the RM. When the slice is SUSPENDING it lets the
// executions in flight finish, refuses new work with UNAVAILABLE, saves every
// array its sessions hold under
//
//	<scratch>/suspend/slice-<i>/gen-<n>/host-<h>/s<session>-h<handle>
//
// (a zarr array each, one per handle; an array over several devices as
// s<session>-h<handle>-d<k>, one per device), frees them and reports to the
// RM (suspend_cleanup.go says when the objects are deleted). When
// the slice is RESUMING, the same process reads them back under the same
// handles; a replacement (a new process) has nothing to read back: the
// cluster clients ask it to read their arrays back when they next use them
// (shardio.SuspendedName names them).

// suspender is the worker's part of suspending and resuming its slice.
type suspender struct {
	w *Server

	mu    sync.Mutex
	saved *savedSlice        // what this process saved and freed
	done  map[sliceStep]bool // transitions already handled
}

type sliceStep struct {
	gen   uint64
	state rm.SliceState
}

// savedSlice is one suspension's arrays, as this process saved them.
type savedSlice struct {
	gen    uint64
	loc    *storage.Location
	arrays []savedArray
}

type savedArray struct {
	name string
	held proxyserver.HeldArray
	spec ifrt.ArraySpec
	// parts are the single-device arrays of an array over several devices,
	// saved one by one as <name>-d<k> (set by save).
	parts []ifrt.ArraySpec
}

func newSuspender(w *Server) *suspender {
	return &suspender{w: w, done: map[sliceStep]bool{}}
}

// follow watches the RM until ctx ends and does the worker's part of each
// state change of its slice.
func (sp *suspender) follow(ctx context.Context, client *rm.Client, reg *rm.Registration) {
	slice := reg.Assignment().Slice
	var rmIncarnation string
	for ev, err := range client.Watch(ctx) {
		if err != nil {
			continue // the RM client logs and watches again
		}
		var v *rm.Slice
		switch ev.Type {
		case rm.EventSnapshot:
			if ev.Cluster.RMIncarnation != rmIncarnation {
				// A new run of the RM numbers suspensions from 1 again.
				rmIncarnation = ev.Cluster.RMIncarnation
				sp.mu.Lock()
				sp.done = map[sliceStep]bool{}
				sp.mu.Unlock()
			}
			if slice < len(ev.Cluster.Slices) {
				v = &ev.Cluster.Slices[slice]
			}
		case rm.EventSliceState:
			if ev.Slice == slice {
				v = ev.SliceInfo
			}
		}
		if v != nil {
			sp.step(ctx, reg, *v)
		}
	}
}

// step does what state v of the slice asks of this worker, once per
// transition.
func (sp *suspender) step(ctx context.Context, reg *rm.Registration, v rm.Slice) {
	sp.mu.Lock()
	key := sliceStep{v.SuspendGeneration, v.State}
	first := !sp.done[key]
	sp.done[key] = true
	sp.mu.Unlock()
	if !first {
		return
	}
	log := sp.w.log.With("slice", v.Index, "generation", v.SuspendGeneration)
	switch v.State {
	case rm.SliceSuspending:
		location, err := sp.suspend(ctx, v)
		if err != nil {
			log.Warn("suspending the slice failed", "error", err)
		}
		sp.report(ctx, reg, v.SuspendGeneration, rm.SliceSuspended, location, err)
		if err == nil {
			sp.removeEarlier(ctx, v.Index, v.SuspendGeneration)
		}
	case rm.SliceResuming:
		loc, err := sp.resume(ctx, v.SuspendGeneration)
		if err != nil {
			log.Warn("resuming the slice lost arrays", "error", err)
		}
		sp.report(ctx, reg, v.SuspendGeneration, rm.SliceActive, "", err)
		sp.removeRestored(ctx, loc, err)
	case rm.SliceActive:
		// The RM moved on without this worker (it restarted, say): whatever
		// was saved comes back.
		loc, err := sp.resume(ctx, v.SuspendGeneration)
		if err != nil {
			log.Warn("resuming the slice lost arrays", "error", err)
		}
		sp.removeRestored(ctx, loc, err)
	}
}

func (sp *suspender) report(ctx context.Context, reg *rm.Registration, gen uint64, state rm.SliceState, location string, failure error) {
	if err := reg.ReportSliceState(ctx, gen, state, location, failure); err != nil {
		sp.w.log.Debug("the RM took no report of the slice's state", "generation", gen, "state", state, "error", err)
	}
}

// suspend pauses the proxy server, saves every array its sessions hold and
// frees them, and returns the slice's suspend location. On failure nothing
// was freed and the server runs again.
func (sp *suspender) suspend(ctx context.Context, v rm.Slice) (string, error) {
	w := sp.w
	if w.cfg.ScratchLocation == "" {
		return "", ifrt.Errorf(ifrt.FailedPrecondition, "worker: slice %d cannot be suspended: this worker has no scratch location to save its arrays to (--gcs_scratch_location)", v.Index)
	}
	a := w.assignment()
	root := sp.sliceRoot(v.Index) + fmt.Sprintf("/gen-%d", v.SuspendGeneration)
	loc, err := w.store.location(ctx, fmt.Sprintf("%s/host-%d", root, a.Host))
	if err != nil {
		return "", err
	}
	refusal := ifrt.Errorf(ifrt.Unavailable, "worker: slice %d is suspended (generation %d); its arrays come back when it resumes", v.Index, v.SuspendGeneration)
	pctx, cancel := context.WithTimeout(ctx, inFlightWait)
	held, err := w.proxy.Pause(pctx, refusal)
	cancel()
	if err != nil {
		return "", ifrt.Errorf(ifrt.DeadlineExceeded, "worker: slice %d was not suspended: the requests in flight did not finish within %v", v.Index, inFlightWait)
	}
	saved := &savedSlice{gen: v.SuspendGeneration, loc: loc}
	for _, h := range held {
		saved.arrays = append(saved.arrays, savedArray{
			name: shardio.SuspendedName(h.Session, h.Handles[0]), held: h,
			spec: ifrt.ArraySpec{DType: h.Array.DType(), Shape: h.Array.Shape(), Sharding: h.Array.Sharding(), Layout: h.Array.Layout()},
		})
	}
	if testHookBeforeSave != nil {
		testHookBeforeSave(held)
	}
	err = storage.Parallel(ctx, len(saved.arrays), func(ctx context.Context, i int) error {
		err := sp.save(ctx, loc, &saved.arrays[i])
		if saved.arrays[i].held.Array.IsDeleted() {
			return nil // dropped below
		}
		return err
	})
	if err != nil {
		w.proxy.Unpause()
		return "", err
	}
	// An array its client deleted after Pause (deletes still run while
	// paused) has nothing to save and nothing to give back.
	saved.arrays = slices.DeleteFunc(saved.arrays, func(s savedArray) bool { return s.held.Array.IsDeleted() })
	freed := make([]proxyserver.HeldArray, len(saved.arrays))
	for i, s := range saved.arrays {
		freed[i] = s.held
	}
	w.proxy.Evict(freed, refusal)
	sp.mu.Lock()
	sp.saved = saved
	sp.mu.Unlock()
	w.log.Info("slice suspended", "slice", v.Index, "generation", v.SuspendGeneration, "arrays", len(freed), "location", loc.String())
	return root, nil
}

// inFlightWait bounds how long a suspension waits for the requests in
// flight (a program that never ends would otherwise hold it forever); past
// it the suspension fails and the slice stays active.
const inFlightWait = 5 * time.Minute

// testHookBeforeSave, when set, sees the arrays a suspension is about to
// save (tests delete some, as a client's delete arriving then would).
var testHookBeforeSave func([]proxyserver.HeldArray)

// zarrOf describes a saved array: one uncompressed chunk.
func zarrOf(spec ifrt.ArraySpec) zarr.Array {
	chunks := spec.Shape.Clone()
	for i := range chunks {
		chunks[i] = max(chunks[i], 1)
	}
	return zarr.Array{DType: spec.DType, Shape: spec.Shape, Chunks: chunks}
}

// save writes s under the name of each of its handles (a replacement worker
// reads it back by any). An array over several devices is written device by
// device under its first handle's name: only this process puts it back
// (cluster clients keep one single-device array per device).
func (sp *suspender) save(ctx context.Context, loc *storage.Location, s *savedArray) error {
	if len(s.spec.Sharding.Devices()) == 1 {
		var names []string
		for _, h := range s.held.Handles {
			names = append(names, shardio.SuspendedName(s.held.Session, h))
		}
		return sp.write(ctx, loc, names, s.held.Array)
	}
	parts, err := sp.w.cfg.Backend.DisassembleArray(ctx, s.held.Array, ifrt.ReuseInput)
	if err != nil {
		return err
	}
	defer func() {
		for _, p := range parts {
			p.Delete() // they share the array's buffers, which Evict frees
		}
	}()
	for k, p := range parts {
		if err := sp.write(ctx, loc, []string{partName(s.name, k)}, p); err != nil {
			return err
		}
		s.parts = append(s.parts, p.Spec())
	}
	return nil
}

// partName names the saved part k of an array over several devices.
func partName(name string, k int) string { return fmt.Sprintf("%s-d%d", name, k) }

// write stores single-device array a as a zarr array under each name.
func (sp *suspender) write(ctx context.Context, loc *storage.Location, names []string, a ifrt.Array) error {
	spec := a.Spec()
	n, err := sp.w.store.shardBytes(spec.DType, ifrt.FullDomain(spec.Shape))
	if err != nil {
		return err
	}
	data := make([]byte, n)
	if err := a.CopyToHostBuffer(ctx, data, nil); err != nil {
		return err
	}
	z := zarrOf(spec)
	for _, name := range names {
		if err := zarr.WriteMetadata(ctx, loc, name, z); err != nil {
			return err
		}
		if err := zarr.WriteRegion(ctx, loc, name, z, ifrt.FullDomain(spec.Shape), data); err != nil {
			return err
		}
	}
	return nil
}

// resume reads back what this process saved (for suspension gen, or an
// earlier one the RM forgot when it restarted), under the same handles, and
// lets the proxy server run again. It returns where they were saved (nil:
// nothing was). Arrays it cannot read back fail with DATA_LOSS from then on;
// the first such error is returned.
func (sp *suspender) resume(ctx context.Context, gen uint64) (*storage.Location, error) {
	sp.mu.Lock()
	saved := sp.saved
	sp.saved = nil
	sp.mu.Unlock()
	w := sp.w
	if saved == nil {
		w.proxy.Unpause()
		return nil, nil
	}
	var mu sync.Mutex
	var first error
	_ = storage.Parallel(ctx, len(saved.arrays), func(ctx context.Context, i int) error {
		s := saved.arrays[i]
		a, err := sp.readBack(ctx, saved.loc, s)
		if err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
			a = ifrt.NewErrorArray(s.spec, ifrt.Errorf(ifrt.DataLoss, "worker: reading a suspended array back: %v", err))
		}
		if !w.proxy.Restore(s.held.Session, s.held.Handles, a) {
			a.Delete() // its session ended, or its client deleted it, meanwhile
		}
		return nil
	})
	w.proxy.Unpause()
	w.log.Info("slice resumed", "generation", gen, "arrays", len(saved.arrays), "error", first)
	return saved.loc, first
}

// readBack reads s back: in one piece, or device by device and assembled.
func (sp *suspender) readBack(ctx context.Context, loc *storage.Location, s savedArray) (ifrt.Array, error) {
	if s.parts == nil {
		return sp.load(ctx, loc, s.name, s.spec)
	}
	parts := make([]ifrt.Array, len(s.parts))
	for k, spec := range s.parts {
		p, err := sp.load(ctx, loc, partName(s.name, k), spec)
		if err != nil {
			for _, p := range parts[:k] {
				p.Delete()
			}
			return nil, err
		}
		parts[k] = p
	}
	return sp.w.cfg.Backend.AssembleArray(ctx, s.spec, parts, ifrt.DonateInput)
}

// load reads the single-device array of spec stored as name.
func (sp *suspender) load(ctx context.Context, loc *storage.Location, name string, spec ifrt.ArraySpec) (ifrt.Array, error) {
	n, err := sp.w.store.shardBytes(spec.DType, ifrt.FullDomain(spec.Shape))
	if err != nil {
		return nil, err
	}
	stored, err := zarr.ReadMetadata(ctx, loc, name)
	if err != nil {
		return nil, err
	}
	if stored.DType != spec.DType || !stored.Shape.Equal(spec.Shape) {
		return nil, ifrt.Errorf(ifrt.DataLoss, "worker: %s/%s is stored as %v%v, not %v%v", loc, name, stored.DType, stored.Shape, spec.DType, spec.Shape)
	}
	data := make([]byte, n)
	if err := zarr.ReadRegion(ctx, loc, name, stored, ifrt.FullDomain(spec.Shape), data); err != nil {
		return nil, err
	}
	return sp.w.cfg.Backend.MakeArrayFromHostBuffer(ctx, data, spec, nil)
}

// Terminate is what the worker does on SIGTERM. With preempted (the host is
// going away and a replacement will come: see PreemptionNoticed) it first
// suspends its slice, to resume on its own once every host is live again,
// so that the clients' arrays outlive this process; then, or at once
// without preempted, it shuts down as Shutdown does. A suspension that fails
// (no scratch location, say) is logged and the worker shuts down anyway: its
// arrays are then lost, as without a notice. ctx bounds both steps.
func (s *Server) Terminate(ctx context.Context, preempted bool) error {
	s.mu.Lock()
	client, reg := s.rmClient, s.reg
	s.mu.Unlock()
	if preempted && client != nil && reg != nil {
		slice := reg.Assignment().Slice
		s.log.Info("preempted; suspending the slice before leaving", "slice", slice)
		if _, err := client.SuspendSlice(ctx, slice, rm.SuspendOptions{Reason: "preemption", AutoResume: true}); err != nil {
			s.log.Warn("the slice could not be suspended; its arrays on this worker are lost", "slice", slice, "error", err)
		}
	}
	return s.Shutdown(ctx)
}

// PreemptionNoticed reports whether the host has been told it is being
// preempted: the file at path exists (an empty path: never). Whatever learns
// of the preemption writes it before SIGTERM comes: a Kubernetes preStop
// hook, or a watcher of GCE's "instance/preempted" or "maintenance-event"
// metadata. examples/server takes the path as --preemption_notice_file.
func PreemptionNoticed(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// assignment is the worker's registration with the RM.
func (s *Server) assignment() rm.Assignment {
	s.mu.Lock()
	reg := s.reg
	s.mu.Unlock()
	if reg == nil {
		return rm.Assignment{Slice: s.cfg.Slice, Host: s.cfg.Host}
	}
	return reg.Assignment()
}
