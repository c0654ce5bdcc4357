package cluster

import (
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// shard is one device's part of a cluster array: a single-device array in the
// session of the link that owns the device, made under generation gen.
type shard struct {
	place  *placement
	gen    uint64
	array  ifrt.Array // on the worker's own device
	domain ifrt.IndexDomain
}

// check returns DataLoss when the shard's worker was lost since it was made,
// Unavailable while its slice is suspended.
func (s *shard) check() error {
	if err := s.place.link.c.suspend.refuse(s.place.link.c, s.place.link.key.slice); err != nil {
		return err
	}
	return s.place.link.current(s.gen)
}

// freeable reports whether the shard's worker still holds it to be freed:
// the worker it was made on is still there. A shard of a suspended slice
// is freed too: the worker's paused session takes deletes, and the resume
// skips the handles deleted meanwhile (else they came back and leaked).
func (s *shard) freeable() bool { return s.place.link.current(s.gen) == nil }

// array is a cluster array: one shard per device of its sharding, in order.
type array struct {
	ifrt.UnimplementedArray
	c *Client
	backend.Described
	// computed says every shard held its data when the array was made (a
	// gang launch's outputs, which its workers registered when done).
	computed bool

	mu      sync.RWMutex
	shards  []*shard
	deleted bool
	shared  *holders // nil, or the arrays that share these shards (see view.go)
}

var _ ifrt.Array = (*array)(nil)

func (a *array) As(any) bool { return false }

// live returns the shards, or ErrArrayDeleted, or DataLoss when a worker that held a
// shard was lost. The client's watch may lag behind the RM: a worker that
// left may have saved the shards when its slice was suspended, and the slice
// may be back already. So before it calls a shard lost, live asks the RM
// what became of the shard's slice, and looks again.
func (a *array) live() ([]*shard, error) {
	asked := map[int]uint64{}
	a.mu.RLock()
	for _, s := range a.shards {
		i := s.place.link.key.slice
		if _, ok := asked[i]; !ok {
			_, asked[i] = a.c.suspend.stateOf(i)
		}
	}
	a.mu.RUnlock()
	shards, err := a.liveAsHeard()
	if ifrt.CodeOf(err) != ifrt.DataLoss {
		return shards, err
	}
	for i, n := range asked {
		a.c.suspend.freshen(a.c, i, n)
	}
	return a.liveAsHeard()
}

// liveAsHeard is live as of what the client has heard of its slices.
func (a *array) liveAsHeard() ([]*shard, error) {
	if a.c.suspend.hasFrozen() {
		if err := a.c.restoreSuspended(a); err != nil {
			return nil, err
		}
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.deleted {
		return nil, ifrt.ErrArrayDeleted
	}
	for _, s := range a.shards {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	return a.shards, nil
}

func (a *array) IsDeleted() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.deleted
}

// Ready waits for every shard.
func (a *array) Ready() *ifrt.Future {
	shards, err := a.live()
	if err != nil || a.computed {
		return ifrt.ReadyFuture(err)
	}
	fs := make([]*ifrt.Future, len(shards))
	for i, s := range shards {
		fs[i] = s.array.Ready()
	}
	joined := ifrt.JoinFutures(fs...)
	select {
	case <-joined.Done():
		if joined.Await(context.Background()) == nil {
			return joined
		}
	default:
	}
	// A shard may fail because its worker went (the outputs of an execution
	// sent without waiting): that is DATA_LOSS, as when it went before.
	out, resolve := ifrt.NewFuture()
	go func() {
		var first error
		for i, f := range fs {
			if err := a.c.shardError(shards[i], f.Await(context.Background())); err != nil && first == nil {
				first = err
			}
		}
		resolve(first)
	}()
	return out
}

// Delete frees every shard on its worker, unless another array still shares
// them (view.go).
func (a *array) Delete() *ifrt.Future {
	shards := a.letGo()
	fs := make([]*ifrt.Future, 0, len(shards))
	for _, s := range shards {
		if s.freeable() {
			fs = append(fs, s.array.Delete())
		}
	}
	out, resolve := ifrt.NewFuture()
	go func() {
		// A shard whose worker went away meanwhile is freed with it.
		for _, f := range fs {
			if err := f.Await(context.Background()); err != nil && ifrt.CodeOf(err) != ifrt.Unavailable {
				resolve(err)
				return
			}
		}
		resolve(nil)
	}()
	return out
}

// release forgets the shards without freeing them: their ownership moved to another
// array (DonateInput).
func (a *array) release() {
	a.mu.Lock()
	a.shards, a.deleted = nil, true
	a.mu.Unlock()
}

// CopyToHostBuffer reads one shard of each distinct domain from its worker, in
// parallel, and assembles them here: the bytes must come to the caller anyway.
// A shard holding the whole array is read straight into dst.
func (a *array) CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error {
	if err := a.c.check().CopyToHost(a, dst, byteStrides); err != nil {
		return err
	}
	shards, err := a.live()
	if err != nil {
		return err
	}
	elem := a.ArraySpec.DType.HostByteSize()
	all := make([]ifrt.IndexDomain, len(shards))
	for i, s := range shards {
		all[i] = s.domain
	}
	var (
		unique  []*shard
		domains []ifrt.IndexDomain
	)
	for _, i := range backend.UniqueDomains(all) {
		unique = append(unique, shards[i])
		domains = append(domains, all[i])
	}
	if len(unique) == 1 && domains[0].Shape().Equal(a.ArraySpec.Shape) {
		// One shard holds it all: its worker's bytes go straight into dst.
		return a.c.shardError(unique[0], unique[0].array.CopyToHostBuffer(ctx, dst, byteStrides))
	}
	parts := make([][]byte, len(unique))
	err = parallel(len(unique), func(i int) error {
		s := unique[i]
		parts[i] = make([]byte, s.domain.Shape().NumElements()*int64(elem))
		return a.c.shardError(s, s.array.CopyToHostBuffer(ctx, parts[i], nil))
	})
	if err != nil {
		return err
	}
	full := ifrt.AssembleDense(elem, a.ArraySpec.Shape, domains, parts)
	ifrt.CopyDenseToStrided(dst, full, a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides)
	return nil
}

// shardError turns the failure of an operation on a shard into DataLoss when the
// shard's worker has gone, and into Unavailable when it left because its slice
// was suspended (the watch may not have told yet): the shard comes back. An
// UNAVAILABLE failure may be the worker going (an execution sent without
// waiting fails its outputs so): linkError waits to learn whether it went.
func (c *Client) shardError(s *shard, err error) error {
	if err == nil {
		return nil
	}
	lost := s.check()
	if lost == nil {
		if lost = c.linkError(s.place.link, s.gen, err); ifrt.CodeOf(lost) != ifrt.DataLoss {
			return lost
		}
	}
	lost = c.suspendedError(lost, []*link{s.place.link})
	if ifrt.CodeOf(lost) == ifrt.DataLoss && c.suspend.restorable(s) != nil {
		return ifrt.Errorf(ifrt.Unavailable, "cluster: slice %d was suspended and resumed while the operation ran; its arrays are back, try again (%v)", s.place.link.key.slice, lost)
	}
	return lost
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// check is the client's side of ifrt/backend's checks.
func (c *Client) check() backend.Checker[*array] {
	return backend.Checker[*array]{
		Name: "cluster", Open: c.checkOpen,
		Owns: func(a *array) bool { return a.c == c },
		Spec: func(s ifrt.ArraySpec) error { _, _, err := c.checkSpec(s); return err },
	}
}
