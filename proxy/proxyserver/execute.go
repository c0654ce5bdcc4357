package proxyserver

import (
	"context"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

func (s *session) execute(o *op, r *proxypb.LoadedExecutableExecuteRequest) (*proxypb.IfrtResponse, runFunc, error) {
	clientHandles := len(r.GetResultArrayHandle()) > 0
	if clientHandles {
		if _, err := s.reserveArrays(o, r.GetResultArrayHandle(), -1); err != nil {
			return nil, nil, err
		}
	}
	opts, err := wire.ExecuteOptionsFromProto(r.GetExecuteOptions())
	if err != nil {
		return nil, nil, err
	}
	var statusHandle uint64
	var resolveStatus func(error)
	if opts.FillStatus {
		var f *ifrt.Future
		f, resolveStatus = ifrt.NewFuture()
		if statusHandle, err = s.registerFuture(r.GetResultStatusHandle(), f); err != nil {
			return nil, nil, err
		}
	}
	fail := func(err error) error {
		if resolveStatus != nil {
			resolveStatus(err)
		}
		return err
	}
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), false)
	if err != nil {
		return nil, nil, fail(err)
	}
	args, err := s.useArrays(o, r.GetArgsHandles(), mayDonate(ent, opts))
	if err != nil {
		return nil, nil, fail(err)
	}
	deviceIDs := r.GetDeviceIds()
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := o.awaitOrder(ctx); err != nil {
			return nil, fail(err)
		}
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, fail(err)
		}
		if len(deviceIDs) > 0 && !slices.Equal(deviceIDs, wire.DeviceIDs(e.devices)) {
			return nil, fail(ifrt.Errorf(ifrt.Unimplemented, "executing on devices %v other than the executable's %v is not supported", deviceIDs, e.devices))
		}
		var outs []ifrt.Array
		var status *ifrt.Future
		in, err := awaitArrays(ctx, o, args)
		if err == nil {
			outs, status, err = s.executeOnBackend(ctx, e, in, opts)
		}
		if err != nil {
			// A failed argument, or lost hardware, fails the results rather than the
			// dispatch, as an IFRT runtime does: JAX raises it when the results are
			// read, which is where pathwaysutils' elastic checks look for it.
			failed, ok := errorOutputs(e, err)
			if !ok || ctx.Err() != nil || (in != nil && ifrt.CodeOf(err) != ifrt.DataLoss) {
				return nil, fail(err)
			}
			outs, status = failed, ifrt.ReadyFuture(err)
		}
		resp := &proxypb.LoadedExecutableExecuteResponse{StatusHandle: statusHandle}
		if !clientHandles {
			hs, err := s.reserveArrays(o, nil, len(outs))
			if err != nil {
				return nil, fail(err)
			}
			for i, a := range outs {
				out := &proxypb.LoadedExecutableExecuteResponse_Output{ArrayHandle: hs[i]}
				if out.Dtype, err = wire.DTypeToProto(a.DType()); err == nil {
					out.Sharding, err = wire.ShardingToProto(a.Sharding())
				}
				if err != nil {
					for _, a := range outs {
						a.Delete()
					}
					return nil, fail(err)
				}
				out.Shape = wire.ShapeToProto(a.Shape())
				resp.Outputs = append(resp.Outputs, out)
			}
		}
		if err := s.produced(o, outs); err != nil {
			return nil, fail(err)
		}
		if resolveStatus != nil {
			resolveStatus(awaitFuture(ctx, status))
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableExecuteResponse{LoadedExecutableExecuteResponse: resp}}, nil
	}, nil
}

// errorOutputs returns arrays standing for e's outputs that failed with err, when
// e's outputs are known.
func errorOutputs(e *executable, err error) ([]ifrt.Array, bool) {
	if e.xla == nil || len(e.xla.Outputs()) == 0 {
		return nil, false
	}
	outs := make([]ifrt.Array, 0, len(e.xla.Outputs()))
	for _, info := range e.xla.Outputs() {
		if !info.DType.Valid() || info.Shape.Validate() != nil {
			return nil, false
		}
		var sharding ifrt.Sharding
		switch {
		case info.OpSharding != nil:
			hs, herr := ifrt.NewHloSharding(e.devices, info.MemoryKind, *info.OpSharding)
			if herr != nil {
				return nil, false
			}
			sharding = hs
		case len(e.devices) == 1:
			sharding = ifrt.NewSingleDeviceSharding(e.devices[0], info.MemoryKind)
		default:
			sharding = &ifrt.HloSharding{DeviceList: e.devices, Kind: info.MemoryKind, Spec: ifrt.Replicated()}
		}
		outs = append(outs, ifrt.NewErrorArray(ifrt.ArraySpec{DType: info.DType, Shape: info.Shape, Sharding: sharding, Layout: info.Layout}, err))
	}
	return outs, true
}

// mayDonate says which arguments an execution of ent may donate: the
// executable's donatable parameters not excluded by opts, or every argument
// not excluded when the backend does not say (bytecode it does not read).
// Plugin programs donate all their arguments or none.
func mayDonate(ent *entry[*executable], opts *ifrt.ExecuteOptions) func(int) bool {
	excluded := func(i int) bool { return slices.Contains(opts.NonDonatableInputs, i) }
	select {
	case <-ent.Done():
	default:
		return func(i int) bool { return !excluded(i) }
	}
	e, _ := ent.Await(context.Background())
	switch {
	case e == nil:
		return nil
	case e.plugin != nil:
		return consumeIf(e.plugin.DonatesArguments)
	case !ifrt.ParametersKnown(e.xla):
		return func(i int) bool { return !excluded(i) }
	}
	donated := backend.Donated(e.xla.DonatableParameters(), opts)
	return func(i int) bool { return slices.Contains(donated, i) }
}

func (s *session) fetchExecuteResult(r *proxypb.LoadedExecutableFetchExecuteResultRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onFuture(r.GetResultStatusHandle(), &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableFetchExecuteResultResponse{
		LoadedExecutableFetchExecuteResultResponse: &proxypb.LoadedExecutableFetchExecuteResultResponse{}}})
}
