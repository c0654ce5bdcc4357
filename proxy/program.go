package proxy

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/protobuf/proto"
)

// Serialized type names of programs and compile options in a CompileRequest. The
// C++ class of an MLIR program is HloProgram, but the wire keeps its old name.
const (
	typeXLAProgram           = "xla::ifrt::XlaProgram"
	typePluginProgram        = "xla::ifrt::PluginProgram"
	typeXLACompileOptions    = "xla::ifrt::XlaCompileOptions"
	typePluginCompileOptions = "xla::ifrt::PluginCompileOptions"

	// pluginProgramPrefix starts the serialized form of a plugin program.
	pluginProgramPrefix = "__serialized_plugin_program "
)

// encodeProgram returns the program and compile options of a CompileRequest.
//
// An MLIR program travels as its module bytes (text or bytecode, unchanged) with
// an xla::ifrt::XlaCompileOptions: opts.XLA as the xla.CompileOptionsProto, with
// a device assignment for opts.Devices added when it has none (IFRT's device list
// is not serialized; servers derive it from the assignment). A plugin program
// travels with the plugin prefix and empty plugin compile options.
func encodeProgram(program ifrt.Program, opts *ifrt.CompileOptions) (prog, options *proxypb.Serialized, err error) {
	if opts == nil {
		opts = &ifrt.CompileOptions{}
	}
	switch p := program.(type) {
	case *ifrt.MLIRProgram:
		if p == nil || len(p.Module) == 0 {
			return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: empty MLIR program")
		}
		co, err := xlaCompileOptions(opts)
		if err != nil {
			return nil, nil, err
		}
		data, err := proto.Marshal(&proxypb.XlaCompileOptionsProto{CompileOptions: co})
		if err != nil {
			return nil, nil, ifrt.Errorf(ifrt.Internal, "proxy: encoding compile options: %w", err)
		}
		return &proxypb.Serialized{TypeName: typeXLAProgram, Data: p.Module},
			&proxypb.Serialized{TypeName: typeXLACompileOptions, Data: data}, nil
	case *ifrt.PluginProgram:
		if p == nil {
			return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: nil plugin program")
		}
		data := make([]byte, 0, len(pluginProgramPrefix)+len(p.Data))
		data = append(append(data, pluginProgramPrefix...), p.Data...)
		return &proxypb.Serialized{TypeName: typePluginProgram, Data: data},
			&proxypb.Serialized{TypeName: typePluginCompileOptions}, nil
	case *ifrt.CustomCallProgram:
		data, err := wire.CustomCallProgramToBytes(p)
		if err != nil {
			return nil, nil, err
		}
		return &proxypb.Serialized{TypeName: wire.TypeCustomCallProgram, Data: data},
			&proxypb.Serialized{TypeName: wire.TypeCustomCallCompileOptions}, nil
	case nil:
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: nil program")
	}
	return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "proxy: programs of type %T cannot be sent to a proxy server", program)
}

// xlaCompileOptions decodes opts.XLA and, when opts.Devices is set and the
// options have no device assignment, assigns the devices the way JAX does for
// SPMD programs: one replica, one partition per device.
func xlaCompileOptions(opts *ifrt.CompileOptions) (*xlapb.CompileOptionsProto, error) {
	co := &xlapb.CompileOptionsProto{}
	if len(opts.XLA) > 0 {
		if err := proto.Unmarshal(opts.XLA, co); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: CompileOptions.XLA is not an xla.CompileOptionsProto: %w", err)
		}
	}
	if len(opts.Devices) == 0 {
		return co, nil
	}
	if err := opts.Devices.Validate(); err != nil {
		return nil, err
	}
	if co.ExecutableBuildOptions == nil {
		co.ExecutableBuildOptions = &xlapb.ExecutableBuildOptionsProto{}
	}
	b := co.ExecutableBuildOptions
	if b.DeviceAssignment != nil {
		return co, nil
	}
	n := int64(len(opts.Devices))
	if b.NumReplicas == 0 && b.NumPartitions == 0 {
		b.NumReplicas, b.NumPartitions = 1, n
		b.UseSpmdPartitioning = n > 1
	}
	b.NumReplicas, b.NumPartitions = max(b.NumReplicas, 1), max(b.NumPartitions, 1)
	if b.NumReplicas*b.NumPartitions != n {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: %d replicas times %d partitions do not match %d devices",
			b.NumReplicas, b.NumPartitions, n)
	}
	// Devices are listed replica-major: computation c, replica r is device
	// r*partitions + c.
	da := &xlapb.DeviceAssignmentProto{ReplicaCount: int32(b.NumReplicas), ComputationCount: int32(b.NumPartitions)}
	for c := range b.NumPartitions {
		cd := &xlapb.DeviceAssignmentProto_ComputationDevice{}
		for r := range b.NumReplicas {
			cd.ReplicaDeviceIds = append(cd.ReplicaDeviceIds, int64(opts.Devices[r*b.NumPartitions+c].ID))
		}
		da.ComputationDevices = append(da.ComputationDevices, cd)
	}
	b.DeviceAssignment = da
	return co, nil
}
