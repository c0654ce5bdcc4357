package stablehlo

import (
	"context"
	"io"
)

// Route returns participant self's Communicator when its peers are reached
// two ways: those for which isNear(peer) is true through near (the
// in-process LocalGroup of one worker's devices), the others through far (a
// network implementation reaching other workers). Done ends both, so a
// failure here reaches the local peers through near and the remote ones
// through far; a failure a peer reports on either side fails this
// participant's next exchange, and its own Done then carries it to the
// other side.
func Route(near, far Communicator, isNear func(peer int) bool) Communicator {
	return &routed{near: near, far: far, isNear: isNear}
}

type routed struct {
	near, far Communicator
	isNear    func(int) bool
}

func (r *routed) via(peer int) Communicator {
	if r.isNear(peer) {
		return r.near
	}
	return r.far
}

func (r *routed) Send(ctx context.Context, to int, tag Tag, data []byte) error {
	return r.via(to).Send(ctx, to, tag, data)
}

func (r *routed) Recv(ctx context.Context, from int, tag Tag, size int, w io.Writer) error {
	return r.via(from).Recv(ctx, from, tag, size, w)
}

func (r *routed) Done(err error) {
	r.near.Done(err)
	r.far.Done(err)
}
