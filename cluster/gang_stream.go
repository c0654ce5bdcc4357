package cluster

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker/workerpb"
)

// launchStreams holds one Gang.Launches stream per worker session, opened
// on a session's first gang launch and dropped when it breaks (the next
// launch opens another). A launch on a stream costs one small message each
// way instead of a unary call. The zero value is ready to use.
type launchStreams struct {
	mu        sync.Mutex
	bySession map[*proxy.Client]*launchStream
}

// launchStream is the client's side of one Launches stream: launches in
// flight by launch id, each waiting for its result.
type launchStream struct {
	streams *launchStreams
	client  *proxy.Client
	stream  workerpb.Gang_LaunchesClient
	end     context.CancelFunc

	sendMu sync.Mutex

	mu      sync.Mutex
	waiting map[uint64]launchWaiter
	err     error // why the stream broke; nil while it works
}

// launchWaiter is where a participant's result goes: its index in the
// launch and the launch's channel, which has room for every participant.
type launchWaiter struct {
	index   int
	results chan<- launchOutcome
}

type launchOutcome struct {
	index int
	err   error
}

// stream returns the session's launch stream, opening it over gang on first
// use.
func (ss *launchStreams) stream(client *proxy.Client, gang workerpb.GangClient) (*launchStream, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.bySession[client]; s != nil {
		return s, nil
	}
	ctx, end := context.WithCancel(context.Background())
	stream, err := gang.Launches(ctx)
	if err != nil {
		end()
		return nil, rpc.FromStatus(err)
	}
	s := &launchStream{streams: ss, client: client, stream: stream, end: end, waiting: map[uint64]launchWaiter{}}
	if ss.bySession == nil {
		ss.bySession = map[*proxy.Client]*launchStream{}
	}
	ss.bySession[client] = s
	go s.receive(ctx)
	return s, nil
}

// receive hands each result to its launch until the stream breaks, then
// fails every launch still waiting on it. The stream ends with the session.
func (s *launchStream) receive(ctx context.Context) {
	go func() {
		select {
		case <-s.client.Done():
			s.end()
		case <-ctx.Done():
		}
	}()
	for {
		res, err := s.stream.Recv()
		if err != nil {
			if err == io.EOF {
				err = ifrt.Errorf(ifrt.Unavailable, "cluster: the worker ended its launch stream")
			} else {
				err = rpc.FromStatus(err)
			}
			s.broke(err)
			return
		}
		s.mu.Lock()
		w, ok := s.waiting[res.GetLaunchId()]
		delete(s.waiting, res.GetLaunchId())
		s.mu.Unlock()
		if !ok {
			continue // a launch its client gave up
		}
		var lerr error
		if res.GetCode() != 0 {
			lerr = rpc.NewError(rpc.CodeFromNumber(uint32(res.GetCode())), res.GetMessage(), res.GetReason())
		}
		w.results <- launchOutcome{w.index, lerr}
	}
}

// broke fails the stream's launches with err and drops the stream.
func (s *launchStream) broke(err error) {
	s.end()
	s.streams.mu.Lock()
	if s.streams.bySession[s.client] == s {
		delete(s.streams.bySession, s.client)
	}
	s.streams.mu.Unlock()
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	waiting := s.waiting
	s.waiting = map[uint64]launchWaiter{}
	s.mu.Unlock()
	for _, w := range waiting {
		w.results <- launchOutcome{w.index, err}
	}
}

// start sends launch req, whose result goes to w.results, and says whether
// it went out.
func (s *launchStream) start(ctx context.Context, req *workerpb.LaunchRequest, w launchWaiter) bool {
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		w.results <- launchOutcome{w.index, err}
		return false
	}
	s.waiting[req.GetLaunchId()] = w
	s.mu.Unlock()
	msg := &workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Launch{Launch: req}}
	if d, ok := ctx.Deadline(); ok {
		msg.TimeoutNanos = max(int64(time.Until(d)), 1)
	}
	s.sendMu.Lock()
	err := s.stream.Send(msg)
	s.sendMu.Unlock()
	if err != nil {
		// io.EOF: the stream broke, and receive fails the launch with why.
		if !errors.Is(err, io.EOF) {
			s.broke(ifrt.Errorf(ifrt.Unavailable, "cluster: sending a launch: %v", rpc.FromStatus(err)))
		}
		return false
	}
	return true
}

// cancel tells the worker the launch is given up and stops waiting for it.
func (s *launchStream) cancel(launchID uint64) {
	s.mu.Lock()
	_, ok := s.waiting[launchID]
	delete(s.waiting, launchID)
	s.mu.Unlock()
	if !ok {
		return // done already, or the stream broke
	}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	_ = s.stream.Send(&workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Cancel{Cancel: launchID}})
}
