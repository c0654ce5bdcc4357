package proxy

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// ExecutableHandle is the number that names a loaded executable in the session
// with the server. LoadedExecutable.As sets an *ExecutableHandle.
type ExecutableHandle uint64

// Compile sends a CompileRequest, waits for the executable's ready future
// (CheckFuture) and fetches its metadata (LoadedExecutableMetadataRequest), the
// sequence jaxlib follows.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if opts != nil && len(opts.Devices) > 0 {
		if err := c.checkDevices(opts.Devices); err != nil {
			return nil, err
		}
	}
	prog, copts, err := encodeProgram(program, opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.sess.callOrLate(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{
		CompileRequest: &proxypb.CompileRequest{Program: prog, CompileOptions: copts},
	}}, func(resp *proxypb.IfrtResponse) {
		// The caller gave up: free the executable it will never see.
		if h := resp.GetCompileResponse().GetLoadedExecutableHandle(); h != 0 {
			c.destructExecutable(destructArg{h, &executableState{}})
		}
	})
	if err != nil {
		return nil, err
	}
	cr, err := typed(resp.GetCompileResponse(), "CompileRequest")
	if err != nil {
		return nil, err
	}
	e := &executable{
		c:           c,
		handle:      cr.GetLoadedExecutableHandle(),
		name:        cr.GetName(),
		fingerprint: string(cr.GetFingerprintValue()),
		state:       &executableState{},
	}
	// From here on the server holds the executable: destruct it if the caller
	// never sees it, or once it becomes unreachable.
	runtime.AddCleanup(e, c.destructExecutable, destructArg{e.handle, e.state})
	ids := cr.GetDeviceIds()
	if len(ids) == 0 {
		ids = cr.GetAddressableDeviceIds()
	}
	if e.devices, err = wire.DeviceListFromIDs(ids, c.LookupDevice); err != nil {
		return nil, err
	}
	if cr.ReadyFutureHandle != nil {
		ready := c.sess.future(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{
			CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: cr.GetReadyFutureHandle()},
		}})
		if err := ready.Await(ctx); err != nil {
			return nil, err
		}
	}
	if err := e.loadMetadata(ctx); err != nil {
		return nil, err
	}
	if m, ok := program.(*ifrt.MLIRProgram); ok && !m.IsBytecode() {
		e.fillSignature(m.Module)
	}
	return e, nil
}

type executableState struct{ deleted atomic.Bool }

type destructArg struct {
	handle uint64
	state  *executableState
}

// destructExecutable sends a LoadedExecutableDestruct for an unreachable
// executable that was not deleted.
func (c *Client) destructExecutable(a destructArg) {
	if a.state.deleted.Load() || c.checkOpen() != nil {
		return
	}
	go c.sess.future(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableDestructRequest{
		LoadedExecutableDestructRequest: &proxypb.LoadedExecutableDestructRequest{LoadedExecutableHandle: a.handle},
	}})
}

// executable is a loaded executable on the server.
type executable struct {
	ifrt.UnimplementedExecutable
	c           *Client
	handle      uint64
	name        string
	fingerprint string
	devices     ifrt.DeviceList
	state       *executableState

	params []ifrt.ArgumentInfo // from the metadata; DType and Shape only when known
	// donatable lists the parameters the program may donate; donationKnown is
	// false when the server did not say.
	donatable     []int
	donationKnown bool
	// memoryStats is the server's memory analysis, or why it has none.
	memoryStats    ifrt.CompiledMemoryStats
	memoryStatsErr error

	mu sync.Mutex
	// outputs describes the results; outSpecs are the results' specs, known
	// after the first execution (whose response carries them), nil before.
	outputs  []ifrt.ArgumentInfo
	outSpecs []ifrt.ArraySpec
}

var _ ifrt.LoadedExecutable = (*executable)(nil)

