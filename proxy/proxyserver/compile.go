package proxyserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Serialized type names of programs and compile options.
const (
	typeXlaProgram           = "xla::ifrt::XlaProgram"
	typePluginProgram        = "xla::ifrt::PluginProgram"
	typeXlaCompileOptions    = "xla::ifrt::XlaCompileOptions"
	typePluginCompileOptions = "xla::ifrt::PluginCompileOptions"
	pluginProgramPrefix      = "__serialized_plugin_program "
)

// maxDevicesPerProgram bounds device assignments accepted from the wire.
const maxDevicesPerProgram = 1 << 20

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

func (s *session) compile(r *proxypb.CompileRequest) (*proxypb.IfrtResponse, runFunc, error) {
	if len(r.GetHostCallbacks()) > 0 {
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "host callbacks are not supported by this server")
	}
	prog := r.GetProgram()
	var build func(ctx context.Context) (*executable, error)
	switch prog.GetTypeName() {
	case typeXlaProgram:
		opts, err := s.compileOptions(r.GetCompileOptions())
		if err != nil {
			return nil, nil, err
		}
		module := prog.GetData()
		build = func(ctx context.Context) (*executable, error) {
			exe, err := s.backend.Compile(ctx, &ifrt.MLIRProgram{Module: module}, opts)
			if err != nil {
				return nil, err
			}
			return &executable{name: exe.Name(), devices: exe.Devices(), xla: exe}, nil
		}
	case typePluginProgram:
		key, body, handler, err := s.pluginProgram(prog.GetData())
		if err != nil {
			return nil, nil, err
		}
		build = func(ctx context.Context) (*executable, error) {
			pe, err := handler(ctx, s.backend, body)
			if err != nil {
				return nil, ifrt.WithCode(ifrt.CodeOf(err), badPlugin(err))
			}
			if pe == nil || pe.Execute == nil {
				return nil, ifrt.Errorf(ifrt.Internal, "plugin program %q: its handler returned no Execute", key)
			}
			e := &executable{name: pe.Name, devices: pe.Devices, plugin: pe}
			if e.name == "" {
				e.name = key
			}
			if e.devices == nil {
				e.devices = s.backend.AddressableDevices()
			}
			return e, nil
		}
	default:
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "programs of type %q are not supported", prog.GetTypeName())
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		e, err := build(ctx)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		h := s.mint()
		ent := newEntry[*executable]()
		ent.Resolve(e, nil)
		s.exes[h] = ent
		s.liveExes[e] = struct{}{}
		s.mu.Unlock()
		fh, err := s.registerFuture(0, nil)
		if err != nil {
			return nil, err
		}
		resp := &proxypb.CompileResponse{
			LoadedExecutableHandle: h,
			Name:                   e.name,
			NumDevices:             int32(len(e.devices)),
			DeviceIds:              wire.DeviceIDs(e.devices),
			ReadyFutureHandle:      &fh,
		}
		for _, d := range e.devices {
			if d.Addressable {
				resp.AddressableDeviceIds = append(resp.AddressableDeviceIds, int32(d.ID))
			}
		}
		if e.xla != nil && e.xla.Fingerprint() != "" {
			resp.Fingerprint = &proxypb.CompileResponse_FingerprintValue{FingerprintValue: []byte(e.xla.Fingerprint())}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CompileResponse{CompileResponse: resp}}, nil
	}, nil
}

func badPlugin(err error) error {
	return ifrt.Errorf(ifrt.CodeOf(err), "Bad PluginProgram: %v", err)
}

// pluginProgram parses a serialized PluginProgram: the prefix, then a JSON
// object with a single key that selects the handler.
func (s *session) pluginProgram(data []byte) (string, json.RawMessage, PluginHandler, error) {
	body, ok := bytes.CutPrefix(data, []byte(pluginProgramPrefix))
	if !ok {
		return "", nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "Bad PluginProgram: the program lacks the %q prefix", pluginProgramPrefix)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return "", nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "Bad PluginProgram: not a JSON object: %v", err)
	}
	if len(obj) != 1 {
		return "", nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "Bad PluginProgram: want one top-level key, got %d", len(obj))
	}
	for key, val := range obj {
		h, ok := s.srv.cfg.PluginPrograms[key]
		if !ok {
			known := make([]string, 0, len(s.srv.cfg.PluginPrograms))
			for k := range s.srv.cfg.PluginPrograms {
				known = append(known, k)
			}
			sort.Strings(known)
			return "", nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "Bad PluginProgram: this server does not serve %q (it serves: %s)", key, strings.Join(known, ", "))
		}
		return key, val, h, nil
	}
	panic("unreachable")
}

