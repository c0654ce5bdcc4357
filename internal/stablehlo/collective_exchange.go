package stablehlo

import (
	"context"
	"io"
	"sync"
)

// exchange carries the messages of one collective over the process's
// Communicator. Messages to a peer go out in the order they were queued, on
// one goroutine per peer, so that no process blocks in Send while a peer
// waits for it to receive; receives run on the caller's goroutine in the
// order it asks for them. The first failure cancels the rest.
type exchange struct {
	ctx    context.Context
	cancel context.CancelFunc
	comm   Communicator
	seq    uint64
	depth  int // messages one peer may be queued in this collective

	queues map[int]chan []byte
	recvd  map[int]uint32
	wg     sync.WaitGroup

	mu  sync.Mutex
	err error
}

// newExchange starts collective number seq; at most depth messages go to
// any one peer.
func newExchange(ctx context.Context, comm Communicator, seq uint64, depth int) *exchange {
	ctx, cancel := context.WithCancel(ctx)
	return &exchange{ctx: ctx, cancel: cancel, comm: comm, seq: seq, depth: depth,
		queues: map[int]chan []byte{}, recvd: map[int]uint32{}}
}

func (x *exchange) fail(err error) {
	x.mu.Lock()
	if x.err == nil {
		x.err = err
	}
	x.mu.Unlock()
	x.cancel()
}

func (x *exchange) failed() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

// send queues data for peer to; data must stay unchanged until finish.
func (x *exchange) send(to int, data []byte) {
	q := x.queues[to]
	if q == nil {
		q = make(chan []byte, x.depth)
		x.queues[to] = q
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			var n uint32
			for data := range q {
				if err := x.comm.Send(x.ctx, to, Tag{Collective: x.seq, Message: n}, data); err != nil {
					x.fail(err)
					return
				}
				n++
			}
		}()
	}
	if len(q) == cap(q) {
		x.fail(internalf("collective #%d queues more than %d messages for participant %d", x.seq, x.depth, to))
		return
	}
	q <- data
}

// recv receives the next message of peer from, size bytes, into w.
func (x *exchange) recv(from int, size int, w io.Writer) error {
	if err := x.failed(); err != nil {
		return err
	}
	tag := Tag{Collective: x.seq, Message: x.recvd[from]}
	x.recvd[from]++
	if err := x.comm.Recv(x.ctx, from, tag, size, w); err != nil {
		// A failed Send cancels x.ctx: report that failure, not the
		// cancellation it caused.
		x.fail(err)
		return x.failed()
	}
	return nil
}

// sendOthers queues part(j) for every member j of group but me.
func (x *exchange) sendOthers(group []int, me int, part func(j int) []byte) {
	for j, peer := range group {
		if j != me {
			x.send(peer, part(j))
		}
	}
}

// recvArray receives the whole of dst from peer.
func (x *exchange) recvArray(from int, dst *array) error {
	return x.recv(from, dst.size()*dst.t.Elem.ByteSize(), copyInto(dst, 0))
}

// abandon drains the exchange after err, the failure in hand, and returns
// err: it is the one to report, not what the drain may say.
func (x *exchange) abandon(err error) error {
	_ = x.finish()
	return err
}

// finish waits until every queued message is sent and returns the first
// error of the collective.
func (x *exchange) finish() error {
	for _, q := range x.queues {
		close(q)
	}
	x.wg.Wait()
	x.cancel()
	return x.failed()
}
