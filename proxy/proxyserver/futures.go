package proxyserver

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

func (s *session) checkFuture(r *proxypb.CheckFutureRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onFuture(r.GetFutureHandle(), &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckFutureResponse{CheckFutureResponse: &proxypb.CheckFutureResponse{}}})
}

// onFuture plans a request that takes the future under h and answers resp once
// it has resolved, or fails with its error.
func (s *session) onFuture(h uint64, resp *proxypb.IfrtResponse) (*proxypb.IfrtResponse, runFunc, error) {
	f, err := s.takeFuture(h)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := awaitFuture(ctx, f); err != nil {
			return nil, err
		}
		return resp, nil
	}, nil
}

func awaitFuture(ctx context.Context, f *ifrt.Future) error {
	if err := f.Await(ctx); err != nil {
		if ctx.Err() != nil {
			return ifrt.Errorf(ifrt.Canceled, "the session has ended")
		}
		return err
	}
	return nil
}

func (s *session) checkValueReady(o *op, r *proxypb.CheckValueReadyRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onArrays(o, r.GetValueHandles(), nil, func(ctx context.Context, arrays []ifrt.Array) (*proxypb.IfrtResponse, error) {
		for _, a := range arrays {
			if err := awaitFuture(ctx, a.Ready()); err != nil {
				return nil, err
			}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckValueReadyResponse{CheckValueReadyResponse: &proxypb.CheckValueReadyResponse{}}}, nil
	})
}