// compileOptions decodes XlaCompileOptions into ifrt options, with the
// executable's devices taken from the build options as upstream does: the
// device assignment (replica-major), else one device.
func (s *session) compileOptions(ser *proxypb.Serialized) (*ifrt.CompileOptions, error) {
	switch ser.GetTypeName() {
	case typeXlaCompileOptions:
	case typePluginCompileOptions, "":
		return &ifrt.CompileOptions{}, nil
	default:
		return nil, ifrt.Errorf(ifrt.Unimplemented, "compile options of type %q are not supported", ser.GetTypeName())
	}
	var m proxypb.XlaCompileOptionsProto
	if err := proto.Unmarshal(ser.GetData(), &m); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "malformed XlaCompileOptions: %v", err)
	}
	co := m.GetCompileOptions()
	if co == nil {
		co = &xlapb.CompileOptionsProto{}
	}
	raw, err := proto.Marshal(co)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "re-encoding compile options: %v", err)
	}
	opts := &ifrt.CompileOptions{XLA: raw}
	bo := co.GetExecutableBuildOptions()
	var ids []int32
	switch da := bo.GetDeviceAssignment(); {
	case da != nil:
		reps, comps := int64(da.GetReplicaCount()), int64(da.GetComputationCount())
		if reps <= 0 || comps <= 0 || reps*comps > maxDevicesPerProgram || int64(len(da.GetComputationDevices())) != comps {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "malformed device assignment: %d replicas, %d computations, %d computation lists", reps, comps, len(da.GetComputationDevices()))
		}
		for r := range reps {
			for c := range comps {
				devs := da.GetComputationDevices()[c].GetReplicaDeviceIds()
				if int64(len(devs)) != reps {
					return nil, ifrt.Errorf(ifrt.InvalidArgument, "malformed device assignment: computation %d lists %d replicas, want %d", c, len(devs), reps)
				}
				ids = append(ids, int32(devs[r]))
			}
		}
	case co.GetCompilePortableExecutable() || (bo != nil && bo.GetDeviceOrdinal() >= 0):
		ordinal := max(bo.GetDeviceOrdinal(), 0)
		devs := s.backend.AddressableDevices()
		if ordinal >= int64(len(devs)) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "device ordinal %d is out of range: %d addressable devices", ordinal, len(devs))
		}
		ids = []int32{int32(devs[ordinal].ID)}
	}
	if ids != nil {
		if opts.Devices, err = wire.DeviceListFromIDs(ids, s.lookup); err != nil {
			return nil, err
		}
	}
	return opts, nil
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

func unimplementedStatus(what string) *proxypb.StatusProto {
	return wire.ErrorToStatus(ifrt.Errorf(ifrt.Unimplemented, "%s is not available from this server", what))
}

