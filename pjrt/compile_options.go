package pjrt

import (
	"encoding/binary"
	"math"
)

// CompileOptions is the subset of xla.CompileOptionsProto (with its
// ExecutableBuildOptionsProto and DeviceAssignmentProto) that most callers need.
// Marshal encodes it; callers with a full proto pass their own bytes to
// Client.Compile instead.
type CompileOptions struct {
	// NumReplicas and NumPartitions default to 1 when zero.
	NumReplicas   int
	NumPartitions int
	// DeviceAssignment[replica][partition] is a global device ID. Nil leaves the
	// choice to the plugin (its default assignment).
	DeviceAssignment [][]int
	// UseSPMDPartitioning asks XLA to partition the program (GSPMD or Shardy)
	// into NumPartitions per-device programs.
	UseSPMDPartitioning bool
	// UseShardyPartitioner selects Shardy instead of GSPMD for partitioning.
	UseShardyPartitioner bool
	// Portable compiles a single-device executable that can be launched on any
	// addressable device (ExecuteOptions.Device).
	Portable bool
}

// Field numbers, from xla/pjrt/proto/compile_options.proto and xla_data.proto.
const (
	fieldCompileExecutableBuildOptions = 3
	fieldCompilePortable               = 4
	fieldBuildDeviceOrdinal            = 1
	fieldBuildNumReplicas              = 4
	fieldBuildNumPartitions            = 5
	fieldBuildUseSPMD                  = 6
	fieldBuildDeviceAssignment         = 9
	fieldBuildUseShardy                = 19
	fieldAssignmentReplicaCount        = 1
	fieldAssignmentComputationCount    = 2
	fieldAssignmentComputationDevices  = 3
	fieldComputationReplicaDeviceIDs   = 1
)

// Marshal returns the serialized xla.CompileOptionsProto. The result is never
// empty (some plugins abort on an empty options blob).
func (o CompileOptions) Marshal() []byte {
	replicas, partitions := o.NumReplicas, o.NumPartitions
	if replicas <= 0 {
		replicas = 1
	}
	if partitions <= 0 {
		partitions = 1
	}
	var build []byte
	build = appendVarintField(build, fieldBuildDeviceOrdinal, math.MaxUint64) // -1 as a varint
	build = appendVarintField(build, fieldBuildNumReplicas, uint64(replicas))
	build = appendVarintField(build, fieldBuildNumPartitions, uint64(partitions))
	if o.UseSPMDPartitioning {
		build = appendVarintField(build, fieldBuildUseSPMD, 1)
	}
	if o.DeviceAssignment != nil {
		var da []byte
		da = appendVarintField(da, fieldAssignmentReplicaCount, uint64(len(o.DeviceAssignment)))
		computations := 0
		if len(o.DeviceAssignment) > 0 {
			computations = len(o.DeviceAssignment[0])
		}
		da = appendVarintField(da, fieldAssignmentComputationCount, uint64(computations))
		for p := 0; p < computations; p++ {
			var ids []byte
			for r := range o.DeviceAssignment {
				id := 0
				if p < len(o.DeviceAssignment[r]) {
					id = o.DeviceAssignment[r][p]
				}
				ids = binary.AppendUvarint(ids, uint64(int64(id)))
			}
			var cd []byte
			cd = appendBytesField(cd, fieldComputationReplicaDeviceIDs, ids) // packed
			da = appendBytesField(da, fieldAssignmentComputationDevices, cd)
		}
		build = appendBytesField(build, fieldBuildDeviceAssignment, da)
	}
	if o.UseShardyPartitioner {
		build = appendVarintField(build, fieldBuildUseShardy, 1)
	}
	var out []byte
	out = appendBytesField(out, fieldCompileExecutableBuildOptions, build)
	if o.Portable {
		out = appendVarintField(out, fieldCompilePortable, 1)
	}
	return out
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3) // wire type 0
	return binary.AppendUvarint(b, v)
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}
