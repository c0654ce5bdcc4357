package cluster

import (
	"context"
	"fmt"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/shardio"
)

var _ ifrt.Persister = (*Client)(nil)

// workerIO is the part of a persistence request one worker serves: its
// shardio program and, for writes, the shards it stores.
type workerIO struct {
	link  *link
	req   shardio.Request
	args  []ifrt.Array // writes: one per shard, in request order
	gen   uint64
	slots [][2]int // reads: (array, shard) each output fills
}

// WriteArrays stores each array with one shard of each distinct domain (a
// replicated array once), each written by the worker that holds it, all
// workers at once. The shard of the first domain also writes the metadata.
func (c *Client) WriteArrays(ctx context.Context, location string, names []string, arrays []ifrt.Array) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	if len(names) != len(arrays) {
		return ifrt.Errorf(ifrt.InvalidArgument, "cluster: %d names for %d arrays", len(names), len(arrays))
	}
	if err := uniqueNames(names); err != nil {
		return err
	}
	as, err := c.check().Arrays(arrays)
	if err != nil {
		return err
	}
	byLink := map[*link]*workerIO{}
	var order []*workerIO
	for i, a := range as {
		shards, err := a.live()
		if err != nil {
			return ifrt.Errorf(ifrt.CodeOf(err), "cluster: storing %s: %w", names[i], err)
		}
		chunks, err := chunkShape(a.ArraySpec)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		first := true
		for _, s := range shards {
			key := fmt.Sprint(s.domain)
			if seen[key] {
				continue
			}
			seen[key] = true
			w, err := c.workerIO(byLink, &order, s.place.link, location, true)
			if err != nil {
				return err
			}
			if s.gen != w.gen {
				return ifrt.Errorf(ifrt.DataLoss, "cluster: storing %s: the worker of slice %d host %d holding a shard was lost", names[i], w.link.key.slice, w.link.key.host)
			}
			dev, err := w.localDeviceID(s.place)
			if err != nil {
				return err
			}
			entry := w.entry(names[i], a.ArraySpec)
			entry.Chunks = chunks
			if first {
				// The entry is new: this shard is its first.
				entry.WriteMetadata, first = true, false
			}
			entry.Shards = append(entry.Shards, shardio.Shard{Domain: shardio.FromDomain(s.domain), Device: dev})
			w.args = append(w.args, s.array)
		}
	}
	return c.runIO(ctx, order)
}

// chunkShape is the chunk shape an array is stored with: its first shard's
// shape, as Orbax chunks a sharded array (a replicated one is one chunk).
func chunkShape(spec ifrt.ArraySpec) (ifrt.Shape, error) {
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil || len(domains) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: the shards of %v: %v", spec.Sharding, err)
	}
	chunks := domains[0].Shape()
	for i := range chunks {
		chunks[i] = max(chunks[i], 1)
	}
	return chunks, nil
}

// ReadArrays makes arrays of specs, each worker reading the shards of its own
// devices from the stored arrays, all workers at once.
func (c *Client) ReadArrays(ctx context.Context, location string, names []string, specs []ifrt.ArraySpec) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if len(names) != len(specs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: %d names for %d specs", len(names), len(specs))
	}
	if err := uniqueNames(names); err != nil {
		return nil, err
	}
	byLink := map[*link]*workerIO{}
	var order []*workerIO
	out := make([]*array, len(specs))
	for i, spec := range specs {
		domains, err := spec.Sharding.IndexDomains(spec.Shape)
		if err != nil {
			return nil, err
		}
		out[i] = &array{c: c, Described: backend.Described{ArraySpec: spec}, shards: make([]*shard, len(domains))}
		for k, d := range spec.Sharding.Devices() {
			p, ok := c.byID[d.ID]
			if !ok {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "cluster: device %d is not in the cluster", d.ID)
			}
			w, err := c.workerIO(byLink, &order, p.link, location, false)
			if err != nil {
				return nil, err
			}
			dev, err := w.localDeviceID(p)
			if err != nil {
				return nil, err
			}
			entry := w.entry(names[i], spec)
			entry.Shards = append(entry.Shards, shardio.Shard{Domain: shardio.FromDomain(domains[k]), Device: dev})
			w.slots = append(w.slots, [2]int{i, k})
			out[i].shards[k] = &shard{place: p, gen: w.gen, domain: domains[k]}
		}
	}
	var mu sync.Mutex
	err := c.runIO(ctx, order, func(w *workerIO, outs []ifrt.Array) {
		mu.Lock()
		defer mu.Unlock()
		for j, slot := range w.slots {
			out[slot[0]].shards[slot[1]].array = outs[j]
		}
	})
	arrays := make([]ifrt.Array, len(out))
	for i, a := range out {
		arrays[i] = a
	}
	if err != nil {
		for _, a := range out {
			for _, s := range a.shards {
				if s.array != nil {
					s.array.Delete()
				}
			}
		}
		return nil, err
	}
	return arrays, nil
}

