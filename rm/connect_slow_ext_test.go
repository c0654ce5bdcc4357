package rm_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// TestSlowConnection: a connection that takes longer to set up than the
// client's first reconnect delay (a TLS handshake across regions, a loaded
// machine) still serves the first call. The reconnect backoff must not be
// the connection's deadline.
func TestSlowConnection(t *testing.T) {
	ctx := testContext(t)
	var n network
	startRM(t, &n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
	slow := grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		select {
		case <-time.After(200 * time.Millisecond): // 40 times the first backoff below
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return n.dial(ctx, addr)
	})
	c, err := rm.NewClient("passthrough:///rm", rm.WithLogger(quiet),
		rm.WithDialOptions(slow), rm.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.KeyValue("g").TryGet(ctx, "k"); !errors.Is(err, ifrt.ErrNotFound) {
		t.Fatalf("the first call over a slow connection: %v, want NOT_FOUND (the key is missing)", err)
	}
}
