package rm

import (
	"context"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// Suspend and resume (docs/cluster.md, "Suspend and resume"): the RM keeps
// each slice's SliceState and moves it on as the slice's workers report;
// the workers do the saving and restoring, following the state through their
// watch of the RM.

// SliceState says where a slice's arrays are.
type SliceState int

const (
	// SliceActive: the arrays are on the slice's devices. The zero value.
	SliceActive SliceState = iota
	// SliceSuspending: the workers finish the executions in flight, refuse
	// new work with UNAVAILABLE and save their arrays.
	SliceSuspending
	// SliceSuspended: the arrays are saved and the devices free; work on the
	// slice is refused with UNAVAILABLE.
	SliceSuspended
	// SliceResuming: waiting until every host has a live worker that took its
	// arrays back.
	SliceResuming
)

var sliceStateNames = [...]string{SliceActive: "active", SliceSuspending: "suspending",
	SliceSuspended: "suspended", SliceResuming: "resuming"}

func (s SliceState) String() string { return enumName(sliceStateNames[:], s, "SliceState") }

// SuspendOptions are the options of Client.SuspendSlice.
type SuspendOptions struct {
	// Reason is recorded in Slice.SuspendReason, e.g. "preemption".
	Reason string
	// AutoResume resumes the slice on its own once every host is live
	// again: a preempted worker suspends its slice so, and the slice comes
	// back when its replacement registers.
	AutoResume bool
}

// suspension is one slice's suspend state.
type suspension struct {
	state      SliceState
	gen        uint64
	location   string
	reason     string
	autoResume bool
	unsaved    map[int]bool      // hosts whose arrays the suspension lost
	savers     []hostIncarnation // the workers asked to save
	reported   map[int]bool      // hosts done with the current transition
	// failure is why the suspension gen failed (the slice went back through
	// RESUMING to ACTIVE); SuspendSlice returns it.
	failure error
	// changed is closed (and replaced) at every change; nil until the first
	// waiter.
	changed chan struct{}
}

// sliceLocked is slice i's view.
func (s *Server) sliceLocked(i int) Slice {
	sp := &s.suspended[i]
	v := Slice{
		Index: i, Up: s.up[i], LiveHosts: s.liveHosts[i],
		State: sp.state, SuspendGeneration: sp.gen, SuspendLocation: sp.location,
		SuspendReason: sp.reason, AutoResume: sp.autoResume,
	}
	for h := range s.slots[i] {
		if sp.unsaved[h] {
			v.UnsavedHosts = append(v.UnsavedHosts, h)
		}
	}
	return v
}

// setStateLocked moves slice i to state, tells the watchers and wakes the
// waiters.
func (s *Server) setStateLocked(i int, state SliceState) {
	sp := &s.suspended[i]
	sp.state = state
	sp.reported = map[int]bool{}
	s.epoch++
	view := s.sliceLocked(i)
	s.emitLocked(Event{Type: EventSliceState, Epoch: s.epoch, Slice: i, SliceInfo: &view})
	s.log.Info("slice state", "slice", i, "state", state, "generation", sp.gen, "unsaved_hosts", view.UnsavedHosts)
	if sp.changed != nil {
		close(sp.changed)
		sp.changed = nil
	}
}

// waitLocked returns a channel closed at slice i's next change.
func (s *Server) waitLocked(i int) <-chan struct{} {
	sp := &s.suspended[i]
	if sp.changed == nil {
		sp.changed = make(chan struct{})
	}
	return sp.changed
}

// suspensionLocked returns slice i's suspension state for a change of it;
// it refuses an unknown slice, and any change while the RM shuts down.
func (s *Server) suspensionLocked(i int) (*suspension, error) {
	if i < 0 || i >= len(s.slots) {
		return nil, ifrt.Errorf(ifrt.OutOfRange, "rm: slice index %d is out of range: the instance count is %d", i, len(s.slots))
	}
	if s.stopping {
		return nil, errShuttingDown()
	}
	return &s.suspended[i], nil
}

// SuspendSlice suspends slice i: its workers finish the executions in flight,
// save every array they hold to the scratch location and free their devices.
// It returns the slice once it is SUSPENDED, or the error the suspension ended
// with (see rmpb.SliceControl for the codes); when ctx ends first the
// suspension goes on.
func (s *Server) SuspendSlice(ctx context.Context, i int, opts SuspendOptions) (Slice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, now, err := s.beginLocked(i, SliceSuspended, SliceResuming, "suspend", SliceActive, func(sp *suspension) error {
		if s.liveHosts[i] != len(s.slots[i]) {
			return ifrt.Errorf(ifrt.FailedPrecondition, "rm: slice %d has %d of %d hosts live; only a slice that is up can be suspended", i, s.liveHosts[i], len(s.slots[i]))
		}
		sp.gen++
		sp.location, sp.reason, sp.autoResume = "", opts.Reason, opts.AutoResume
		sp.unsaved, sp.failure, sp.savers = map[int]bool{}, nil, nil
		for _, sl := range s.slots[i] {
			sp.savers = append(sp.savers, hostIncarnation{sl.host, sl.info.Incarnation})
		}
		s.setStateLocked(i, SliceSuspending)
		return nil
	})
	if sp == nil {
		return now, err
	}
	gen := sp.gen
	for {
		switch {
		case sp.gen != gen:
			return s.sliceLocked(i), nil // suspended and resumed again since
		case sp.state == SliceSuspended:
			v := s.sliceLocked(i)
			if len(v.UnsavedHosts) > 0 {
				return v, ifrt.Errorf(ifrt.DataLoss, "rm: slice %d is suspended, but the workers of hosts %v were lost before they saved their arrays: those are gone", i, v.UnsavedHosts)
			}
			return v, nil
		case sp.failure != nil && sp.state == SliceActive:
			return s.sliceLocked(i), sp.failure
		}
		if err := s.waitUnlocked(ctx, i); err != nil {
			return Slice{}, err
		}
	}
}

// ResumeSlice resumes the suspended slice i and returns it once every host
// has a live worker that took its arrays back, or ctx's error (the
// resumption goes on, completing when the missing workers register).
func (s *Server) ResumeSlice(ctx context.Context, i int) (Slice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, now, err := s.beginLocked(i, SliceActive, SliceSuspending, "resume", SliceSuspended, func(*suspension) error {
		s.setStateLocked(i, SliceResuming)
		return nil
	})
	if sp == nil {
		return now, err
	}
	gen := sp.gen
	for sp.gen == gen && sp.state != SliceActive {
		if err := s.waitUnlocked(ctx, i); err != nil {
			return Slice{}, err
		}
	}
	return s.sliceLocked(i), nil
}

// beginLocked starts a suspension or resumption of slice i, which ends in
// state target, calling start when the slice is in state from. It returns
// the slice's suspension to follow, or no suspension and the slice when it
// is in target already, or an error: start's, or FAILED_PRECONDITION while
// the slice is in state away (moving the other way, towards from).
func (s *Server) beginLocked(i int, target, away SliceState, verb string, from SliceState, start func(*suspension) error) (*suspension, Slice, error) {
	sp, err := s.suspensionLocked(i)
	if err != nil {
		return nil, Slice{}, err
	}
	switch sp.state {
	case target:
		return nil, s.sliceLocked(i), nil
	case away:
		return nil, Slice{}, ifrt.Errorf(ifrt.FailedPrecondition, "rm: slice %d is %v; %s it once it is %v", i, away, verb, from)
	case from:
		if err := start(sp); err != nil {
			return nil, Slice{}, err
		}
	}
	return sp, Slice{}, nil
}

// waitUnlocked waits, without s.mu, for slice i's next change, ctx's end or
// the RM's shutdown. Callers hold s.mu; it holds it again on return.
func (s *Server) waitUnlocked(ctx context.Context, i int) error {
	ch := s.waitLocked(i)
	s.mu.Unlock()
	defer s.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ifrt.Errorf(ifrt.CodeOf(ctx.Err()), "rm: waiting for slice %d: %w", i, ctx.Err())
	case <-s.quit:
		return errShuttingDown()
	}
}

