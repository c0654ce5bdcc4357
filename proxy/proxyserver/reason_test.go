package proxyserver_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// TestSentinelReachesTheProxyClient: a backend error wrapping
// ifrt.ErrArrayDeleted arrived at a proxy client as INVALID_ARGUMENT alone.
// errors.Is now finds the sentinel on the client side.
func TestSentinelReachesTheProxyClient(t *testing.T) {
	h := newTCPHarness(t, func(c *proxyserver.Config) { c.Backend = deletedPuts{c.Backend} })
	ctx := ctxT(t)
	c, err := proxy.Dial(ctx, "grpc://"+h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil)
	if !errors.Is(err, ifrt.ErrArrayDeleted) || !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("the client got %v (code %v), want ErrArrayDeleted", err, ifrt.CodeOf(err))
	}
}

// deletedPuts is a backend whose every put fails as if it used a deleted array.
type deletedPuts struct{ ifrt.Client }

func (deletedPuts) MakeArrayFromHostBuffer(context.Context, []byte, ifrt.ArraySpec, *ifrt.HostBufferOptions) (ifrt.Array, error) {
	return nil, fmt.Errorf("test backend: %w", ifrt.ErrArrayDeleted)
}
