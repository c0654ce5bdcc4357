package worker

import (
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/worker/workerpb"
)

// TestExchangeFrameFitsPooledBuffer checks that a full frame with every
// field at its largest encodes within 1 MiB, grpc-go's largest pooled
// buffer (see exchangeChunk).
func TestExchangeFrameFitsPooledBuffer(t *testing.T) {
	fr := &workerpb.ExchangeFrame{LaunchId: math.MaxUint64, From: math.MaxInt32, To: math.MaxInt32,
		Collective: math.MaxUint64, Message: math.MaxUint32, Size: math.MaxInt64, Data: make([]byte, exchangeChunk)}
	if n := proto.Size(fr); n > 1<<20 {
		t.Errorf("a full exchange frame encodes in %d bytes, over 1 MiB", n)
	}
}
