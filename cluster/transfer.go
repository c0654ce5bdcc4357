package cluster

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker/workerpb"
)

// checkSpec validates spec and that its devices are the cluster's.
func (c *Client) checkSpec(spec ifrt.ArraySpec) ([]*placement, []ifrt.IndexDomain, error) {
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	err := backend.CheckSharding("cluster", spec.Sharding, func(id ifrt.DeviceID) *ifrt.Device {
		if p := c.byID[id]; p != nil {
			return p.device
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	places := make([]*placement, len(spec.Sharding.Devices()))
	for i, d := range spec.Sharding.Devices() {
		places[i] = c.byID[d.ID]
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	return places, domains, err
}

// parallel runs f(i) for i in [0, n) concurrently and returns the first error.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return firstError(errs)
}

// localSpec is the single-device spec of a shard on its worker.
func localSpec(dtype ifrt.DType, domain ifrt.IndexDomain, dev *ifrt.Device, kind ifrt.MemoryKind) ifrt.ArraySpec {
	return ifrt.ArraySpec{DType: dtype, Shape: domain.Shape(), Sharding: ifrt.NewSingleDeviceSharding(dev, kind)}
}

func (c *Client) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if opts != nil && opts.OnDoneWithHostBuffer != nil {
		defer opts.OnDoneWithHostBuffer()
	}
	dense, err := c.check().HostBuffer(data, spec, opts)
	if err != nil {
		return nil, err
	}
	places, domains, err := c.checkSpec(spec)
	if err != nil {
		return nil, err
	}
	// Upload each distinct domain once per worker; other devices of that worker
	// that hold the same domain get copies made on the worker.
	type upload struct {
		first int   // the device position the bytes go to
		rest  []int // positions on the same worker holding the same domain
	}
	uploads := map[[2]any]*upload{}
	var order []*upload
	for i, p := range places {
		key := [2]any{p.link, domains[i].String()}
		if u, ok := uploads[key]; ok {
			u.rest = append(u.rest, i)
			continue
		}
		u := &upload{first: i}
		uploads[key] = u
		order = append(order, u)
	}
	shards := make([]*shard, len(places))
	elem := spec.DType.HostByteSize()
	kind := spec.Sharding.MemoryKind()
	err = parallel(len(order), func(k int) error {
		u := order[k]
		p := places[u.first]
		client, _, gen, dev, err := p.session()
		if err != nil {
			return err
		}
		// The whole array goes as it is; a part is a copy of our own. Either
		// may be adopted (the worker connection then uploads it without a
		// copy of its own) when nothing writes to it again.
		part, partOpts := dense, adoptedOpts(opts)
		if !slices.Equal(domains[u.first], ifrt.FullDomain(spec.Shape)) {
			part, partOpts = ifrt.ExtractDomain(dense, elem, spec.Shape, domains[u.first]), adopted
		}
		a, err := client.MakeArrayFromHostBuffer(ctx, part, localSpec(spec.DType, domains[u.first], dev, kind), partOpts)
		if err != nil {
			return c.linkError(p.link, gen, err)
		}
		first := &shard{place: p, gen: gen, array: a, domain: domains[u.first]}
		shards[u.first] = first
		for _, i := range u.rest {
			s, err := c.copyShard(ctx, first, places[i], domains[i], kind)
			if err != nil {
				return err
			}
			shards[i] = s
		}
		return nil
	})
	if err != nil {
		deleteShards(shards)
		return nil, err
	}
	return &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: shards}, nil
}

// adopted are the options of a host buffer that nothing writes to again.
var adopted = &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}

// adoptedOpts passes adoption on: a caller's buffer given as ImmutableZeroCopy
// without OnDoneWithHostBuffer stays intact for good (and a dense copy of a
// strided one is ours).
func adoptedOpts(opts *ifrt.HostBufferOptions) *ifrt.HostBufferOptions {
	if opts != nil && opts.Semantics == ifrt.ImmutableZeroCopy && opts.OnDoneWithHostBuffer == nil {
		return adopted
	}
	return nil
}

// linkError turns an error from a worker into DataLoss when the worker has gone.
// An UNAVAILABLE error may come back before the link has seen its session end;
// the link then waits briefly for that and goes down with it.
func (c *Client) linkError(l *link, gen uint64, err error) error {
	if err == nil {
		return nil
	}
	if ifrt.CodeOf(err) == ifrt.Unavailable {
		l.mu.Lock()
		client := l.client
		if l.gen != gen {
			client = nil
		}
		l.mu.Unlock()
		if client != nil {
			select {
			case <-client.Done():
				l.lose(gen, client.Err())
			case <-time.After(sessionEndGrace):
			}
		}
	}
	if lost := l.current(gen); lost != nil {
		return lost
	}
	return err
}

// sessionEndGrace is how long linkError waits for a worker session to end after
// one of its calls failed with UNAVAILABLE.
const sessionEndGrace = time.Second

