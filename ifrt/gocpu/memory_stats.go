package gocpu

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
)

// CompiledMemoryStats estimates what one device holds while the program
// runs (see memoryStats).
func (e *executable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	return memoryStats(e.module, e.params, e.outputs, e.donatable), nil
}

// CompiledMemoryStats estimates what one device holds while its partition
// runs, as the executables of Compile do.
func (e *GangExecutable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	return memoryStats(e.module, e.params, e.outputs, e.donatable), nil
}

// memoryStats counts a device's shard of each argument and output (in the
// host fields for host memory kinds), a donated argument as aliased when an
// output of its type and shard shape can take its storage, and as temporary
// what the interpreter holds at once while it runs the module
// (Module.TempBytes). The interpreter generates no code.
func memoryStats(m *stablehlo.Module, params, outputs []ifrt.ArgumentInfo, donatable []int) ifrt.CompiledMemoryStats {
	var s ifrt.CompiledMemoryStats
	for _, p := range params {
		if onHost(p) {
			s.HostArgumentSizeInBytes += shardBytes(p)
		} else {
			s.ArgumentSizeInBytes += shardBytes(p)
		}
	}
	for _, o := range outputs {
		if onHost(o) {
			s.HostOutputSizeInBytes += shardBytes(o)
		} else {
			s.OutputSizeInBytes += shardBytes(o)
		}
	}
	taken := make([]bool, len(outputs))
	for _, i := range donatable {
		if i < 0 || i >= len(params) {
			continue
		}
		p := params[i]
		for j, o := range outputs {
			if taken[j] || o.DType != p.DType || onHost(o) != onHost(p) || !shardShape(o).Equal(shardShape(p)) {
				continue
			}
			taken[j] = true
			if onHost(p) {
				s.HostAliasSizeInBytes += shardBytes(p)
			} else {
				s.AliasSizeInBytes += shardBytes(p)
			}
			break
		}
	}
	s.TempSizeInBytes = m.TempBytes()
	s.PeakMemoryInBytes = s.ArgumentSizeInBytes + s.OutputSizeInBytes - s.AliasSizeInBytes + s.TempSizeInBytes
	return s
}

// shardBytes is the size of one device's shard of a.
func shardBytes(a ifrt.ArgumentInfo) int64 {
	return shardShape(a).NumElements() * int64(a.DType.HostByteSize())
}

func shardShape(a ifrt.ArgumentInfo) ifrt.Shape {
	if a.OpSharding == nil {
		return a.Shape
	}
	return a.OpSharding.TileShape(a.Shape)
}

func onHost(a ifrt.ArgumentInfo) bool {
	return a.MemoryKind == ifrt.MemoryKindPinnedHost || a.MemoryKind == ifrt.MemoryKindUnpinnedHost
}
