package proxyserver

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
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
			exe, err := s.compileOnBackend(ctx, &ifrt.MLIRProgram{Module: module}, opts)
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
	case wire.TypeCustomCallProgram:
		p, err := wire.CustomCallProgramFromBytes(prog.GetData(), s.lookup)
		if err != nil {
			return nil, nil, err
		}
		build = func(ctx context.Context) (*executable, error) {
			exe, err := s.backend.Compile(ctx, p, &ifrt.CompileOptions{Devices: p.Devices})
			if err != nil {
				return nil, err
			}
			return &executable{name: exe.Name(), devices: exe.Devices(), xla: exe}, nil
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
