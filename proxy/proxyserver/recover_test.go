package proxyserver_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// TestHandlerPanicIsInternal: a panic in a handler (here the IfrtSession
// handler, in the session backend it opens) fails that call with INTERNAL,
// logged with its stack, and the server goes on serving.
func TestHandlerPanicIsInternal(t *testing.T) {
	var calls atomic.Int32
	var backend ifrt.Client
	h := newHarness(t, func(c *proxyserver.Config) {
		backend, c.Backend = c.Backend, nil
		c.SessionBackend = func(context.Context, *slog.Logger) (ifrt.Client, error) {
			if calls.Add(1) == 1 {
				panic("test: a bug in the session backend")
			}
			return sharedBackend{backend}, nil
		}
	})
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	stream, err := h.client.IfrtSession(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.SessionMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); !errors.Is(rpc.FromStatus(err), ifrt.ErrInternal) {
		t.Fatalf("the session whose handler panicked ended with %v, want INTERNAL", err)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "rpc handler panicked") || !strings.Contains(logs, "goroutine") {
		t.Errorf("the panic was not logged with its stack:\n%s", logs)
	}
	s := h.session(t) // the server goes on
	s.close()
}

// sharedBackend keeps the harness's backend open when a session closes its own.
type sharedBackend struct{ ifrt.Client }

func (sharedBackend) Close() error { return nil }
