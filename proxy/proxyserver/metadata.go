package proxyserver

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

func unimplementedStatus(what string) *proxypb.StatusProto {
	return wire.ErrorToStatus(ifrt.Errorf(ifrt.Unimplemented, "%s is not available from this server", what))
}

func (s *session) executableMetadata(o *op, r *proxypb.LoadedExecutableMetadataRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onExecutable(o, r.GetLoadedExecutableHandle(), func(e *executable) (*proxypb.IfrtResponse, error) {
		m := &proxypb.LoadedExecutableMetadataResponse{}
		if stats, err := memoryStatsOf(e); err == nil {
			m.CompiledMemoryStatsOneof = &proxypb.LoadedExecutableMetadataResponse_CompiledMemoryStats{CompiledMemoryStats: xlapb.NewCompiledMemoryStats(stats)}
		} else {
			m.CompiledMemoryStatsOneof = &proxypb.LoadedExecutableMetadataResponse_CompiledMemoryStatsError{CompiledMemoryStatsError: wire.ErrorToStatus(err)}
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
	})
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
