package proxyserver_test

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// TestCopyToHostBufferInline: a read that fits the request's inline_max_bytes
// (the OpenPathways extension) comes back in the response and stores no host
// buffer; a larger one, or one from a client that does not ask (jaxlib),
// goes through the store as before.
func TestCopyToHostBufferInline(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	data := iota32(64)
	s.makeArray(1, data, ifrt.F32, ifrt.Shape{64}, h.single(0))
	read := func(buf uint64, inline int64) *proxypb.CopyToHostBufferResponse {
		t.Helper()
		resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
			ArrayHandle: 1, HostBufferHandle: buf, InlineMaxBytes: inline}}})
		mustOK(t, resp)
		return resp.GetCopyToHostBufferResponse()
	}

	if got := read(2, int64(len(data))).GetInlineData(); !bytes.Equal(got, data) {
		t.Errorf("inline read = %d bytes, want the array's %d", len(got), len(data))
	}
	if _, _, err := s.lookup(2); grpcstatus.Code(err) != codes.NotFound {
		t.Errorf("lookup after an inline read: %v, want NOT_FOUND (nothing stored)", err)
	}
	// An empty array comes back inline too: present, with no bytes.
	s.makeArray(4, nil, ifrt.F32, ifrt.Shape{0, 4}, h.single(0))
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
		ArrayHandle: 4, HostBufferHandle: 5, InlineMaxBytes: 1}}})
	mustOK(t, resp)
	if got := resp.GetCopyToHostBufferResponse().InlineData; got == nil || len(got) != 0 {
		t.Errorf("inline read of an empty array = %v, want present and empty", got)
	}
	for _, inline := range []int64{0, int64(len(data)) - 1} {
		if got := read(3, inline); got.InlineData != nil {
			t.Errorf("inline_max_bytes %d: %d bytes inline, want none", inline, len(got.InlineData))
		}
		if got, _, err := s.lookup(3); err != nil || !bytes.Equal(got, data) {
			t.Errorf("inline_max_bytes %d: lookup = %d bytes, %v; want the array", inline, len(got), err)
		}
		if _, err := s.h.client.HostBufferDelete(ctxT(t), &proxypb.GrpcHostBufferDeleteRequest{SessionId: s.id, Handle: 3}); err != nil {
			t.Fatal(err)
		}
	}
}