// loadMetadata asks for the executable's parameter and output shardings,
// layouts, memory kinds and donatable inputs.
func (e *executable) loadMetadata(ctx context.Context) error {
	defer runtime.KeepAlive(e)
	resp, err := e.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableMetadataRequest{
		LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: e.handle},
	}})
	if err != nil {
		return err
	}
	m, err := typed(resp.GetLoadedExecutableMetadataResponse(), "LoadedExecutableMetadataRequest")
	if err != nil {
		return err
	}
	if e.params, err = argumentInfos(m.GetParameterShardings().GetShardings(), m.GetParameterLayoutsList().GetLayouts()); err != nil {
		return err
	}
	if e.outputs, err = argumentInfos(m.GetOutputShardings().GetShardings(), m.GetOutputLayoutsList().GetLayouts()); err != nil {
		return err
	}
	if kinds := m.GetOutputMemoryKinds(); kinds.GetStatus().GetCode() == proxypb.Code_OK && len(kinds.GetMemoryKindLists()) > 0 {
		for i, k := range kinds.GetMemoryKindLists()[0].GetMemoryKinds() {
			if i < len(e.outputs) {
				e.outputs[i].MemoryKind = ifrt.MemoryKind(k)
			}
		}
	}
	if st := m.GetCompiledMemoryStats(); st != nil {
		e.memoryStats = st.Stats()
	} else if st := m.GetCompiledMemoryStatsError(); st != nil {
		e.memoryStatsErr = wire.StatusToError(st)
	} else {
		e.memoryStatsErr = ifrt.Errorf(ifrt.Unimplemented, "the server sent no memory analysis of %s", e.name)
	}
	if d := m.GetDonatedInputIndices(); d != nil {
		e.donationKnown = true
		for _, i := range d.GetDonatedInputIndices() {
			e.donatable = append(e.donatable, int(i))
		}
	}
	return nil
}

// argumentInfos combines per-argument shardings and layouts; either list may be
// missing (layouts often are). The longer one sets the count.
func argumentInfos(shardings []*xlapb.OpSharding, layouts []*xlapb.LayoutProto) ([]ifrt.ArgumentInfo, error) {
	n := max(len(shardings), len(layouts))
	if n == 0 {
		return nil, nil
	}
	out := make([]ifrt.ArgumentInfo, n)
	for i, s := range shardings {
		op, err := wire.OpShardingFromProto(s)
		if err != nil {
			return nil, err
		}
		out[i].OpSharding = &op
	}
	for i, l := range layouts {
		lay, err := wire.XLALayoutFromProto(l)
		if err != nil {
			return nil, err
		}
		out[i].Layout = lay
	}
	return out, nil
}

func (e *executable) Name() string               { return e.name }
func (e *executable) Fingerprint() string        { return e.fingerprint }
func (e *executable) Devices() ifrt.DeviceList   { return e.devices }
func (e *executable) IsDeleted() bool            { return e.state.deleted.Load() }
func (e *executable) DonatableParameters() []int { return slices.Clone(e.donatable) }

// Parameters describes the parameters: their shardings and layouts from the
// server, and, for programs sent as MLIR text, their dtypes and shapes.
func (e *executable) Parameters() []ifrt.ArgumentInfo { return slices.Clone(e.params) }

// Outputs describes the results: shardings, layouts and memory kinds from the
// server; dtypes and shapes from the program's text, or else from the first
// execution.
func (e *executable) Outputs() []ifrt.ArgumentInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.outputs)
}

// As sets *target to the executable's handle when target is an
// *ExecutableHandle.
func (e *executable) As(target any) bool {
	if p, ok := target.(*ExecutableHandle); ok {
		*p = ExecutableHandle(e.handle)
		return true
	}
	return false
}

