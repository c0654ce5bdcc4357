package proxyserver_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// failableBackend is a gocpu client that can fail as a whole, as the cluster
// client does when it loses more slices than it tolerates.
type failableBackend struct {
	*gocpu.Client
	failed   chan struct{}
	failOnce sync.Once
	closed   chan struct{}
}

func (b *failableBackend) Failed() <-chan struct{} { return b.failed }
func (b *failableBackend) Err() error {
	select {
	case <-b.failed:
		return ifrt.Errorf(ifrt.Unavailable, "test backend: the session has failed")
	default:
		return nil
	}
}
func (b *failableBackend) fail() { b.failOnce.Do(func() { close(b.failed) }) }
func (b *failableBackend) Close() error {
	select {
	case <-b.closed:
	default:
		close(b.closed)
	}
	return b.Client.Close()
}

func TestSessionBackends(t *testing.T) {
	var mu sync.Mutex
	var opened []*failableBackend
	h := newHarness(t, func(c *proxyserver.Config) {
		c.Backend = nil
		c.SessionBackend = func(ctx context.Context, _ *slog.Logger) (ifrt.Client, error) {
			g, err := gocpu.New(gocpu.Config{Devices: 4})
			if err != nil {
				return nil, err
			}
			b := &failableBackend{Client: g, failed: make(chan struct{}), closed: make(chan struct{})}
			mu.Lock()
			opened = append(opened, b)
			mu.Unlock()
			return b, nil
		}
	})
	s1, s2 := h.session(t), h.session(t)
	if n := len(s1.init.GetAllDevices()); n != 4 {
		t.Fatalf("Init lists %d devices, want the session backend's 4", n)
	}
	mu.Lock()
	b1, b2 := opened[0], opened[1]
	mu.Unlock()
	put := func(s *sess) *proxypb.IfrtResponse {
		return s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{}}})
	}
	mustOK(t, put(s1))

	// The first session's backend fails: its requests fail with the reason from
	// then on, its backend is closed, and the other session goes on.
	b1.fail()
	ctx := ctxT(t)
	for {
		if status(put(s1)) != nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("requests of a session whose backend failed still succeed")
		}
	}
	wantErr(t, "a request after the backend failed", put(s1), ifrt.ErrUnavailable, "the session has failed")
	select {
	case <-b1.closed:
	case <-ctx.Done():
		t.Fatal("the failed session's backend was not closed")
	}
	mustOK(t, put(s2))

	// Ending a session closes its backend.
	s2.close()
	select {
	case <-b2.closed:
	case <-ctx.Done():
		t.Fatal("the ended session's backend was not closed")
	}
}

func TestSessionBackendError(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) {
		c.Backend = nil
		c.SessionBackend = func(context.Context, *slog.Logger) (ifrt.Client, error) {
			return nil, ifrt.Errorf(ifrt.Unavailable, "test: the cluster is not up")
		}
	})
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	stream, err := h.client.IfrtSession(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.SessionMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	if !errors.Is(rpc.FromStatus(err), ifrt.ErrUnavailable) {
		t.Fatalf("the session stream ended with %v, want UNAVAILABLE from SessionBackend", err)
	}
	if h.srv.Sessions() != 0 {
		t.Errorf("%d sessions open after one failed to start", h.srv.Sessions())
	}
}
