package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/shardio"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/rm"
)

// Suspend and resume, the client's side (docs/cluster.md). While a slice is
// not ACTIVE, every operation on its devices or its arrays fails with
// UNAVAILABLE (nothing is lost; ResumeSlice brings the arrays back). After it
// resumes, arrays whose worker stayed work as they did (it read them back
// under the same handles); arrays whose worker was replaced are read back by
// the replacement, from the suspend location, the first time they are used.
// Arrays of a host the suspension could not save are DATA_LOSS.

// SuspendSlice suspends slice i: its workers finish the executions in flight,
// save every array they hold to the cluster's scratch location and free
// their devices. It returns once the slice is suspended. Errors as
// rm.Server.SuspendSlice: FAILED_PRECONDITION without a scratch location,
// DATA_LOSS when a worker was lost before it had saved.
func (c *Client) SuspendSlice(ctx context.Context, i int) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	// Record the sessions now, before the workers may leave; the watch
	// corrects the generation if another suspension came first.
	c.suspend.mu.Lock()
	next, at := c.suspend.gen[i]+1, viewAt{epoch: c.suspend.epoch[i]}
	c.suspend.mu.Unlock()
	c.suspend.note(c, rm.Slice{Index: i, State: rm.SliceSuspending, SuspendGeneration: next}, at)
	_, err := c.rm.SuspendSlice(ctx, i, rm.SuspendOptions{Reason: "suspended by a client"})
	if rerr := c.refreshSlice(ctx, i); err == nil {
		err = rerr
	}
	return err
}

// ResumeSlice resumes the suspended slice i and returns once every host of
// it has a live worker that took its arrays back, and the client is
// connected to each. When a worker was replaced meanwhile, the client's
// arrays on it are read back when they are next used.
func (c *Client) ResumeSlice(ctx context.Context, i int) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	if _, err := c.rm.ResumeSlice(ctx, i); err != nil {
		return err
	}
	return c.refreshSlice(ctx, i)
}

// refreshSlice asks the RM for slice i now, rather than waiting for the
// watch to tell: it connects to the slice's workers (replacements) and
// records the slice's state.
func (c *Client) refreshSlice(ctx context.Context, i int) error {
	view, err := c.rm.Cluster(ctx)
	if err != nil {
		return err
	}
	if i < 0 || i >= len(view.Slices) {
		return ifrt.Errorf(ifrt.OutOfRange, "cluster: no slice %d", i)
	}
	c.suspend.note(c, view.Slices[i], viewAt{view.Epoch, view.RMIncarnation})
	if view.Slices[i].State != rm.SliceActive {
		return nil // its workers may be leaving: nothing to dial
	}
	var workers []rm.Worker
	for _, w := range view.Workers {
		if w.Slice == i {
			workers = append(workers, w)
		}
	}
	return c.apply(ctx, &rm.Cluster{Workers: workers, Epoch: view.Epoch, RMIncarnation: view.RMIncarnation}, true)
}

// SliceState returns slice i's state as the client last heard it.
func (c *Client) SliceState(i int) rm.SliceState {
	c.suspend.mu.Lock()
	defer c.suspend.mu.Unlock()
	return c.suspend.state[i]
}

// suspendState is what the client knows of its slices' suspensions.
type suspendState struct {
	refreshMu sync.Mutex // one question to the RM at a time (freshen)

	mu            sync.Mutex
	refreshes     map[int]uint64 // questions to the RM begun, by slice
	rmIncarnation string
	epoch         map[int]uint64 // of the latest news of each slice
	recorded      map[int]uint64 // the latest suspension whose sessions are in frozen
	state         map[int]rm.SliceState
	gen           map[int]uint64
	frozen        map[hostKey]*frozenHost
}

// frozenHost is a host's session as it was when its slice was suspended:
// shards made under gen in session can be read back from location.
type frozenHost struct {
	suspendGen uint64
	gen        uint64
	session    uint64
	location   string // set once the slice is suspended; "" while lost
}

// observe applies a watch event.
func (st *suspendState) observe(c *Client, ev rm.Event) {
	switch ev.Type {
	case rm.EventSnapshot:
		for _, v := range ev.Cluster.Slices {
			st.note(c, v, viewAt{ev.Epoch, ev.Cluster.RMIncarnation})
		}
	case rm.EventSliceState:
		if ev.SliceInfo != nil {
			st.note(c, *ev.SliceInfo, viewAt{epoch: ev.Epoch})
		}
	}
}

