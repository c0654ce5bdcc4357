package proxyserver

import (
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// executable is a compiled program: an XLA one from the backend, or a plugin
// program.
type executable struct {
	name    string
	devices ifrt.DeviceList
	xla     ifrt.LoadedExecutable
	plugin  *PluginExecutable
	once    sync.Once
}

func (e *executable) release() {
	e.once.Do(func() {
		if e.xla != nil {
			e.xla.Delete()
		}
		if e.plugin != nil && e.plugin.Close != nil {
			e.plugin.Close()
		}
	})
}

func (e *executable) isDeleted() bool {
	if e.xla != nil {
		return e.xla.IsDeleted()
	}
	return false
}

// execute runs the program; status resolves when the execution is done.
func (e *executable) execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) ([]ifrt.Array, *ifrt.Future, error) {
	if e.plugin != nil {
		out, err := e.plugin.Execute(ctx, args)
		if err != nil {
			return nil, nil, err
		}
		return out, nil, nil
	}
	res, err := e.xla.Execute(ctx, args, opts)
	if err != nil {
		return nil, nil, err
	}
	return res.Outputs, res.Status, nil
}

// useExecutable looks up the executable h and marks it used by o until o
// finishes (consume: o deletes it).
func (s *session) useExecutable(o *op, h uint64, consume bool) (*entry[*executable], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.exes[h]
	if !ok {
		return nil, ifrt.Errorf(ifrt.NotFound, "Unknown loaded executable handle: %d", h)
	}
	use(o, e, consume)
	return e, nil
}

// executableDelete releases the executable (the handle stays known, so
// IsDeleted answers) and answers with an already resolved future.
func (s *session) executableDelete(o *op, r *proxypb.LoadedExecutableDeleteRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), true)
	if err != nil {
		return nil, nil, err
	}
	return s.deletion(o, func(ctx context.Context) error {
		e, err := ent.wait(ctx)
		if err == nil {
			e.release()
		}
		return err
	}, func(fh uint64) *proxypb.IfrtResponse {
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableDeleteResponse{
			LoadedExecutableDeleteResponse: &proxypb.LoadedExecutableDeleteResponse{FutureHandle: fh}}}
	})
}

func (s *session) executableIsDeleted(o *op, r *proxypb.LoadedExecutableIsDeletedRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), false)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := o.awaitOrder(ctx); err != nil {
			return nil, err
		}
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableIsDeletedResponse{
			LoadedExecutableIsDeletedResponse: &proxypb.LoadedExecutableIsDeletedResponse{IsDeleted: e.isDeleted()}}}, nil
	}, nil
}

// executableDestruct forgets the handle now and releases the executable once
// the requests before it that use it are done.
func (s *session) executableDestruct(r *proxypb.LoadedExecutableDestructRequest) (*proxypb.IfrtResponse, runFunc, error) {
	h := r.GetLoadedExecutableHandle()
	s.mu.Lock()
	ent, ok := s.exes[h]
	var prior []chan struct{}
	if ok {
		delete(s.exes, h)
		prior = pendingUses(ent)
	}
	s.mu.Unlock()
	if !ok {
		return nil, nil, ifrt.Errorf(ifrt.NotFound, "Unknown loaded executable handle: %d", h)
	}
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		if waitAll(s.ctx, prior) != nil {
			return
		}
		if e, err := ent.wait(s.ctx); err == nil {
			e.release()
			s.mu.Lock()
			delete(s.liveExes, e)
			s.mu.Unlock()
		}
	}()
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableDestructResponse{
		LoadedExecutableDestructResponse: &proxypb.LoadedExecutableDestructResponse{}}}, nil, nil
}

// onExecutable plans a request that reads executable h: run gets it once it
// is compiled, and makes the response.
func (s *session) onExecutable(o *op, h uint64, run func(*executable) (*proxypb.IfrtResponse, error)) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, h, false)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, err
		}
		return run(e)
	}, nil
}
