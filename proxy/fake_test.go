package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
)

const defaultTestTimeout = 30 * time.Second

// fakeServer is a small GrpcIfrtService for testing the client's side of the
// protocol: it records what arrives and answers a few requests with canned data.
// Arrays are kept as the raw bytes of their host buffer.
type fakeServer struct {
	proxypb.UnimplementedGrpcIfrtServiceServer

	version *proxypb.IfrtProxyVersion
	// handle, when set, answers session requests instead of the default logic;
	// returning nil falls back to it.
	handle func(*proxypb.IfrtRequest) *proxypb.IfrtResponse
	// storeGate, when set, holds every HostBufferStore until it is closed.
	storeGate chan struct{}

	mu          sync.Mutex
	cond        *sync.Cond
	sessionMD   *proxypb.GrpcIfrtSessionMetadata
	requests    []*proxypb.IfrtRequest
	hostBuffers map[uint64][]byte
	chunkSizes  map[uint64][]int
	arrays      map[uint64][]byte
	destructed  [][]uint64
	deletedHB   []uint64
	stream      proxypb.GrpcIfrtService_IfrtSessionServer
	endSession  chan error
}

func newFakeServer() *fakeServer {
	f := &fakeServer{
		version:     &proxypb.IfrtProxyVersion{ProtocolVersion: 23, IfrtSerdesVersionNumber: 2},
		hostBuffers: map[uint64][]byte{},
		chunkSizes:  map[uint64][]int{},
		arrays:      map[uint64][]byte{},
		endSession:  make(chan error, 1),
	}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// start serves f on a bufconn listener and dials it.
func (f *fakeServer) start(t *testing.T, opts ...Option) (*Client, error) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	proxypb.RegisterGrpcIfrtServiceServer(srv, f)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	ctx := testenv.Context(t, defaultTestTimeout)
	opts = append([]Option{
		WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })),
		WithInsecure(),
	}, opts...)
	return Dial(ctx, "passthrough:///bufnet", opts...)
}

func (f *fakeServer) GetVersion(_ context.Context, req *proxypb.GrpcGetVersionRequest) (*proxypb.GrpcGetVersionResponse, error) {
	if req.GetMinVersion() == nil || req.GetMaxVersion() == nil {
		return nil, status.Error(codes.InvalidArgument, "no range")
	}
	return &proxypb.GrpcGetVersionResponse{Version: f.version}, nil
}

func (f *fakeServer) IfrtSession(stream proxypb.GrpcIfrtService_IfrtSessionServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(sessionMetadataKey)
	if len(vals) != 1 {
		return status.Error(codes.InvalidArgument, "missing session metadata")
	}
	var smd proxypb.GrpcIfrtSessionMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &smd); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	f.mu.Lock()
	f.sessionMD = &smd
	f.stream = stream
	f.mu.Unlock()

	reqs := make(chan *proxypb.IfrtRequest)
	recvErr := make(chan error, 1)
	go func() {
		for {
			req, err := stream.Recv()
			if err != nil {
				recvErr <- err
				return
			}
			reqs <- req
		}
	}()
	var sendMu sync.Mutex
	for {
		select {
		case err := <-f.endSession:
			return err
		case err := <-recvErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case req := <-reqs:
			f.mu.Lock()
			f.requests = append(f.requests, req)
			f.cond.Broadcast()
			f.mu.Unlock()
			// Answer in a goroutine: requests that wait for a host buffer
			// must not hold up the others.
			go func() {
				resp := f.answer(req)
				if resp == nil {
					return
				}
				if resp.ResponseMetadata == nil {
					resp.ResponseMetadata = &proxypb.ResponseMetadata{}
				}
				resp.ResponseMetadata.OpId = req.GetRequestMetadata().GetOpId()
				sendMu.Lock()
				defer sendMu.Unlock()
				_ = stream.Send(resp)
			}()
		}
	}
}

func errorResponse(code proxypb.Code, msg string) *proxypb.IfrtResponse {
	return &proxypb.IfrtResponse{ResponseMetadata: &proxypb.ResponseMetadata{Status: &proxypb.StatusProto{Code: code, Message: msg}}}
}