// workerIO returns the part of the request for the worker of l.
func (c *Client) workerIO(byLink map[*link]*workerIO, order *[]*workerIO, l *link, location string, write bool) (*workerIO, error) {
	if w, ok := byLink[l]; ok {
		return w, nil
	}
	_, _, gen, err := l.session()
	if err != nil {
		return nil, err
	}
	w := &workerIO{link: l, gen: gen, req: shardio.Request{Location: location, Write: write}}
	byLink[l] = w
	*order = append(*order, w)
	return w, nil
}

// entry returns the request's entry for the array name, adding it.
func (w *workerIO) entry(name string, spec ifrt.ArraySpec) *shardio.Array {
	if n := len(w.req.Arrays); n > 0 && w.req.Arrays[n-1].Name == name {
		return &w.req.Arrays[n-1]
	}
	w.req.Arrays = append(w.req.Arrays, shardio.Array{Name: name, DType: spec.DType.String(), Shape: spec.Shape})
	return &w.req.Arrays[len(w.req.Arrays)-1]
}

func (w *workerIO) localDeviceID(p *placement) (int32, error) {
	client, _, _, err := w.link.session()
	if err != nil {
		return 0, err
	}
	d, err := w.link.localDevice(client, p.local)
	if err != nil {
		return 0, err
	}
	return int32(d.ID), nil
}

// runIO runs every worker's program at once; done receives each read's
// outputs. The first error is returned once all have finished.
func (c *Client) runIO(ctx context.Context, ws []*workerIO, done ...func(*workerIO, []ifrt.Array)) error {
	return parallel(len(ws), func(i int) error {
		w := ws[i]
		outs, err := w.run(ctx)
		if err != nil {
			return c.linkError(w.link, w.gen, err)
		}
		for _, f := range done {
			f(w, outs)
		}
		return nil
	})
}

func (w *workerIO) run(ctx context.Context) ([]ifrt.Array, error) {
	client, _, gen, err := w.link.session()
	if err != nil {
		return nil, err
	}
	if gen != w.gen {
		return nil, ifrt.Errorf(ifrt.DataLoss, "cluster: the worker of slice %d host %d was lost", w.link.key.slice, w.link.key.host)
	}
	data, err := shardio.Encode(w.req)
	if err != nil {
		return nil, err
	}
	exe, err := client.Compile(ctx, &ifrt.PluginProgram{Data: data}, nil)
	if err != nil {
		return nil, err
	}
	defer exe.Delete()
	res, err := exe.Execute(ctx, w.args, nil)
	if err != nil {
		return nil, err
	}
	if res.Status != nil {
		if err := res.Status.Await(ctx); err != nil {
			return nil, err
		}
	}
	if !w.req.Write {
		var n int
		for _, a := range w.req.Arrays {
			n += len(a.Shards)
		}
		if len(res.Outputs) != n {
			return nil, ifrt.Errorf(ifrt.Internal, "cluster: a worker read %d shards, want %d", len(res.Outputs), n)
		}
	}
	return res.Outputs, nil
}

// uniqueNames refuses a request that names one stored array twice.
func uniqueNames(names []string) error {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return ifrt.Errorf(ifrt.InvalidArgument, "cluster: the array %q is named twice", n)
		}
		seen[n] = true
	}
	return nil
}
