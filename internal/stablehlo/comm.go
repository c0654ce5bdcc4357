package stablehlo

import (
	"context"
	"fmt"
	"io"
)

// A Communicator is one participant's end of the data exchange of one SPMD
// execution: the processes of the program's replica × partition grid, each
// running Module.RunProcess with its own Communicator. Participants are
// numbered by their flattened id, replica*num_partitions + partition, as in
// the StableHLO specification.
//
// Every collective op (and every transfer the runtime adds at the boundary
// of a manual region) becomes point-to-point messages: a participant sends
// each peer the pieces that peer needs, straight from its own memory, and
// receives the pieces it needs; reductions happen at the receiver. No data
// passes through a third participant, so an implementation over a network
// needs one stream per ordered pair of participants and nothing else.
//
// # Contract
//
// Order. Between one sender and one receiver, messages are received in the
// order they were sent. A participant never has two Sends to the same peer
// in flight at once, and receives the messages of one peer in the order that
// peer sends them; messages of different peers may interleave freely. A
// FIFO stream per ordered pair therefore carries everything.
//
// Tags. Each message carries a Tag: the ordinal of the collective in the
// participant's execution and the message's ordinal between the pair within
// it. Recv names the tag and size it expects; a message with another tag or
// size means the participants' programs disagree (data-dependent control
// flow around a collective), and Recv must fail, never deliver it.
//
// Chunks. Recv writes a message's bytes to w in order, in one or more
// Write calls of any length (boundaries need not fall on elements), from
// the goroutine that called Recv and only before Recv returns. An
// implementation may pass the sender's memory straight to w (in process)
// or the frames of a stream as they arrive (network).
//
// Buffering. Send may return once data is queued or copied, or only when
// the receiver has consumed it; callers work with either. Send must not
// retain data after it returns.
//
// Failure. Done ends the participant's part: RunProcess calls it exactly
// once, with nil after a successful run or the error it failed with. After
// Done(err) with err != nil, every other participant's pending and later
// Send and Recv calls must fail with an Aborted *Error
// (NewError(Aborted, ...)) naming the failed participant, so that a failure
// anywhere reaches every participant, none waits for a peer that will never
// send, and FirstFailure can tell the cause from its echoes. A Recv
// from (or Send to) a participant that ended with Done(nil) before sending
// (or receiving) the message fails the same way. A network implementation
// must also treat a lost or silent peer as failed (heartbeats or a
// deadline), because a peer that is gone cannot call Done.
//
// Deadlines. Send and Recv return ctx.Err() when ctx ends first; the
// runtime bounds a whole execution with the context it gives RunProcess.
//
// Implementations. LocalGroup connects the participants of one process
// (the devices of one worker); Route joins it with a network
// implementation that reaches the devices of other workers, and
// Module.RunLocal runs one worker's processes that way.
// communicatortest.Run checks an implementation against this contract and
// communicatortest.Pipes is a reference one over byte streams.
//
// A Communicator serves one execution; its methods are called from one
// goroutine at a time per peer (Send may run concurrently with Recv and with
// Sends to other peers).
type Communicator interface {
	// Send transmits data to participant to as one message tagged tag.
	Send(ctx context.Context, to int, tag Tag, data []byte) error
	// Recv receives the next message from participant from, which must be
	// tagged tag and hold size bytes, writing its bytes to w.
	Recv(ctx context.Context, from int, tag Tag, size int, w io.Writer) error
	// Done ends this participant's part in the execution; err is nil after
	// success.
	Done(err error)
}

// Tag identifies a message within one execution.
type Tag struct {
	// Collective is the ordinal, from 1, of the collective the message
	// belongs to among those the participant executed. Every participant
	// executes the same collectives in the same order, so the ordinals agree.
	Collective uint64
	// Message is the ordinal, from 0, of the message among those the same
	// sender sends the same receiver in that collective.
	Message uint32
}

func (t Tag) String() string {
	return fmt.Sprintf("collective #%d message %d", t.Collective, t.Message)
}

// Process is one process of an SPMD execution: its position in the replica
// × partition grid and its Communicator.
type Process struct {
	Replica, Partition int
	// Comm carries the process's collectives; participants are numbered
	// replica*num_partitions + partition. It may be nil only for a program
	// with a single process.
	Comm Communicator
}
