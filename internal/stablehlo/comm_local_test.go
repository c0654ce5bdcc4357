package stablehlo

import (
	"context"
	"testing"
)

// The rest of LocalGroup's contract is checked by communicatortest
// (communicator_test.go); this is what only an in-process group can say.
func TestLocalGroupRefusesBadPeers(t *testing.T) {
	g := NewLocalGroup(2)
	for _, peer := range []int{-1, 0, 2} {
		if err := g.Endpoint(0).Send(context.Background(), peer, Tag{Collective: 1}, nil); errorCode(err) != Internal {
			t.Errorf("Send to %d = %v, want Internal", peer, err)
		}
	}
}
