package proxy

import (
	"context"
	"runtime"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// ProgramText asks the server for the executable's program as text
// (LoadedExecutableHumanReadableProgramText).
func (e *executable) ProgramText() (string, error) {
	defer runtime.KeepAlive(e)
	resp, err := e.c.sess.call(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableHumanReadableProgramTextRequest{
		LoadedExecutableHumanReadableProgramTextRequest: &proxypb.LoadedExecutableHumanReadableProgramTextRequest{LoadedExecutableHandle: e.handle},
	}})
	if err != nil {
		return "", err
	}
	r, err := typed(resp.GetLoadedExecutableHumanReadableProgramTextResponse(), "LoadedExecutableHumanReadableProgramTextRequest")
	if err != nil {
		return "", err
	}
	if st := r.GetStatus(); st != nil {
		return "", wire.StatusToError(st)
	}
	return r.GetHumanReadableProgramText(), nil
}

// CostAnalysis asks the server for the backend's cost estimates
// (LoadedExecutableCostAnalysis).
func (e *executable) CostAnalysis() (ifrt.Attributes, error) {
	defer runtime.KeepAlive(e)
	resp, err := e.c.sess.call(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableCostAnalysisRequest{
		LoadedExecutableCostAnalysisRequest: &proxypb.LoadedExecutableCostAnalysisRequest{LoadedExecutableHandle: e.handle},
	}})
	if err != nil {
		return nil, err
	}
	r, err := typed(resp.GetLoadedExecutableCostAnalysisResponse(), "LoadedExecutableCostAnalysisRequest")
	if err != nil {
		return nil, err
	}
	if st := r.GetStatus(); st != nil {
		return nil, wire.StatusToError(st)
	}
	return wire.AttributesFromProto(r.GetAttributes())
}

// CompiledMemoryStats is the server's memory analysis, from the metadata
// fetched at compile.
func (e *executable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	return e.memoryStats, e.memoryStatsErr
}
