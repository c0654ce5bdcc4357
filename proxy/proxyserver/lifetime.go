package proxyserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// deleteArrays deletes arrays once the requests before it that use them are
// done (and before any later request uses them), and answers with a future
// that resolves when the deletions have.
func (s *session) deleteArrays(o *op, r *proxypb.DeleteArrayRequest) (*proxypb.IfrtResponse, runFunc, error) {
	es, err := s.useArrays(o, r.GetArrayHandle(), consumeIf(true))
	if err != nil {
		return nil, nil, err
	}
	return s.deletion(o, func(ctx context.Context) error {
		var futures []*ifrt.Future
		for _, e := range es {
			a, err := e.wait(ctx)
			if err != nil {
				continue // an array that failed to be made holds nothing
			}
			futures = append(futures, a.Delete())
			s.forget(a)
		}
		return awaitFuture(ctx, ifrt.JoinFutures(futures...))
	}, func(fh uint64) *proxypb.IfrtResponse {
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DeleteArrayResponse{
			DeleteArrayResponse: &proxypb.DeleteArrayResponse{DeletionFutureHandle: fh}}}
	})
}

// deletion plans a request that answers with the handle of a future, which
// resolves with what del returns; del runs once the requests before o are done.
func (s *session) deletion(o *op, del func(ctx context.Context) error, resp func(fh uint64) *proxypb.IfrtResponse) (*proxypb.IfrtResponse, runFunc, error) {
	f, resolve := ifrt.NewFuture()
	fh, err := s.registerFuture(0, f)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := o.awaitOrder(ctx); err != nil {
			resolve(err)
			return nil, err
		}
		resolve(del(ctx))
		return resp(fh), nil
	}, nil
}

func (s *session) isArrayDeleted(o *op, r *proxypb.IsArrayDeletedRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onArrays(o, []uint64{r.GetArrayHandle()}, nil, func(ctx context.Context, in []ifrt.Array) (*proxypb.IfrtResponse, error) {
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_IsArrayDeletedResponse{
			IsArrayDeletedResponse: &proxypb.IsArrayDeletedResponse{Deleted: in[0].IsDeleted()}}}, nil
	})
}

// destructArrays forgets the handles now and releases the arrays once the
// requests before it that use them are done. Unknown handles are NOT_FOUND;
// the known ones are released anyway.
func (s *session) destructArrays(r *proxypb.DestructArrayRequest) (*proxypb.IfrtResponse, runFunc, error) {
	s.mu.Lock()
	targets, unknown := s.forgetArraysLocked(r.GetArrayHandle())
	s.mu.Unlock()
	if len(targets) > 0 {
		s.work.Add(1)
		s.runner.run(func() {
			defer s.work.Done()
			s.dropWhenUnused(targets)
		})
	}
	if len(unknown) > 0 {
		return nil, nil, ifrt.Errorf(ifrt.NotFound, "Unknown array handles: %s", strings.Join(unknown, ", "))
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DestructArrayResponse{DestructArrayResponse: &proxypb.DestructArrayResponse{}}}, nil, nil
}

// destructTarget is an array a destruct forgot, and its uses it waits for.
type destructTarget struct {
	e     *entry[ifrt.Array]
	prior []chan struct{}
}

// forgetArraysLocked forgets handles and returns their arrays with their uses
// so far, and the handles it did not know. The caller holds s.mu.
func (s *session) forgetArraysLocked(handles []uint64) (targets []destructTarget, unknown []string) {
	for _, h := range handles {
		e, ok := s.arrays[h]
		if !ok {
			unknown = append(unknown, fmt.Sprint(h))
			continue
		}
		delete(s.arrays, h)
		targets = append(targets, destructTarget{e, pendingUses(e)})
	}
	return targets, unknown
}

// dropWhenUnused releases each target's array once its prior uses are done,
// unless the session ends first (its teardown frees them).
func (s *session) dropWhenUnused(targets []destructTarget) {
	for _, t := range targets {
		if waitAll(s.ctx, t.prior) != nil {
			return
		}
		if a, err := t.e.wait(s.ctx); err == nil {
			s.drop(a)
		}
	}
}
