package proxyserver

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// plan is the planning step of every request kind; see session.
func (s *session) plan(o *op, req *proxypb.IfrtRequest) (*proxypb.IfrtResponse, runFunc, error) {
	switch r := req.GetRequest().(type) {
	case *proxypb.IfrtRequest_InitRequest:
		return s.init()
	case *proxypb.IfrtRequest_CheckFutureRequest:
		return s.checkFuture(r.CheckFutureRequest)
	case *proxypb.IfrtRequest_CheckValueReadyRequest:
		return s.checkValueReady(o, r.CheckValueReadyRequest)
	case *proxypb.IfrtRequest_MakeArrayFromHostBufferRequest:
		return s.makeArrayFromHostBuffer(o, r.MakeArrayFromHostBufferRequest)
	case *proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest:
		return s.makeArraysFromHostBufferShards(o, r.MakeArraysFromHostBufferShardsRequest)
	case *proxypb.IfrtRequest_MakeErrorArraysRequest:
		return s.makeErrorArrays(o, r.MakeErrorArraysRequest)
	case *proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest:
		return s.assemble(o, r.AssembleArrayFromSingleDeviceArraysRequest)
	case *proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest:
		return s.disassemble(o, r.DisassembleIntoSingleDeviceArraysRequest)
	case *proxypb.IfrtRequest_CopyToHostBufferRequest:
		return s.copyToHostBuffer(o, r.CopyToHostBufferRequest)
	case *proxypb.IfrtRequest_CopyArraysRequest:
		return s.copyArrays(o, r.CopyArraysRequest)
	case *proxypb.IfrtRequest_ReshardArraysRequest:
		return s.reshardArrays(o, r.ReshardArraysRequest)
	case *proxypb.IfrtRequest_RemapArraysRequest:
		return s.remapArrays(o, r.RemapArraysRequest)
	case *proxypb.IfrtRequest_FullyReplicatedShardRequest:
		return s.fullyReplicatedShard(o, r.FullyReplicatedShardRequest)
	case *proxypb.IfrtRequest_DeleteArrayRequest:
		return s.deleteArrays(o, r.DeleteArrayRequest)
	case *proxypb.IfrtRequest_IsArrayDeletedRequest:
		return s.isArrayDeleted(o, r.IsArrayDeletedRequest)
	case *proxypb.IfrtRequest_DestructArrayRequest:
		return s.destructArrays(r.DestructArrayRequest)
	case *proxypb.IfrtRequest_CompileRequest:
		return s.compile(r.CompileRequest)
	case *proxypb.IfrtRequest_LoadedExecutableMetadataRequest:
		return s.executableMetadata(o, r.LoadedExecutableMetadataRequest)
	case *proxypb.IfrtRequest_LoadedExecutableExecuteRequest:
		return s.execute(o, r.LoadedExecutableExecuteRequest)
	case *proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest:
		return s.fetchExecuteResult(r.LoadedExecutableFetchExecuteResultRequest)
	case *proxypb.IfrtRequest_LoadedExecutableDeleteRequest:
		return s.executableDelete(o, r.LoadedExecutableDeleteRequest)
	case *proxypb.IfrtRequest_LoadedExecutableIsDeletedRequest:
		return s.executableIsDeleted(o, r.LoadedExecutableIsDeletedRequest)
	case *proxypb.IfrtRequest_LoadedExecutableDestructRequest:
		return s.executableDestruct(r.LoadedExecutableDestructRequest)
	case *proxypb.IfrtRequest_LoadedExecutableCostAnalysisRequest:
		return s.costAnalysis(o, r.LoadedExecutableCostAnalysisRequest)
	case *proxypb.IfrtRequest_LoadedExecutableHumanReadableProgramTextRequest:
		return s.programText(o, r.LoadedExecutableHumanReadableProgramTextRequest)
	case *proxypb.IfrtRequest_GetDefaultDeviceAssignmentRequest:
		return s.defaultDeviceAssignment(r.GetDefaultDeviceAssignmentRequest)
	case *proxypb.IfrtRequest_GetDefaultLayoutRequest:
		return s.defaultLayout(r.GetDefaultLayoutRequest)
	case *proxypb.IfrtRequest_BitcastArraysRequest:
		err := ifrt.Errorf(ifrt.Unimplemented, "BitcastArrays is not supported by this server")
		_, _ = s.reserveArrays(o, r.BitcastArraysRequest.GetResultHandles(), -1) // the results fail with err; a bad handle is not a second error
		return nil, nil, err
	case nil:
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "Got unimplemented request type: the request carries no known kind")
	}
	return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "Got unimplemented request type: %s", o.kind)
}
