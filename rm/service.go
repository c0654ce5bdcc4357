package rm

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// service implements rmpb.ResourceManagerServer over a Server, so that the
// RPC methods do not appear in Server's own method set.
type service struct {
	rmpb.UnimplementedResourceManagerServer
	s *Server
}

func registerService(r grpc.ServiceRegistrar, s *Server) {
	rmpb.RegisterResourceManagerServer(r, &service{s: s})
	rmpb.RegisterGangSchedulerServer(r, &gangService{s: s})
	rmpb.RegisterKeyValueServer(r, newKeyValueService(s))
	rmpb.RegisterSliceControlServer(r, &sliceService{s: s})
}

func (svc *service) RegisterWorker(ctx context.Context, req *rmpb.RegisterWorkerRequest) (*rmpb.RegisterWorkerResponse, error) {
	s := svc.s
	if err := validateRegister(s.it, s.cfg.InstanceCount, req); err != nil {
		s.log.Debug("registration refused", "slice", req.GetSliceIndex(), "host", req.GetHostIndex(), "address", req.GetAddress(), "error", err)
		return nil, rpc.ToStatus(err)
	}
	reg, err := s.register(workerInfoFromPB(req))
	if err != nil {
		s.log.Debug("registration refused", "slice", req.GetSliceIndex(), "host", req.GetHostIndex(), "address", req.GetAddress(), "error", err)
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.RegisterWorkerResponse{
		LeaseId:           reg.leaseID,
		HostIndex:         int32(reg.host),
		DeviceIds:         idsToPB(reg.ids),
		Epoch:             reg.epoch,
		RmIncarnation:     s.incarnation,
		HeartbeatInterval: durationpb.New(s.timeout / heartbeatsPerTimeout),
		HeartbeatTimeout:  durationpb.New(s.timeout),
	}, nil
}

type recvResult struct {
	req *rmpb.HeartbeatRequest
	err error
}

func (svc *service) Heartbeat(stream rmpb.ResourceManager_HeartbeatServer) error {
	s := svc.s
	ctx := stream.Context()
	// Receive on a goroutine so that shutdown and lease changes are noticed
	// while waiting for the worker.
	recvs := make(chan recvResult, 1)
	go func() {
		for {
			req, err := stream.Recv()
			select {
			case recvs <- recvResult{req, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var first *rmpb.HeartbeatRequest
	select {
	case <-s.quit:
		return rpc.ToStatus(errShuttingDown())
	case <-ctx.Done():
		return rpc.ToStatus(ctx.Err())
	case r := <-recvs:
		if errors.Is(r.err, io.EOF) {
			return nil
		} else if r.err != nil {
			return r.err
		}
		first = r.req
	}
	l, id, takeover, err := s.attach(first.GetLeaseId())
	if err != nil {
		return rpc.ToStatus(err)
	}
	s.log.Debug("heartbeat stream attached", "slice", l.slot.slice, "host", l.slot.host)

	req := first
	for {
		if req.GetLeaseId() != l.id {
			s.detach(l, id, "heartbeat stream switched leases")
			return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "rm: a heartbeat stream carries one lease (%#x), got %#x", l.id, req.GetLeaseId()))
		}
		epoch, ok := s.beat(l, id)
		if !ok {
			// The lease ended or another stream took it; the select below
			// picks the reason.
		} else if err := stream.Send(&rmpb.HeartbeatResponse{Epoch: epoch}); err != nil {
			s.detach(l, id, "heartbeat stream broke: "+err.Error())
			return err
		}
		select {
		case <-l.done:
			return rpc.ToStatus(l.err)
		case <-takeover:
			return rpc.ToStatus(ifrt.Errorf(ifrt.Aborted, "rm: another heartbeat stream took over lease %#x", l.id))
		case <-s.quit:
			return rpc.ToStatus(errShuttingDown())
		case <-ctx.Done():
			s.detach(l, id, "heartbeat stream broke: "+context.Cause(ctx).Error())
			return rpc.ToStatus(ctx.Err())
		case r := <-recvs:
			if r.err != nil {
				reason := "heartbeat stream broke: " + r.err.Error()
				if errors.Is(r.err, io.EOF) {
					reason = "the worker closed its heartbeat stream"
				}
				s.detach(l, id, reason)
				if errors.Is(r.err, io.EOF) {
					return nil
				}
				return r.err
			}
			req = r.req
		}
	}
}

func (svc *service) Watch(_ *rmpb.WatchRequest, stream rmpb.ResourceManager_WatchServer) error {
	s := svc.s
	w, snap, err := s.subscribe()
	if err != nil {
		return rpc.ToStatus(err)
	}
	defer s.unsubscribe(w)
	if err := stream.Send(eventToPB(Event{Type: EventSnapshot, Epoch: snap.Epoch, Cluster: snap})); err != nil {
		return err
	}
	ctx := stream.Context()
	for {
		select {
		case <-ctx.Done():
			return rpc.ToStatus(ctx.Err())
		case <-s.quit:
			return rpc.ToStatus(errShuttingDown())
		case <-w.dropped:
			return rpc.ToStatus(ifrt.Errorf(ifrt.ResourceExhausted, "rm: the watcher fell more than %d events behind; watch again", s.watchBuffer()))
		case e := <-w.ch:
			if err := stream.Send(eventToPB(e)); err != nil {
				return err
			}
		}
	}
}

func (svc *service) GetCluster(context.Context, *rmpb.GetClusterRequest) (*rmpb.GetClusterResponse, error) {
	return &rmpb.GetClusterResponse{Cluster: clusterToPB(svc.s.Cluster())}, nil
}