// reportSliceState records that the worker of lease id did its part of
// suspension gen: saved (SliceSuspended) or restored (SliceActive), or
// failed with failure.
func (s *Server) reportSliceState(id uint64, gen uint64, state SliceState, location string, failure error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leases[id]
	if l == nil {
		return ifrt.Errorf(ifrt.NotFound, "rm: lease %#x is not held; register again", id)
	}
	i, host := l.slot.slice, l.slot.host
	sp := &s.suspended[i]
	want := SliceResuming
	if state == SliceSuspended {
		want = SliceSuspending
	}
	if gen != sp.gen || sp.state != want {
		return ifrt.Errorf(ifrt.FailedPrecondition, "rm: slice %d is %v at generation %d; a report of %v for generation %d is late", i, sp.state, sp.gen, state, gen)
	}
	if failure != nil && state == SliceSuspended {
		// Hosts that saved already freed their devices: they take their
		// arrays back, and the slice is ACTIVE once all have.
		s.log.Warn("slice suspension failed", "slice", i, "host", host, "generation", gen, "error", failure)
		sp.failure = failure
		s.setStateLocked(i, SliceResuming)
		return nil
	}
	if failure != nil {
		s.log.Warn("a worker could not restore its arrays", "slice", i, "host", host, "generation", gen, "error", failure)
	}
	if state == SliceSuspended && sp.location == "" {
		sp.location = location
	}
	sp.reported[host] = true
	s.advanceLocked(i)
	return nil
}

// advanceLocked completes slice i's transition once every host has reported
// (or, suspending, was lost).
func (s *Server) advanceLocked(i int) {
	sp := &s.suspended[i]
	for h := range s.slots[i] {
		if !sp.reported[h] && !(sp.state == SliceSuspending && sp.unsaved[h]) {
			return
		}
	}
	switch sp.state {
	case SliceSuspending:
		s.setStateLocked(i, SliceSuspended)
		s.autoResumeLocked(i)
	case SliceResuming:
		s.setStateLocked(i, SliceActive)
	}
}

