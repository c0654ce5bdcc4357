package xlapb

import "github.com/openpathways/pathways/ifrt"

// NewCompiledMemoryStats converts ifrt's memory analysis to XLA's proto, as
// LoadedExecutableMetadataResponse and the workers' gang compile answers
// carry it.
func NewCompiledMemoryStats(s ifrt.CompiledMemoryStats) *CompiledMemoryStatsProto {
	return &CompiledMemoryStatsProto{
		GeneratedCodeSizeInBytes:     s.GeneratedCodeSizeInBytes,
		ArgumentSizeInBytes:          s.ArgumentSizeInBytes,
		OutputSizeInBytes:            s.OutputSizeInBytes,
		AliasSizeInBytes:             s.AliasSizeInBytes,
		TempSizeInBytes:              s.TempSizeInBytes,
		PeakMemoryInBytes:            s.PeakMemoryInBytes,
		HostGeneratedCodeSizeInBytes: s.HostGeneratedCodeSizeInBytes,
		HostArgumentSizeInBytes:      s.HostArgumentSizeInBytes,
		HostOutputSizeInBytes:        s.HostOutputSizeInBytes,
		HostAliasSizeInBytes:         s.HostAliasSizeInBytes,
		HostTempSizeInBytes:          s.HostTempSizeInBytes,
	}
}

// Stats converts p to ifrt's form.
func (p *CompiledMemoryStatsProto) Stats() ifrt.CompiledMemoryStats {
	return ifrt.CompiledMemoryStats{
		GeneratedCodeSizeInBytes:     p.GetGeneratedCodeSizeInBytes(),
		ArgumentSizeInBytes:          p.GetArgumentSizeInBytes(),
		OutputSizeInBytes:            p.GetOutputSizeInBytes(),
		AliasSizeInBytes:             p.GetAliasSizeInBytes(),
		TempSizeInBytes:              p.GetTempSizeInBytes(),
		PeakMemoryInBytes:            p.GetPeakMemoryInBytes(),
		HostGeneratedCodeSizeInBytes: p.GetHostGeneratedCodeSizeInBytes(),
		HostArgumentSizeInBytes:      p.GetHostArgumentSizeInBytes(),
		HostOutputSizeInBytes:        p.GetHostOutputSizeInBytes(),
		HostAliasSizeInBytes:         p.GetHostAliasSizeInBytes(),
		HostTempSizeInBytes:          p.GetHostTempSizeInBytes(),
	}
}
