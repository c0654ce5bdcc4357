package proxyserver_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// TestClusterClientsOnly: a worker's server warns about a session that is not
// the cluster client's (a JAX client pointed at a worker's port), and not
// about the cluster client's.
func TestClusterClientsOnly(t *testing.T) {
	logs := &syncBuffer{}
	srv, _ := proxyservertest.OverGocpu(t, 2, proxyserver.Config{ClusterClientsOnly: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	defer srv.Close()

	const warning = "a client other than the Pathways cluster client"
	for _, tc := range []struct {
		name    string
		opts    []grpc.DialOption
		warning bool
	}{
		{"cluster client", []grpc.DialOption{rpc.ClusterClientDialOption()}, false},
		{"another client", nil, true},
	} {
		before := strings.Count(logs.String(), warning)
		opts := append([]grpc.DialOption{
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
			grpc.WithTransportCredentials(insecure.NewCredentials()),
		}, tc.opts...)
		conn, err := grpc.NewClient("passthrough:///bufnet", opts...)
		if err != nil {
			t.Fatal(err)
		}
		meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
		ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.SessionMetadataKey, string(meta)))
		stream, err := proxypb.NewGrpcIfrtServiceClient(conn).IfrtSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The session has started once its first request is answered.
		if err := stream.Send(&proxypb.IfrtRequest{RequestMetadata: &proxypb.RequestMetadata{OpId: 1}, Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(logs.String(), warning) > before; got != tc.warning {
			t.Errorf("%s: warned = %v, want %v; log:\n%s", tc.name, got, tc.warning, logs.String())
		}
		cancel()
		conn.Close()
	}
}
