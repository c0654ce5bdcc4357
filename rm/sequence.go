package rm

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// The gang scheduler: one sequence number per worker per launch, so that
// launches whose workers overlap start in one order on all of them (see
// docs/cluster.md).

// HostRef names one host of one slice.
type HostRef struct{ Slice, Host int }

// sequenceState is a slot's numbering, for the worker incarnation it counts
// for.
type sequenceState struct {
	incarnation string
	last        uint64
}

type gangService struct {
	rmpb.UnimplementedGangSchedulerServer
	s *Server
}

func (g *gangService) Sequence(ctx context.Context, req *rmpb.SequenceRequest) (*rmpb.SequenceResponse, error) {
	seqs, incs, err := g.s.sequence(req.GetHosts())
	if err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.SequenceResponse{Sequences: seqs, Incarnations: incs}, nil
}

func (s *Server) sequence(hosts []*rmpb.HostRef) ([]uint64, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, nil, errShuttingDown()
	}
	slots := make([]*slot, len(hosts))
	seen := map[*slot]bool{}
	for i, h := range hosts {
		sl, hi := int(h.GetSliceIndex()), int(h.GetHostIndex())
		if sl < 0 || sl >= len(s.slots) || hi < 0 || hi >= len(s.slots[sl]) {
			return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "rm: no slice %d host %d", sl, hi)
		}
		slot := s.slots[sl][hi]
		if slot.state != StateLive {
			return nil, nil, ifrt.Errorf(ifrt.FailedPrecondition, "rm: slice %d host %d has no live worker", sl, hi)
		}
		if seen[slot] {
			return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "rm: slice %d host %d is named twice", sl, hi)
		}
		seen[slot] = true
		slots[i] = slot
	}
	seqs := make([]uint64, len(slots))
	incs := make([]string, len(slots))
	for i, sl := range slots {
		if sl.seq.incarnation != sl.info.Incarnation {
			sl.seq = sequenceState{incarnation: sl.info.Incarnation}
		}
		sl.seq.last++
		seqs[i] = sl.seq.last
		incs[i] = s.incarnation + "/" + sl.info.Incarnation
	}
	return seqs, incs, nil
}

// Sequence returns the gang scheduler's sequence numbers of one launch over
// hosts, one per host, and the numbering each belongs to (see
// rmpb.GangSchedulerServer). It does not retry.
func (c *Client) Sequence(ctx context.Context, hosts []HostRef) ([]uint64, []string, error) {
	req := &rmpb.SequenceRequest{Hosts: make([]*rmpb.HostRef, len(hosts))}
	for i, h := range hosts {
		req.Hosts[i] = &rmpb.HostRef{SliceIndex: int32(h.Slice), HostIndex: int32(h.Host)}
	}
	resp, err := rmpb.NewGangSchedulerClient(c.conn).Sequence(ctx, req)
	if err != nil {
		return nil, nil, rpc.CallError(ctx, "rm: ", err)
	}
	if len(resp.GetSequences()) != len(hosts) || len(resp.GetIncarnations()) != len(hosts) {
		return nil, nil, ifrt.Errorf(ifrt.Internal, "rm: %d sequence numbers for %d hosts", len(resp.GetSequences()), len(hosts))
	}
	return resp.GetSequences(), resp.GetIncarnations(), nil
}