func deleteShards(shards []*shard) {
	for _, s := range shards {
		if s != nil {
			s.array.Delete()
		}
	}
}

// copyShard copies src whole to device dst, where it stands for domain of the new
// array. A copy within one worker is the worker's own CopyArrays; across workers,
// the destination worker fetches the bytes from the source worker.
func (c *Client) copyShard(ctx context.Context, src *shard, dst *placement, domain ifrt.IndexDomain, kind ifrt.MemoryKind) (*shard, error) {
	if err := src.check(); err != nil {
		return nil, err
	}
	if src.place.link == dst.link {
		client, _, gen, dev, err := dst.session()
		if err != nil {
			return nil, err
		}
		out, err := client.CopyArrays(ctx, []ifrt.Array{src.array}, ifrt.DeviceList{dev}, &kind, ifrt.AlwaysCopy)
		if err != nil {
			return nil, c.linkError(dst.link, gen, err)
		}
		return &shard{place: dst, gen: gen, array: out[0], domain: domain}, nil
	}
	relabelled := *src
	relabelled.domain = domain
	return c.gather(ctx, src.array.DType(), dst, domain, kind, []*shard{&relabelled})
}

// gather makes a shard holding domain on dst from the pieces of sources that
// overlap it: the worker of dst fetches them from their workers.
func (c *Client) gather(ctx context.Context, dtype ifrt.DType, dst *placement, domain ifrt.IndexDomain, kind ifrt.MemoryKind, sources []*shard) (*shard, error) {
	client, peer, gen, dev, err := dst.session()
	if err != nil {
		return nil, err
	}
	handle, err := client.ReserveHandle()
	if err != nil {
		return nil, err
	}
	req := &workerpb.GatherRequest{
		Result:     &workerpb.ArrayRef{SessionId: client.SessionID(), SessionToken: client.SessionToken(), Handle: uint64(handle)},
		Dtype:      int32(dtype),
		Domain:     wireDomain(domain),
		DeviceId:   int32(dev.ID),
		MemoryKind: string(kind),
	}
	for _, s := range sources {
		if _, ok := backend.Intersect(s.domain, domain); !ok {
			continue
		}
		srcClient, _, srcGen, err := s.place.link.session()
		if err != nil {
			return nil, err
		}
		if srcGen != s.gen {
			return nil, s.check()
		}
		var h proxy.ArrayHandle
		if !s.array.As(&h) {
			return nil, ifrt.Errorf(ifrt.Internal, "cluster: a shard on slice %d host %d has no proxy handle", s.place.link.key.slice, s.place.link.key.host)
		}
		// The request that makes the piece's array may still be on its way to
		// its worker, overtaken by this gather: the worker waits for it.
		ref := &workerpb.ArrayRef{SessionId: srcClient.SessionID(), SessionToken: srcClient.SessionToken(), Handle: uint64(h), AfterOpId: srcClient.LastOpID()}
		piece := &workerpb.Piece{Array: ref, Domain: wireDomain(s.domain)}
		if s.place.link != dst.link {
			piece.WorkerAddress = s.place.link.address()
		}
		req.Pieces = append(req.Pieces, piece)
	}
	if _, err := peer.Gather(ctx, req); err != nil {
		return nil, c.linkError(dst.link, gen, rpc.FromStatus(err))
	}
	a := client.AdoptArray(handle, localSpec(dtype, domain, dev, kind))
	return &shard{place: dst, gen: gen, array: a, domain: domain}, nil
}

func (l *link) address() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addr
}

func wireDomain(d ifrt.IndexDomain) *workerpb.Domain {
	w := &workerpb.Domain{Origin: make([]int64, len(d)), Shape: make([]int64, len(d))}
	for i, r := range d {
		w.Origin[i], w.Shape[i] = r.Start, r.Len()
	}
	return w
}

// place makes the shards of a new array with the given placements and domains from
// the shards of an existing one: a shard with the same domain is copied whole
// (preferring one on the same worker); any other domain is gathered from the
// overlapping shards.
func (c *Client) place(ctx context.Context, dtype ifrt.DType, kind ifrt.MemoryKind, src []*shard, places []*placement, domains []ifrt.IndexDomain) ([]*shard, error) {
	out := make([]*shard, len(places))
	err := parallel(len(places), func(i int) error {
		var match *shard
		for _, s := range src {
			if slices.Equal(s.domain, domains[i]) && (match == nil || s.place.link == places[i].link && match.place.link != places[i].link) {
				match = s
			}
		}
		var err error
		if match != nil {
			out[i], err = c.copyShard(ctx, match, places[i], domains[i], kind)
		} else {
			out[i], err = c.gather(ctx, dtype, places[i], domains[i], kind, src)
		}
		return err
	})
	if err != nil {
		deleteShards(out)
		return nil, err
	}
	return out, nil
}
