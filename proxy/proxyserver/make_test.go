package proxyserver_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// bufferSizes records the size of every host buffer the server hands its
// backend.
type bufferSizes struct {
	ifrt.Client
	mu    sync.Mutex
	sizes []int
}

func (b *bufferSizes) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(data))
	b.mu.Unlock()
	return b.Client.MakeArrayFromHostBuffer(ctx, data, spec, opts)
}

// TestShardedPutNeverGathersTheArray: a device_put that arrives as one host
// buffer per shard (jaxlib's MakeArraysFromHostBufferShards) reaches the
// backend shard by shard, never as a dense copy of the whole array on the
// proxy; a replicated array's one buffer goes to the backend as it is. Both
// read back whole.
func TestShardedPutNeverGathersTheArray(t *testing.T) {
	var rec *bufferSizes
	h := newHarness(t, func(c *proxyserver.Config) {
		rec = &bufferSizes{Client: c.Backend}
		c.Backend = rec
	})
	s := h.session(t)
	all := h.devs(0, 1, 2, 3, 4, 5, 6, 7)
	grid, _ := ifrt.NewTiledSharding(all, 2, 4)
	replicated, _ := ifrt.NewHloSharding(all, "", ifrt.Replicated())
	halves, err := ifrt.Tiled([]int64{2, 1}, 8) // rows in two halves, each on four devices
	if err != nil {
		t.Fatal(err)
	}
	partial, _ := ifrt.NewHloSharding(all, "", halves)
	shape := ifrt.Shape{4, 8}
	full := iota32(32)
	dt, _ := wire.DTypeToProto(ifrt.F32)
	for i, c := range []struct {
		name     string
		sharding ifrt.Sharding
		buffers  int // how many host buffers the backend gets
	}{{"tiled 2x4", grid, 8}, {"rows halved, each half's buffer for four devices", partial, 8}, {"replicated, one buffer for all", replicated, 1}} {
		specP, err := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: c.sharding})
		if err != nil {
			t.Fatal(err)
		}
		spec := &proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{ArraySpec: specP}
		domains, _ := c.sharding.IndexDomains(shape)
		if c.sharding == replicated {
			handle := uint64(1000 * (i + 1))
			if err := s.store(handle, full); err != nil {
				t.Fatal(err)
			}
			spec.HostBuffers = append(spec.HostBuffers, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: dt, Shape: wire.ShapeToProto(shape), HostBufferHandle: handle})
			spec.AddressableShardIndices = append(spec.AddressableShardIndices, &proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{Indices: []int64{0, 1, 2, 3, 4, 5, 6, 7}})
		} else if c.sharding == partial {
			for half := range 2 {
				handle := uint64(1000*(i+1) + half)
				var indices []int64
				for k, d := range domains {
					if d[0].Start == int64(2*half) {
						indices = append(indices, int64(k))
					}
				}
				if err := s.store(handle, ifrt.ExtractDomain(full, 4, shape, domains[indices[0]])); err != nil {
					t.Fatal(err)
				}
				spec.HostBuffers = append(spec.HostBuffers, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{2, 8}), HostBufferHandle: handle})
				spec.AddressableShardIndices = append(spec.AddressableShardIndices, &proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{Indices: indices})
			}
		} else {
			for k, d := range domains {
				handle := uint64(1000*(i+1) + k)
				if err := s.store(handle, ifrt.ExtractDomain(full, 4, shape, d)); err != nil {
					t.Fatal(err)
				}
				spec.HostBuffers = append(spec.HostBuffers, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: dt, Shape: wire.ShapeToProto(d.Shape()), HostBufferHandle: handle})
				spec.AddressableShardIndices = append(spec.AddressableShardIndices, &proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{Indices: []int64{int64(k)}})
			}
		}
		rec.mu.Lock()
		rec.sizes = nil
		rec.mu.Unlock()
		arr := uint64(2000 * (i + 1))
		mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
			Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{spec}, ArrayHandles: []uint64{arr}}}}))
		rec.mu.Lock()
		sizes := rec.sizes
		rec.mu.Unlock()
		if len(sizes) != c.buffers {
			t.Errorf("%s: the backend got %d host buffers, want %d", c.name, len(sizes), c.buffers)
		}
		for _, n := range sizes {
			if c.sharding != replicated && n >= len(full) {
				t.Errorf("%s: the backend got a %d-byte buffer: the whole array, gathered on the proxy", c.name, n)
			}
		}
		// Read back through a replicated reshard.
		replSpec, _ := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: replicated})
		mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &proxypb.ReshardArraysRequest{
			ArrayHandles: []uint64{arr}, ArraySpecs: []*proxypb.ArraySpecProto{replSpec},
			CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{arr + 1}}}}))
		mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
			ArrayHandle: arr + 1, ResultHandle: arr + 2, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}))
		if got, err := s.fetch(arr+2, arr+3, nil); err != nil || !bytes.Equal(got, full) {
			t.Errorf("%s: read back %v, %v; want %v", c.name, f32s(got), err, f32s(full))
		}
	}
}