func (f *fakeServer) answer(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
	if f.handle != nil {
		if resp := f.handle(req); resp != nil {
			return resp
		}
	}
	switch r := req.Request.(type) {
	case *proxypb.IfrtRequest_InitRequest:
		mem := int32(0)
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_InitResponse{InitResponse: &proxypb.InitResponse{
			SessionId: 77, PlatformName: "cpu", PlatformVersion: "fake", RuntimeType: "fake",
			AllDevices: []*proxypb.InitResponse_Device{
				{Id: 0, PlatformName: "cpu", DeviceKind: "cpu", MemoryIds: []int32{0}, DefaultMemoryId: &mem},
				{Id: 1, PlatformName: "cpu", DeviceKind: "cpu", MemoryIds: []int32{1}, DefaultMemoryId: proto.Int32(1)},
			},
			PrimaryDeviceIds:     []int32{1, 0},
			AddressableDeviceIds: []int32{0, 1},
			Memories: []*proxypb.InitResponse_Memory{
				{Id: 0, MemorySpaceKind: "device", DeviceIds: []int32{0}},
				{Id: 1, MemorySpaceKind: "device", DeviceIds: []int32{1}},
			},
		}}}
	case *proxypb.IfrtRequest_MakeArrayFromHostBufferRequest:
		hb := r.MakeArrayFromHostBufferRequest.GetHostBufferHandle()
		f.mu.Lock()
		defer f.mu.Unlock()
		for f.hostBuffers[hb] == nil {
			f.cond.Wait()
		}
		f.arrays[r.MakeArrayFromHostBufferRequest.GetArrayHandle()] = f.hostBuffers[hb]
		delete(f.hostBuffers, hb)
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_MakeArrayFromHostBufferResponse{
			MakeArrayFromHostBufferResponse: &proxypb.MakeArrayFromHostBufferResponse{ArrayHandle: r.MakeArrayFromHostBufferRequest.GetArrayHandle()},
		}}
	case *proxypb.IfrtRequest_CopyToHostBufferRequest:
		f.mu.Lock()
		defer f.mu.Unlock()
		data, ok := f.arrays[r.CopyToHostBufferRequest.GetArrayHandle()]
		if !ok {
			return errorResponse(proxypb.Code_NOT_FOUND, "unknown array")
		}
		f.hostBuffers[r.CopyToHostBufferRequest.GetHostBufferHandle()] = data
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyToHostBufferResponse{CopyToHostBufferResponse: &proxypb.CopyToHostBufferResponse{}}}
	case *proxypb.IfrtRequest_CheckValueReadyRequest:
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, h := range r.CheckValueReadyRequest.GetValueHandles() {
			if _, ok := f.arrays[h]; !ok {
				return errorResponse(proxypb.Code_NOT_FOUND, "unknown array")
			}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckValueReadyResponse{CheckValueReadyResponse: &proxypb.CheckValueReadyResponse{}}}
	case *proxypb.IfrtRequest_DestructArrayRequest:
		f.mu.Lock()
		defer f.mu.Unlock()
		f.destructed = append(f.destructed, r.DestructArrayRequest.GetArrayHandle())
		for _, h := range r.DestructArrayRequest.GetArrayHandle() {
			delete(f.arrays, h)
		}
		f.cond.Broadcast()
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DestructArrayResponse{DestructArrayResponse: &proxypb.DestructArrayResponse{}}}
	case *proxypb.IfrtRequest_DeleteArrayRequest:
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DeleteArrayResponse{
			DeleteArrayResponse: &proxypb.DeleteArrayResponse{DeletionFutureHandle: 1 << 48},
		}}
	case *proxypb.IfrtRequest_CheckFutureRequest:
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckFutureResponse{CheckFutureResponse: &proxypb.CheckFutureResponse{}}}
	}
	return errorResponse(proxypb.Code_UNIMPLEMENTED, "fake server: unimplemented request")
}

func (f *fakeServer) HostBufferStore(stream proxypb.GrpcIfrtService_HostBufferStoreServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	vals := md.Get(hostBufferMetadataKey)
	if len(vals) != 1 {
		return status.Error(codes.Internal, "missing host buffer metadata")
	}
	var m proxypb.GrpcHostBufferStoreMetadata
	if err := proto.Unmarshal([]byte(vals[0]), &m); err != nil {
		return status.Error(codes.DataLoss, err.Error())
	}
	if m.GetSessionId() != 77 {
		return status.Errorf(codes.NotFound, "unknown session %d", m.GetSessionId())
	}
	data := []byte{}
	var sizes []int
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		sizes = append(sizes, len(req.GetData()))
		data = append(data, req.GetData()...)
	}
	if int64(len(data)) != m.GetBufferSize() {
		return status.Errorf(codes.DataLoss, "got %d bytes, want %d", len(data), m.GetBufferSize())
	}
	if f.storeGate != nil {
		<-f.storeGate
	}
	f.mu.Lock()
	f.hostBuffers[m.GetHandle()] = data
	f.chunkSizes[m.GetHandle()] = sizes
	f.cond.Broadcast()
	f.mu.Unlock()
	return stream.SendAndClose(&proxypb.GrpcHostBufferStoreResponse{})
}

func (f *fakeServer) HostBufferLookup(req *proxypb.GrpcHostBufferLookupRequest, stream proxypb.GrpcIfrtService_HostBufferLookupServer) error {
	f.mu.Lock()
	data, ok := f.hostBuffers[req.GetHandle()]
	f.mu.Unlock()
	if !ok {
		return status.Error(codes.NotFound, "unknown host buffer")
	}
	// Chunks of another size than the client's, to check that it does not care.
	const chunk = 300 << 10
	for off := 0; off == 0 || off < len(data); off += chunk {
		if err := stream.Send(&proxypb.GrpcHostBufferLookupResponse{Data: data[off:min(off+chunk, len(data))]}); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeServer) HostBufferDelete(_ context.Context, req *proxypb.GrpcHostBufferDeleteRequest) (*proxypb.GrpcHostBufferDeleteResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.hostBuffers[req.GetHandle()]; !ok {
		return nil, status.Error(codes.NotFound, "unknown host buffer")
	}
	delete(f.hostBuffers, req.GetHandle())
	f.deletedHB = append(f.deletedHB, req.GetHandle())
	f.cond.Broadcast()
	return &proxypb.GrpcHostBufferDeleteResponse{}, nil
}

// waitFor waits until cond, checked under f.mu, holds.
func (f *fakeServer) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(defaultTestTimeout)
	f.mu.Lock()
	defer f.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		f.mu.Unlock()
		time.Sleep(time.Millisecond)
		f.mu.Lock()
	}
}
