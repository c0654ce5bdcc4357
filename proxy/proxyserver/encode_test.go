package proxyserver_test

import (
	"context"
	"math"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// Tests of issue 11's defect 3 (a response that does not encode ended the whole
// session) and of the codes of defect 8.

// badBytes is a backend whose compiles fail as the PJRT CPU plugin's do on bad
// bytecode (a message with bytes that are not UTF-8), or, for programs that
// start with "name", succeed with an executable whose name is not UTF-8.
type badBytes struct{ ifrt.Client }

type badName struct{ ifrt.LoadedExecutable }

func (badName) Name() string { return "exe\xff\xfe" }

func (b badBytes) Compile(ctx context.Context, p ifrt.Program, o *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if m, ok := p.(*ifrt.MLIRProgram); ok && string(m.Module[:4]) == "name" {
		exe, err := b.Client.Compile(ctx, &ifrt.MLIRProgram{Module: m.Module[4:]}, o)
		if err != nil {
			return nil, err
		}
		return badName{exe}, nil
	}
	return nil, ifrt.Errorf(ifrt.InvalidArgument, "cannot parse bytecode \xc3\x28 at offset 0")
}

func TestResponsesThatDoNotEncodeFailOnlyTheirRequest(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Backend = badBytes{c.Backend} })
	s := h.session(t)
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte("ML\xefR garbage")}, CompileOptions: compileOpts(t, 0)}}})
	wantErr(t, "a compile whose error is not UTF-8", resp, ifrt.ErrInvalidArgument, "cannot parse bytecode")
	if msg := resp.GetResponseMetadata().GetStatus().GetMessage(); !utf8.ValidString(msg) {
		t.Errorf("the error message %q is not valid UTF-8", msg)
	}
	alive(t, s)
	resp = s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte("name" + addMul)}, CompileOptions: compileOpts(t, 0)}}})
	wantErr(t, "a compile whose response is not UTF-8", resp, ifrt.ErrInternal, "cannot be encoded")
	alive(t, s)
	s.makeArray(1, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, h.single(0))
}

// rawCodec sends a []byte as it is.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

// TestGarbageIsInvalidArgument: bytes that are no request were INTERNAL, as if
// the server had failed.
func TestGarbageIsInvalidArgument(t *testing.T) {
	h := newHarness(t, nil)
	garbage := []byte{0x0f, 0xff, 0xff}
	ctx := ctxT(t)
	err := h.conn.Invoke(ctx, proxypb.GrpcIfrtService_GetVersion_FullMethodName, &garbage, new([]byte), grpc.ForceCodecV2(rawCodec{}))
	if !errorsIsCode(err, codes.InvalidArgument) {
		t.Errorf("GetVersion of garbage: %v, want INVALID_ARGUMENT", err)
	}
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	st, err := h.conn.NewStream(metadata.AppendToOutgoingContext(ctx, proxyserver.SessionMetadataKey, string(meta)),
		&proxypb.GrpcIfrtService_ServiceDesc.Streams[0], proxypb.GrpcIfrtService_IfrtSession_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SendMsg(&garbage); err != nil {
		t.Fatal(err)
	}
	if err := st.RecvMsg(new([]byte)); !errorsIsCode(err, codes.InvalidArgument) {
		t.Errorf("a session sent garbage: %v, want INVALID_ARGUMENT", err)
	}
	// Negative byte strides were UNIMPLEMENTED.
	s := h.session(t)
	req := makeArrayReq(t, 1, ifrt.F32, ifrt.Shape{4}, h.single(0))
	req.GetMakeArrayFromHostBufferRequest().ByteStrides = &proxypb.ByteStrides{Strides: []int64{-4}}
	wantErr(t, "negative byte strides", s.call(req), ifrt.ErrInvalidArgument, "not positive")
	// [INT_MIN, INT_MAX] negotiated SerDes 2147483647.
	wide := &proxypb.GrpcGetVersionRequest{
		MinVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: math.MinInt32, IfrtSerdesVersionNumber: math.MinInt32},
		MaxVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: math.MaxInt32, IfrtSerdesVersionNumber: math.MaxInt32},
	}
	v, err := h.client.GetVersion(ctx, wide)
	if err != nil || v.GetVersion().GetProtocolVersion() != wire.ProtocolMax || v.GetVersion().GetIfrtSerdesVersionNumber() != wire.SerDesMax {
		t.Errorf("GetVersion([INT_MIN, INT_MAX]) = %v, %v; want %d and SerDes %d", v, err, wire.ProtocolMax, wire.SerDesMax)
	}
}
