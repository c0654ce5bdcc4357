package rpc_test

import (
	"net"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
)

// TestListenFailureIsUnavailable: an address that cannot be listened on is
// UNAVAILABLE, and nothing is served.
func TestListenFailureIsUnavailable(t *testing.T) {
	served := false
	err := rpc.ListenAndServe("no-such-host.invalid:x", func(net.Listener) error { served = true; return nil })
	if ifrt.CodeOf(err) != ifrt.Unavailable || served {
		t.Errorf("ListenAndServe = %v (code %v), served %t; want UNAVAILABLE, nothing served", err, ifrt.CodeOf(err), served)
	}
}