// suspendHostLostLocked: a worker lost while its slice suspends did not save
// its arrays.
func (s *Server) suspendHostLostLocked(sl *slot) {
	sp := &s.suspended[sl.slice]
	if sp.state != SliceSuspending || sp.reported[sl.host] {
		return
	}
	sp.unsaved[sl.host] = true
	s.advanceLocked(sl.slice)
}

// autoResumeLocked resumes slice i when it was suspended to resume on its
// own and its hosts are all live again after one of them was replaced.
func (s *Server) autoResumeLocked(i int) {
	sp := &s.suspended[i]
	if sp.state != SliceSuspended || !sp.autoResume || !s.up[i] {
		return
	}
	for _, sl := range s.slots[i] {
		if !sp.savedBy(sl) {
			s.setStateLocked(i, SliceResuming)
			return
		}
	}
}

// savedBy reports whether the worker now holding sl is the one that was
// asked to save (an auto-resuming slice waits for its replacement).
func (sp *suspension) savedBy(sl *slot) bool {
	return slices.Contains(sp.savers, hostIncarnation{sl.host, sl.info.Incarnation})
}

type hostIncarnation struct {
	host        int
	incarnation string
}

type sliceService struct {
	rmpb.UnimplementedSliceControlServer
	s *Server
}

func (svc *sliceService) SuspendSlice(ctx context.Context, req *rmpb.SuspendSliceRequest) (*rmpb.SuspendSliceResponse, error) {
	v, err := svc.s.SuspendSlice(ctx, int(req.GetSliceIndex()), SuspendOptions{Reason: req.GetReason(), AutoResume: req.GetAutoResume()})
	if err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.SuspendSliceResponse{Slice: sliceToPB(&v)}, nil
}

func (svc *sliceService) ResumeSlice(ctx context.Context, req *rmpb.ResumeSliceRequest) (*rmpb.ResumeSliceResponse, error) {
	v, err := svc.s.ResumeSlice(ctx, int(req.GetSliceIndex()))
	if err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.ResumeSliceResponse{Slice: sliceToPB(&v)}, nil
}

func (svc *sliceService) ReportSliceState(_ context.Context, req *rmpb.ReportSliceStateRequest) (*rmpb.ReportSliceStateResponse, error) {
	var failure error
	if c := req.GetErrorCode(); c != 0 {
		failure = &ifrt.Error{Code: ifrt.Code(c), Msg: req.GetErrorMessage()}
	}
	state := sliceStateFromPB(req.GetState())
	if state != SliceSuspended && state != SliceActive {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "rm: a worker reports SUSPENDED or ACTIVE, not %v", req.GetState()))
	}
	if len(req.GetLocation()) > maxAddressLen {
		return nil, rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "rm: a suspend location of %d bytes; at most %d", len(req.GetLocation()), maxAddressLen))
	}
	if err := svc.s.reportSliceState(req.GetLeaseId(), req.GetGeneration(), state, req.GetLocation(), failure); err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.ReportSliceStateResponse{}, nil
}

var sliceStateToPB = map[SliceState]rmpb.SliceState{
	SliceActive:     rmpb.SliceState_SLICE_ACTIVE,
	SliceSuspending: rmpb.SliceState_SLICE_SUSPENDING,
	SliceSuspended:  rmpb.SliceState_SLICE_SUSPENDED,
	SliceResuming:   rmpb.SliceState_SLICE_RESUMING,
}

func sliceStateFromPB(p rmpb.SliceState) SliceState {
	for s, ps := range sliceStateToPB {
		if ps == p {
			return s
		}
	}
	return SliceActive // UNSPECIFIED: an RM from before suspension
}

func sliceToPB(v *Slice) *rmpb.Slice {
	if v == nil {
		return nil
	}
	return &rmpb.Slice{
		SliceIndex: int32(v.Index), Up: v.Up, LiveHosts: int32(v.LiveHosts),
		State: sliceStateToPB[v.State], SuspendGeneration: v.SuspendGeneration, SuspendLocation: v.SuspendLocation,
		UnsavedHosts: convertInts[int32](v.UnsavedHosts), SuspendReason: v.SuspendReason, AutoResume: v.AutoResume,
	}
}

func sliceFromPB(p *rmpb.Slice) *Slice {
	if p == nil {
		return nil
	}
	return &Slice{
		Index: int(p.GetSliceIndex()), Up: p.GetUp(), LiveHosts: int(p.GetLiveHosts()),
		State: sliceStateFromPB(p.GetState()), SuspendGeneration: p.GetSuspendGeneration(), SuspendLocation: p.GetSuspendLocation(),
		UnsavedHosts: convertInts[int](p.GetUnsavedHosts()), SuspendReason: p.GetSuspendReason(), AutoResume: p.GetAutoResume(),
	}
}