func (s *session) executableMetadata(o *op, r *proxypb.LoadedExecutableMetadataRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), false)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, err
		}
		m := &proxypb.LoadedExecutableMetadataResponse{
			CompiledMemoryStatsOneof: &proxypb.LoadedExecutableMetadataResponse_CompiledMemoryStatsError{CompiledMemoryStatsError: unimplementedStatus("compiled memory stats")},
		}
		if e.xla == nil {
			m.ParameterLayouts = &proxypb.LoadedExecutableMetadataResponse_ParameterLayoutsError{ParameterLayoutsError: unimplementedStatus("parameter layouts of plugin programs")}
			m.OutputLayouts = &proxypb.LoadedExecutableMetadataResponse_OutputLayoutsError{OutputLayoutsError: unimplementedStatus("output layouts of plugin programs")}
			m.OutputMemoryKinds = &proxypb.LoadedExecutableMetadataResponse_OutputMemoryKind{Status: unimplementedStatus("output memory kinds of plugin programs")}
			if e.plugin.DonatesArguments {
				// The client then asks which arguments are gone (IsArrayDeleted).
				m.DonatedInputIndicesOneof = &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndicesError{DonatedInputIndicesError: unimplementedStatus("the donated inputs of a plugin program")}
			} else {
				m.DonatedInputIndicesOneof = &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices_{DonatedInputIndices: &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices{}}
			}
		} else {
			params, outs := e.xla.Parameters(), e.xla.Outputs()
			m.OutputShardings = &proxypb.LoadedExecutableMetadataResponse_ShardingList{}
			ol := &proxypb.LoadedExecutableMetadataResponse_LayoutList{}
			kinds := &proxypb.LoadedExecutableMetadataResponse_MemoryKindList{}
			// A backend that compiled bytecode it does not read may know only the
			// parameters' shardings (from its compiler), or nothing (ifrt cannot
			// tell "none" from "unknown"). What is unknown stays unknown, which
			// jaxlib accepts: it keeps the layouts of its own lowering and asks
			// IsArrayDeleted after executions instead of trusting a donation list.
			// Shardings must be sent whenever known: jaxlib takes them for
			// arguments that have none of their own (numpy arrays, PRNG keys).
			shardingsKnown := len(params) > 0
			typesKnown := ifrt.ParametersKnown(e.xla)
			if shardingsKnown {
				m.ParameterShardings = &proxypb.LoadedExecutableMetadataResponse_ShardingList{}
				for _, p := range params {
					m.ParameterShardings.Shardings = append(m.ParameterShardings.Shardings, opShardingOf(p))
				}
			}
			if typesKnown {
				pl := &proxypb.LoadedExecutableMetadataResponse_LayoutList{}
				for _, p := range params {
					pl.Layouts = append(pl.Layouts, layoutOf(p))
				}
				m.ParameterLayouts = &proxypb.LoadedExecutableMetadataResponse_ParameterLayoutsList{ParameterLayoutsList: pl}
			} else {
				m.ParameterLayouts = &proxypb.LoadedExecutableMetadataResponse_ParameterLayoutsError{ParameterLayoutsError: unimplementedStatus("the parameter layouts of this executable")}
			}
			for _, p := range outs {
				m.OutputShardings.Shardings = append(m.OutputShardings.Shardings, opShardingOf(p))
				ol.Layouts = append(ol.Layouts, layoutOf(p))
				kind := p.MemoryKind
				if kind == "" && len(e.devices) > 0 {
					kind = e.devices[0].DefaultMemoryKind()
				}
				kinds.MemoryKinds = append(kinds.MemoryKinds, string(kind))
			}
			m.OutputLayouts = &proxypb.LoadedExecutableMetadataResponse_OutputLayoutsList{OutputLayoutsList: ol}
			m.OutputMemoryKinds = &proxypb.LoadedExecutableMetadataResponse_OutputMemoryKind{MemoryKindLists: []*proxypb.LoadedExecutableMetadataResponse_MemoryKindList{kinds}}
			if typesKnown {
				donated := &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices{}
				for _, i := range e.xla.DonatableParameters() {
					donated.DonatedInputIndices = append(donated.DonatedInputIndices, uint32(i))
				}
				m.DonatedInputIndicesOneof = &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices_{DonatedInputIndices: donated}
			} else {
				m.DonatedInputIndicesOneof = &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndicesError{DonatedInputIndicesError: unimplementedStatus("the donated inputs of this executable")}
			}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableMetadataResponse{LoadedExecutableMetadataResponse: m}}, nil
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

func opShardingOf(a ifrt.ArgumentInfo) *xlapb.OpSharding {
	if a.OpSharding == nil {
		return wire.OpShardingToProto(ifrt.Replicated())
	}
	return wire.OpShardingToProto(*a.OpSharding)
}

func layoutOf(a ifrt.ArgumentInfo) *xlapb.LayoutProto {
	l := a.Layout
	if l == nil {
		l = ifrt.RowMajorLayout(len(a.Shape))
	}
	return wire.XLALayoutToProto(l)
}

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
			outs, status, err = e.execute(ctx, in, opts)
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
	f, err := s.takeFuture(r.GetResultStatusHandle())
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := awaitFuture(ctx, f); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableFetchExecuteResultResponse{
			LoadedExecutableFetchExecuteResultResponse: &proxypb.LoadedExecutableFetchExecuteResultResponse{}}}, nil
	}, nil
}

// executableDelete releases the executable (the handle stays known, so
// IsDeleted answers) and answers with an already resolved future.
func (s *session) executableDelete(o *op, r *proxypb.LoadedExecutableDeleteRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), true)
	if err != nil {
		return nil, nil, err
	}
	f, resolve := ifrt.NewFuture()
	fh, err := s.registerFuture(0, f)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := o.awaitOrder(ctx); err != nil {
			resolve(err)
		} else if e, err := ent.wait(ctx); err != nil {
			resolve(err)
		} else {
			e.release()
			resolve(nil)
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableDeleteResponse{
			LoadedExecutableDeleteResponse: &proxypb.LoadedExecutableDeleteResponse{FutureHandle: fh}}}, nil
	}, nil
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

