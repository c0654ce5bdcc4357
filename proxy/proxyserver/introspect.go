package proxyserver

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

func (s *session) costAnalysis(o *op, r *proxypb.LoadedExecutableCostAnalysisRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onExecutable(o, r.GetLoadedExecutableHandle(), func(e *executable) (*proxypb.IfrtResponse, error) {
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
	})
}

func (s *session) programText(o *op, r *proxypb.LoadedExecutableHumanReadableProgramTextRequest) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onExecutable(o, r.GetLoadedExecutableHandle(), func(e *executable) (*proxypb.IfrtResponse, error) {
		resp := &proxypb.LoadedExecutableHumanReadableProgramTextResponse{}
		if text, err := programTextOf(e); err == nil {
			resp.Result = &proxypb.LoadedExecutableHumanReadableProgramTextResponse_HumanReadableProgramText{HumanReadableProgramText: text}
		} else {
			resp.Result = &proxypb.LoadedExecutableHumanReadableProgramTextResponse_Status{Status: wire.ErrorToStatus(err)}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableHumanReadableProgramTextResponse{LoadedExecutableHumanReadableProgramTextResponse: resp}}, nil
	})
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

// memoryStatsOf asks the backend's executable what one device holds while
// it runs (JAX's compiled.memory_analysis()).
func memoryStatsOf(e *executable) (ifrt.CompiledMemoryStats, error) {
	if ma, ok := e.xla.(ifrt.MemoryAnalyzer); ok {
		return ma.CompiledMemoryStats()
	}
	return ifrt.CompiledMemoryStats{}, ifrt.Errorf(ifrt.Unimplemented, "the backend has no memory analysis for this executable")
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
