package cluster_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestConnectErrorSaysWhere: a Connect that gives up says which resource
// manager it waited for and the last error it got from it.
func TestConnectErrorSaysWhere(t *testing.T) {
	ctx := testenv.Context(t, 300*time.Millisecond)
	refuse := grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
		return nil, errors.New("refused by the test")
	})
	_, err := cluster.Connect(ctx, "passthrough:///rm-that-is-down", cluster.WithDialOptions(refuse), cluster.WithLogger(quietLogger()))
	if err == nil {
		t.Fatal("Connect to a resource manager that is down succeeded")
	}
	for _, want := range []string{"passthrough:///rm-that-is-down", "refused by the test"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Connect error %q does not say %q", err, want)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) || ifrt.CodeOf(err) != ifrt.Unavailable {
		t.Errorf("Connect error %v (code %v), want the deadline and UNAVAILABLE", err, ifrt.CodeOf(err))
	}
}