func (s *session) costAnalysis(o *op, r *proxypb.LoadedExecutableCostAnalysisRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), false)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, err
		}
		resp := &proxypb.LoadedExecutableCostAnalysisResponse{}
		attrs, err := costAnalysisOf(e)
		if err == nil {
			var m *proxypb.AttributeMapProto
			if m, err = wire.AttributesToProto(attrs); err == nil {
				resp.Result = &proxypb.LoadedExecutableCostAnalysisResponse_Attributes{Attributes: m}
			}
		}
		if err != nil {
			resp.Result = &proxypb.LoadedExecutableCostAnalysisResponse_Status{Status: wire.ErrorToStatus(err)}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableCostAnalysisResponse{LoadedExecutableCostAnalysisResponse: resp}}, nil
	}, nil
}

func (s *session) programText(o *op, r *proxypb.LoadedExecutableHumanReadableProgramTextRequest) (*proxypb.IfrtResponse, runFunc, error) {
	ent, err := s.useExecutable(o, r.GetLoadedExecutableHandle(), false)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		e, err := ent.wait(ctx)
		if err != nil {
			return nil, err
		}
		resp := &proxypb.LoadedExecutableHumanReadableProgramTextResponse{}
		if text, err := programTextOf(e); err == nil {
			resp.Result = &proxypb.LoadedExecutableHumanReadableProgramTextResponse_HumanReadableProgramText{HumanReadableProgramText: text}
		} else {
			resp.Result = &proxypb.LoadedExecutableHumanReadableProgramTextResponse_Status{Status: wire.ErrorToStatus(err)}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableHumanReadableProgramTextResponse{LoadedExecutableHumanReadableProgramTextResponse: resp}}, nil
	}, nil
}

// programTextOf asks the backend's executable for its program text.
func programTextOf(e *executable) (string, error) {
	if pt, ok := e.xla.(ifrt.ProgramTexter); ok {
		return pt.ProgramText()
	}
	return "", ifrt.Errorf(ifrt.Unimplemented, "the backend shows no program text for this executable")
}

// costAnalysisOf asks the backend's executable for its cost estimates.
func costAnalysisOf(e *executable) (ifrt.Attributes, error) {
	if ca, ok := e.xla.(ifrt.CostAnalyzer); ok {
		return ca.CostAnalysis()
	}
	return nil, ifrt.Errorf(ifrt.Unimplemented, "the backend has no cost analysis for this executable")
}

// defaultDeviceAssignment assigns replica r, partition p to the addressable
// device r*partitions+p.
func (s *session) defaultDeviceAssignment(r *proxypb.GetDefaultDeviceAssignmentRequest) (*proxypb.IfrtResponse, runFunc, error) {
	reps, parts := r.GetNumReplicas(), r.GetNumPartitions()
	devs := s.backend.AddressableDevices()
	if reps == 0 || parts == 0 || reps > uint64(len(devs)) || parts > uint64(len(devs)) || reps*parts > uint64(len(devs)) {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "cannot assign %d replicas x %d partitions to %d devices", reps, parts, len(devs))
	}
	da := &xlapb.DeviceAssignmentProto{ReplicaCount: int32(reps), ComputationCount: int32(parts)}
	for p := range parts {
		cd := &xlapb.DeviceAssignmentProto_ComputationDevice{}
		for rep := range reps {
			cd.ReplicaDeviceIds = append(cd.ReplicaDeviceIds, int64(devs[rep*parts+p].ID))
		}
		da.ComputationDevices = append(da.ComputationDevices, cd)
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_GetDefaultDeviceAssignmentResponse{
		GetDefaultDeviceAssignmentResponse: &proxypb.GetDefaultDeviceAssignmentResponse{DeviceAssignment: da}}}, nil, nil
}

// defaultLayout answers with the dense row-major layout, the default of every
// ifrt backend.
func (s *session) defaultLayout(r *proxypb.GetDefaultLayoutRequest) (*proxypb.IfrtResponse, runFunc, error) {
	if _, err := wire.DTypeFromProto(r.GetDtype()); err != nil {
		return nil, nil, err
	}
	shape, err := wire.DimsToShape(r.GetDims())
	if err != nil {
		return nil, nil, err
	}
	d, err := s.backend.LookupDevice(ifrt.DeviceID(r.GetDeviceId()))
	if err != nil {
		return nil, nil, err
	}
	if _, err := d.Memory(ifrt.MemoryKind(r.GetMemoryKind())); err != nil {
		return nil, nil, err
	}
	b, err := wire.XLALayoutToBytes(ifrt.RowMajorLayout(len(shape)))
	if err != nil {
		return nil, nil, err
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_GetDefaultLayoutResponse{
		GetDefaultLayoutResponse: &proxypb.GetDefaultLayoutResponse{SerializedPjrtLayout: b}}}, nil, nil
}