// Delete releases the executable on the server (LoadedExecutableDestruct).
func (e *executable) Delete() *ifrt.Future {
	defer runtime.KeepAlive(e)
	if e.state.deleted.Swap(true) {
		return nil
	}
	if err := e.c.checkOpen(); err != nil {
		return ifrt.ReadyFuture(err)
	}
	return e.c.sess.future(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableDestructRequest{
		LoadedExecutableDestructRequest: &proxypb.LoadedExecutableDestructRequest{LoadedExecutableHandle: e.handle},
	}})
}

// Execute sends a LoadedExecutableExecuteRequest. The first execution lets the
// server name the outputs and learns their specs from its response; later ones
// name the outputs (and the status) with client handles, as jaxlib does. The call
// waits for the server's response, so invalid arguments fail here; the
// computation itself may still be running (see Array.Ready and, with
// opts.FillStatus, ExecuteResult.Status).
//
// Arguments the program donates (DonatableParameters, less
// opts.NonDonatableInputs) count as deleted once the call succeeds.
func (e *executable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	defer runtime.KeepAlive(e)
	defer runtime.KeepAlive(args)
	if opts == nil {
		opts = &ifrt.ExecuteOptions{}
	}
	ins, err := e.c.check().Execute(e, args, opts)
	if err != nil {
		return nil, err
	}
	req := &proxypb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: e.handle,
		ArgsHandles:            handlesOf(ins),
		ExecuteOptions:         wire.ExecuteOptionsToProto(opts),
	}
	e.mu.Lock()
	specs := e.outSpecs
	e.mu.Unlock()
	if specs != nil {
		if req.ResultArrayHandle, err = e.c.newHandles(len(specs)); err != nil {
			return nil, err
		}
		if opts.FillStatus {
			if req.ResultStatusHandle, err = e.c.newHandle(); err != nil {
				return nil, err
			}
		}
	}
	if specs != nil && e.c.asyncExecute {
		return e.dispatch(ctx, ins, opts, req, specs)
	}
	resp, err := e.c.sess.callOrLate(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{
		LoadedExecutableExecuteRequest: req,
	}}, func(resp *proxypb.IfrtResponse) {
		// The caller gave up: free the outputs the server named.
		for _, o := range resp.GetLoadedExecutableExecuteResponse().GetOutputs() {
			e.c.destructHandle(o.GetArrayHandle())
		}
	})
	if err == nil {
		var r *proxypb.LoadedExecutableExecuteResponse
		if r, err = typed(resp.GetLoadedExecutableExecuteResponse(), "LoadedExecutableExecuteRequest"); err == nil {
			return e.results(ctx, ins, opts, req, r)
		}
	}
	for _, h := range req.ResultArrayHandle {
		e.c.destructHandle(h)
	}
	return nil, err
}

// dispatch sends a later execution without waiting for its response
// (WithAsyncDispatch, WithAsyncExecute); its outputs carry the response's error.
func (e *executable) dispatch(ctx context.Context, ins []*array, opts *ifrt.ExecuteOptions, req *proxypb.LoadedExecutableExecuteRequest, specs []ifrt.ArraySpec) (*ifrt.ExecuteResult, error) {
	pending, err := e.c.send(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{
		LoadedExecutableExecuteRequest: req,
	}})
	if err != nil {
		for _, h := range req.ResultArrayHandle {
			e.c.destructHandle(h)
		}
		return nil, err
	}
	res := &ifrt.ExecuteResult{}
	for i, h := range req.ResultArrayHandle {
		a := e.c.newArray(h, specs[i])
		a.pending = pending
		res.Outputs = append(res.Outputs, a)
	}
	if opts.FillStatus {
		res.Status = ifrt.JoinFutures(pending, e.c.executionStatus(ctx, req.ResultStatusHandle))
	}
	res.Donated = e.markDonated(ctx, ins, opts)
	return res, nil
}