// viewAt orders what the client hears of a slice: by the RM's epoch, within
// one run of the RM (rmIncarnation; empty: the run last heard from). The
// watch and the client's own questions to the RM may tell out of order.
type viewAt struct {
	epoch         uint64
	rmIncarnation string
}

// note records slice v's state as of at, unless the client heard of a later
// one; on the way to SUSPENDED it records each host's session, whose arrays
// the workers save.
func (st *suspendState) note(c *Client, v rm.Slice, at viewAt) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.state == nil {
		st.state, st.gen, st.epoch, st.recorded, st.frozen = map[int]rm.SliceState{}, map[int]uint64{}, map[int]uint64{}, map[int]uint64{}, map[hostKey]*frozenHost{}
	}
	if at.rmIncarnation != "" && at.rmIncarnation != st.rmIncarnation {
		// A new run of the RM numbers suspensions from 1 again.
		st.rmIncarnation, st.epoch, st.gen, st.recorded = at.rmIncarnation, map[int]uint64{}, map[int]uint64{}, map[int]uint64{}
	}
	if at.epoch < st.epoch[v.Index] {
		return // older than what we know
	}
	st.epoch[v.Index], st.gen[v.Index], st.state[v.Index] = at.epoch, v.SuspendGeneration, v.State
	g := v.SuspendGeneration
	if g == 0 {
		return
	}
	if g > st.recorded[v.Index] {
		// News of suspension g: record the session of each host whose
		// arrays the workers saved. While the slice suspends that is the
		// link's current one; when the client hears of g only later (its
		// watch lagged), the worker may have left already: then the session
		// the link had last. (Arrays of any other session are not under g's
		// location, so a wrong guess reads nothing and is DATA_LOSS.)
		st.recorded[v.Index] = g
		suspending := v.State == rm.SliceSuspending || v.State == rm.SliceSuspended
		for key, l := range c.links {
			if key.slice != v.Index {
				continue
			}
			l.mu.Lock()
			gen, session := l.lastGen, l.lastSession
			if l.client != nil && (suspending || l.lastSession == 0) {
				gen, session = l.gen, l.client.SessionID()
			}
			l.mu.Unlock()
			delete(st.frozen, key)
			if session != 0 {
				st.frozen[key] = &frozenHost{suspendGen: g, gen: gen, session: session}
			}
		}
	}
	for key, f := range st.frozen {
		if key.slice == v.Index && f.suspendGen == g && v.SuspendLocation != "" && v.State != rm.SliceSuspending {
			f.location = fmt.Sprintf("%s/host-%d", v.SuspendLocation, key.host)
		}
	}
	for _, h := range v.UnsavedHosts {
		delete(st.frozen, hostKey{v.Index, h})
	}
}

// refuse returns UNAVAILABLE while slice i is not ACTIVE. The watch may lag
// behind the RM (a slice resumed by someone else a moment ago), so before it
// refuses it asks the RM.
func (st *suspendState) refuse(c *Client, i int) error {
	state, asked := st.stateOf(i)
	if state == rm.SliceActive {
		return nil
	}
	st.freshen(c, i, asked)
	if state, _ = st.stateOf(i); state != rm.SliceActive {
		return ifrt.Errorf(ifrt.Unavailable, "cluster: slice %d is %v; its devices and arrays work again once it is resumed", i, state)
	}
	return nil
}

