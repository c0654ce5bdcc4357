package worker

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/shardio"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/zarr"
)

// shardStore serves the shardio plugin program: the worker writes and reads
// its own shards of stored arrays, straight to and from storage. It keeps
// one open storage per bucket (a Cloud Storage client is costly to make) until
// the worker closes.
type shardStore struct {
	maxShardBytes int64 // bounds one shard's host copy (Config.MaxGatherBytes)

	mu      sync.Mutex
	buckets map[string]*storage.Location // by scheme://host
}

func newShardStore(maxShardBytes int64) *shardStore {
	return &shardStore{maxShardBytes: maxShardBytes, buckets: map[string]*storage.Location{}}
}

// shardBytes is the size of a shard's host copy, refused past the limit.
func (st *shardStore) shardBytes(dt ifrt.DType, domain ifrt.IndexDomain) (int64, error) {
	n, err := domain.Shape().ByteSize(dt)
	if err != nil {
		return 0, err
	}
	if n > st.maxShardBytes {
		return 0, ifrt.Errorf(ifrt.ResourceExhausted, "%s: a shard of %d bytes; this worker stores at most %d at once", shardio.Key, n, st.maxShardBytes)
	}
	return n, nil
}

func (st *shardStore) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, l := range st.buckets {
		l.Close()
	}
	st.buckets = map[string]*storage.Location{}
}

// location opens the location of a URL, under the cached root of its bucket.
func (st *shardStore) location(ctx context.Context, raw string) (*storage.Location, error) {
	u, err := storage.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	root := u.Scheme + "://" + u.Host + "/"
	st.mu.Lock()
	defer st.mu.Unlock()
	l, ok := st.buckets[root]
	if !ok {
		if l, err = storage.Open(ctx, root); err != nil {
			return nil, err
		}
		st.buckets[root] = l
	}
	if dir := strings.Trim(u.Path, "/"); dir != "" {
		return l.Sub(dir)
	}
	return l, nil
}

// handler compiles a shardio program for backend.
func (st *shardStore) handler(ctx context.Context, backend ifrt.Client, body json.RawMessage) (*proxyserver.PluginExecutable, error) {
	req, err := shardio.Decode(body)
	if err != nil {
		return nil, err
	}
	type job struct {
		arr    zarr.Array
		name   string
		shard  shardio.Shard
		device *ifrt.Device
		meta   bool // write the array's metadata with this shard
	}
	var jobs []job
	arrays := make([]zarr.Array, len(req.Arrays))
	for i, a := range req.Arrays {
		dt, err := ifrt.ParseDType(a.DType)
		if err != nil {
			return nil, err
		}
		arrays[i] = zarr.Array{DType: dt, Shape: a.Shape, Chunks: a.Chunks, Compressed: true}
		if !req.Write {
			arrays[i].Chunks = a.Shape // validated against the stored metadata at run time
		}
		if err := arrays[i].Shape.Validate(); err != nil {
			return nil, err
		}
		if req.Write {
			if err := arrays[i].Validate(); err != nil {
				return nil, err
			}
		}
		for k, s := range a.Shards {
			d, err := backend.LookupDevice(ifrt.DeviceID(s.Device))
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, job{arr: arrays[i], name: a.Name, shard: s, device: d, meta: a.WriteMetadata && k == 0})
		}
	}
	loc, err := st.location(ctx, req.Location)
	if err != nil {
		return nil, err
	}
	if req.Write {
		return &proxyserver.PluginExecutable{Name: "shard_write", Execute: func(ctx context.Context, args []ifrt.Array) ([]ifrt.Array, error) {
			if len(args) != len(jobs) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "%s: %d arrays for %d shards", shardio.Key, len(args), len(jobs))
			}
			return nil, storage.Parallel(ctx, len(jobs), func(ctx context.Context, i int) error {
				j := jobs[i]
				domain := j.shard.IndexDomain()
				if a := args[i]; a.DType() != j.arr.DType || !a.Shape().Equal(domain.Shape()) {
					return ifrt.Errorf(ifrt.InvalidArgument, "%s: shard %d of %s is %v%v, want %v%v", shardio.Key, i, j.name, a.DType(), a.Shape(), j.arr.DType, domain.Shape())
				}
				n, err := st.shardBytes(j.arr.DType, domain)
				if err != nil {
					return err
				}
				data := make([]byte, n)
				if err := args[i].CopyToHostBuffer(ctx, data, nil); err != nil {
					return err
				}
				if j.meta {
					if err := zarr.WriteMetadata(ctx, loc, j.name, j.arr); err != nil {
						return err
					}
				}
				return zarr.WriteRegion(ctx, loc, j.name, j.arr, domain, data)
			})
		}}, nil
	}
	return &proxyserver.PluginExecutable{Name: "shard_read", Execute: func(ctx context.Context, _ []ifrt.Array) ([]ifrt.Array, error) {
		stored := make([]zarr.Array, len(req.Arrays))
		err := storage.Parallel(ctx, len(req.Arrays), func(ctx context.Context, i int) (err error) {
			a := req.Arrays[i]
			if stored[i], err = zarr.ReadMetadata(ctx, loc, a.Name); err != nil {
				return err
			}
			if stored[i].DType != arrays[i].DType || !stored[i].Shape.Equal(arrays[i].Shape) {
				return ifrt.Errorf(ifrt.FailedPrecondition, "%s/%s is stored as %v%v, not %v%v", loc, a.Name, stored[i].DType, stored[i].Shape, arrays[i].DType, arrays[i].Shape)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		byName := map[string]zarr.Array{}
		for i, a := range req.Arrays {
			byName[a.Name] = stored[i]
		}
		outs := make([]ifrt.Array, len(jobs))
		err = storage.Parallel(ctx, len(jobs), func(ctx context.Context, i int) error {
			j := jobs[i]
			domain := j.shard.IndexDomain()
			n, err := st.shardBytes(j.arr.DType, domain)
			if err != nil {
				return err
			}
			data := make([]byte, n)
			if err := zarr.ReadRegion(ctx, loc, j.name, byName[j.name], domain, data); err != nil {
				return err
			}
			outs[i], err = backend.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{
				DType: j.arr.DType, Shape: domain.Shape(), Sharding: ifrt.NewSingleDeviceSharding(j.device, ""),
			}, nil)
			return err
		})
		if err != nil {
			for _, a := range outs {
				if a != nil {
					a.Delete()
				}
			}
			return nil, err
		}
		return outs, nil
	}}, nil
}