// results builds the ExecuteResult from a successful response.
func (e *executable) results(ctx context.Context, ins []*array, opts *ifrt.ExecuteOptions, req *proxypb.LoadedExecutableExecuteRequest, r *proxypb.LoadedExecutableExecuteResponse) (*ifrt.ExecuteResult, error) {
	res := &ifrt.ExecuteResult{}
	if req.ResultArrayHandle != nil {
		e.mu.Lock()
		specs := e.outSpecs
		e.mu.Unlock()
		for i, h := range req.ResultArrayHandle {
			res.Outputs = append(res.Outputs, e.c.newArray(h, specs[i]))
		}
	} else {
		specs := make([]ifrt.ArraySpec, len(r.GetOutputs()))
		for i, o := range r.GetOutputs() {
			dt, err := wire.DTypeFromProto(o.GetDtype())
			if err == nil {
				specs[i].DType = dt
				specs[i].Shape, err = wire.ShapeFromProto(o.GetShape())
			}
			if err == nil {
				specs[i].Sharding, err = wire.ShardingFromProto(o.GetSharding(), e.c.LookupDevice)
			}
			if err != nil {
				for _, o := range r.GetOutputs() {
					e.c.destructHandle(o.GetArrayHandle())
				}
				return nil, ifrt.Errorf(ifrt.Internal, "proxy: output %d of %s: %w", i, e.name, err)
			}
		}
		for i, o := range r.GetOutputs() {
			res.Outputs = append(res.Outputs, e.c.newArray(o.GetArrayHandle(), specs[i]))
		}
		e.learnOutputs(specs)
	}
	if opts.FillStatus {
		h := req.ResultStatusHandle
		if h == 0 {
			h = r.GetStatusHandle()
		}
		res.Status = e.c.executionStatus(ctx, h)
	}
	res.Donated = e.markDonated(ctx, ins, opts)
	return res, nil
}

// learnOutputs records the output specs of the first execution.
func (e *executable) learnOutputs(specs []ifrt.ArraySpec) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outSpecs != nil {
		return
	}
	e.outSpecs = specs
	if len(e.outputs) < len(specs) {
		e.outputs = append(e.outputs, make([]ifrt.ArgumentInfo, len(specs)-len(e.outputs))...)
	}
	for i, s := range specs {
		e.outputs[i].DType, e.outputs[i].Shape = s.DType, s.Shape
		if e.outputs[i].MemoryKind == "" {
			e.outputs[i].MemoryKind = s.Sharding.MemoryKind()
		}
	}
}

// markDonated marks the arguments the execution donated as deleted and
// returns their indices. When the server did not say which parameters the
// program donates, it asks about each candidate now (IsArrayDeleted, which
// the server answers once the execution has taken its arguments), so that
// IsDeleted answers locally afterwards.
func (e *executable) markDonated(ctx context.Context, ins []*array, opts *ifrt.ExecuteOptions) []int {
	if e.donationKnown {
		donated := backend.Donated(e.donatable, opts)
		for _, i := range donated {
			ins[i].deleted.Store(true)
		}
		return donated
	}
	var donated []int
	for i, a := range ins {
		if !slices.Contains(opts.NonDonatableInputs, i) && a.askDeleted(ctx) {
			donated = append(donated, i)
		}
	}
	return donated
}

// executionStatus returns a future for an execution's status handle: polled with
// LoadedExecutableFetchExecuteResult, or CheckFuture before protocol version 21.
func (c *Client) executionStatus(ctx context.Context, h uint64) *ifrt.Future {
	if h == 0 {
		return ifrt.ReadyFuture(ifrt.Errorf(ifrt.Internal, "proxy: the server gave no status handle for an execution that asked for one"))
	}
	if wire.StatusPolledWithCheckFuture(c.version.GetProtocolVersion()) {
		return c.sess.future(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{
			CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: h},
		}})
	}
	return c.sess.future(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{
		LoadedExecutableFetchExecuteResultRequest: &proxypb.LoadedExecutableFetchExecuteResultRequest{ResultStatusHandle: h},
	}})
}