// freshen asks the RM for slice i, once for all the callers that arrived
// (stateOf) before the question began.
func (st *suspendState) freshen(c *Client, i int, asked uint64) {
	st.refreshMu.Lock()
	defer st.refreshMu.Unlock()
	st.mu.Lock()
	answered := st.refreshes[i] > asked
	if !answered {
		if st.refreshes == nil {
			st.refreshes = map[int]uint64{}
		}
		st.refreshes[i]++
	}
	st.mu.Unlock()
	if answered {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	if err := c.refreshSlice(ctx, i); err != nil {
		c.log.Debug("asking the RM for a slice's state", "slice", i, "error", err)
	}
}

// refreshTimeout bounds a question to the RM about a slice.
const refreshTimeout = 5 * time.Second

// stateOf returns slice i's state and how many questions about it to the RM
// have begun.
func (st *suspendState) stateOf(i int) (rm.SliceState, uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.state[i], st.refreshes[i]
}

// restorable returns the frozen session a shard's data can be read back
// from: its slice is ACTIVE again and its worker was replaced since.
func (st *suspendState) restorable(s *shard) *frozenHost {
	st.mu.Lock()
	defer st.mu.Unlock()
	l := s.place.link
	f := st.frozen[l.key]
	if f == nil || f.location == "" || f.gen != s.gen || st.state[l.key.slice] != rm.SliceActive {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil || l.gen == s.gen {
		return nil
	}
	return f
}

// restoreSuspended has the replacement workers read back the shards of a
// that their predecessors saved when their slice was suspended, and gives
// a the new shards.
func (c *Client) restoreSuspended(a *array) error {
	a.mu.RLock()
	needed := false
	for _, s := range a.shards {
		needed = needed || c.suspend.restorable(s) != nil
	}
	a.mu.RUnlock()
	if !needed {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.deleted {
		return nil
	}
	byLink := map[*link]*workerIO{}
	var order []*workerIO
	var todo []int
	for k, s := range a.shards {
		f := c.suspend.restorable(s)
		if f == nil {
			continue
		}
		var h proxy.ArrayHandle
		if !s.array.As(&h) {
			continue
		}
		w, err := c.workerIO(byLink, &order, s.place.link, f.location, false)
		if err != nil {
			return err
		}
		dev, err := w.localDeviceID(s.place)
		if err != nil {
			return err
		}
		shape := s.domain.Shape()
		w.req.Arrays = append(w.req.Arrays, shardio.Array{
			Name: shardio.SuspendedName(f.session, uint64(h)), DType: a.ArraySpec.DType.String(), Shape: shape,
			Shards: []shardio.Shard{{Domain: shardio.FromDomain(ifrt.FullDomain(shape)), Device: dev}},
		})
		w.slots = append(w.slots, [2]int{0, k})
		todo = append(todo, k)
	}
	if len(todo) == 0 {
		return nil
	}
	shards := append([]*shard(nil), a.shards...)
	var mu sync.Mutex
	err := c.runIO(context.Background(), order, func(w *workerIO, outs []ifrt.Array) {
		mu.Lock()
		defer mu.Unlock()
		for j, slot := range w.slots {
			old := shards[slot[1]]
			shards[slot[1]] = &shard{place: old.place, gen: w.gen, array: outs[j], domain: old.domain}
		}
	})
	if err != nil {
		if ifrt.CodeOf(err) == ifrt.NotFound {
			return ifrt.Errorf(ifrt.DataLoss, "cluster: an array of a suspended slice was not saved: %w", err)
		}
		return err
	}
	a.shards = shards // a new slice: callers of live hold the old one
	c.log.Debug("read back an array of a resumed slice", "shards", len(todo))
	return nil
}

// hasFrozen reports whether any host has a suspended session, so that live
// costs nothing otherwise.
func (st *suspendState) hasFrozen() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.frozen) > 0
}

// suspendedError returns UNAVAILABLE in place of err, the DATA_LOSS or
// UNAVAILABLE of an operation over links, when one of their slices is
// suspending, suspended or resuming: its workers refused the work or left
// after saving, and the arrays come back once it is resumed. The watch may
// lag, so it asks the RM first. Any other err comes back as it is.
func (c *Client) suspendedError(err error, links []*link) error {
	if code := ifrt.CodeOf(err); err == nil || (code != ifrt.DataLoss && code != ifrt.Unavailable) {
		return err
	}
	asked := map[int]bool{}
	for _, l := range links {
		i := l.key.slice
		if asked[i] {
			continue
		}
		asked[i] = true
		_, n := c.suspend.stateOf(i)
		c.suspend.freshen(c, i, n)
		if state, _ := c.suspend.stateOf(i); state != rm.SliceActive {
			return ifrt.Errorf(ifrt.Unavailable, "cluster: slice %d is %v; its devices and arrays work again once it is resumed (%v)", i, state, err)
		}
	}
	return err
}

// freshenIfDown asks the RM about l's slice when l is down: the watch may
// have told that the slice is ACTIVE again before its dial of the worker that
// replaced the one that left has finished (it dials in the background).
func (c *Client) freshenIfDown(l *link) {
	if !l.down() {
		return
	}
	_, n := c.suspend.stateOf(l.key.slice)
	c.suspend.freshen(c, l.key.slice, n)
}
