package proxy

import (
	"bytes"
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// MakeArrayFromHostBuffer uploads data (HostBufferStore, in 1 MiB chunks) and,
// at the same time, asks the server to build the array from it
// (MakeArrayFromHostBufferRequest); as in jaxlib, the array's handle is the host
// buffer's. Sharded (not replicated) arrays go shard by shard, as in jaxlib
// (see makeArrayFromShards). By default the call returns once the server has
// answered, so data is no longer read afterwards, whatever opts.Semantics says;
// see WithAsyncDispatch for the other way.
func (c *Client) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if opts == nil {
		opts = &ifrt.HostBufferOptions{}
	}
	done := func() {}
	if f := opts.OnDoneWithHostBuffer; f != nil {
		var once sync.Once
		done = func() { once.Do(f) }
	}
	doneLater := false // the buffer is still being read when the call returns
	defer func() {
		if !doneLater {
			done()
		}
	}()
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if err := c.checkSpec(spec); err != nil {
		return nil, err
	}
	if err := ifrt.CheckHostBuffer(spec.DType, spec.Shape, opts.ByteStrides, len(data)); err != nil {
		return nil, err
	}
	if len(spec.Sharding.Devices()) > 1 && !spec.Sharding.IsFullyReplicated() {
		return c.makeArrayFromShards(ctx, data, spec, opts.ByteStrides)
	}
	ps, h, err := c.newResult(spec)
	if err != nil {
		return nil, err
	}
	// Dispatching asynchronously, the upload goes on after the call returns,
	// from a copy of data unless the caller keeps data intact until
	// OnDoneWithHostBuffer.
	upload, uctx := data, ctx
	if c.async {
		uctx = c.bgCtx
		if opts.Semantics == ifrt.ImmutableOnlyDuringCall {
			upload = bytes.Clone(data)
		}
	}
	stored := c.upload(uctx, []uint64{h}, [][]byte{upload})
	pending, callErr := c.dispatch(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArrayFromHostBufferRequest{
		MakeArrayFromHostBufferRequest: &proxypb.MakeArrayFromHostBufferRequest{
			Dtype:            ps.Dtype,
			Shape:            ps.Shape,
			Sharding:         ps.Sharding,
			HostBufferHandle: h,
			ByteStrides:      wire.ByteStridesToProto(opts.ByteStrides),
			ArrayHandle:      &h,
		},
	}})
	if c.async && callErr == nil {
		if opts.Semantics != ifrt.ImmutableOnlyDuringCall {
			doneLater = true
			c.afterUpload([]uint64{h}, stored, done)
		} else {
			c.afterUpload([]uint64{h}, stored, func() {})
		}
		a := c.newArray(h, spec)
		a.pending = pending
		return a, nil
	}
	// Wait for the upload: once the call returns, data is the caller's again.
	return c.finishMake(h, spec, callErr, pending, []uint64{h}, stored())
}

// upload starts uploading bufs[i] under handles[i], in parallel; the returned
// function waits for the uploads and returns their errors.
func (c *Client) upload(ctx context.Context, handles []uint64, bufs [][]byte) func() []error {
	errs := make([]error, len(bufs))
	var wg sync.WaitGroup
	for i, b := range bufs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.storeHostBuffer(ctx, handles[i], b)
		}()
	}
	return func() []error {
		wg.Wait()
		return errs
	}
}

// afterUpload waits, in the background, for uploads the caller did not wait
// for, then calls done; the server may wait for an upload that failed, so an
// empty buffer goes under its handle to make the array fail there instead.
func (c *Client) afterUpload(handles []uint64, wait func() []error, done func()) {
	finish := func() {
		errs := wait()
		done()
		if c.checkOpen() != nil {
			return
		}
		ctx, cancel := context.WithTimeout(c.bgCtx, hostBufferDeleteTimeout)
		defer cancel()
		for i, err := range errs {
			if err != nil {
				c.log.Debug("uploading a host buffer failed", "handle", handles[i], "error", err)
				_ = c.storeHostBuffer(ctx, handles[i], nil)
			}
		}
	}
	if !c.goBackground(finish) {
		go finish() // closing: the uploads end at once
	}
}

// dispatch sends a request that makes arrays under client handles. It waits for
// the response and returns its error, or, with WithAsyncDispatch, returns at once
// with a future for it.
func (c *Client) dispatch(ctx context.Context, req *proxypb.IfrtRequest) (*ifrt.Future, error) {
	if c.async {
		return c.send(ctx, req)
	}
	_, err := c.sess.call(ctx, req)
	return nil, err
}

// send sends req without waiting for its response, which resolves the
// returned future.
func (c *Client) send(ctx context.Context, req *proxypb.IfrtRequest) (*ifrt.Future, error) {
	f := c.sess.future(ctx, req)
	select {
	case <-f.Done(): // failed to send, or already answered
		return nil, f.Await(ctx)
	default:
		return f, nil
	}
}

// finishMake ends an array creation from host buffers: the array on success;
// otherwise the error, with the array handle destructed and, for each upload
// that failed while the server may still wait for it, an empty buffer stored
// under its handle so that the creation fails there instead of waiting forever.
func (c *Client) finishMake(h uint64, spec ifrt.ArraySpec, callErr error, pending *ifrt.Future, buffers []uint64, storeErrs []error) (ifrt.Array, error) {
	if callErr == nil {
		// The server made the array, so it had every buffer whole: a store call
		// that failed afterwards lost only its response (the connection
		// closing under it when the server drains).
		a := c.newArray(h, spec)
		a.pending = pending
		return a, nil
	}
	var storeErr error
	for _, err := range storeErrs {
		if err != nil {
			storeErr = err
			break
		}
	}
	if storeErr != nil {
		c.goBackground(func() {
			ctx, cancel := context.WithTimeout(c.bgCtx, hostBufferDeleteTimeout)
			defer cancel()
			for i, hb := range buffers {
				if storeErrs[i] != nil {
					_ = c.storeHostBuffer(ctx, hb, nil)
				}
			}
			c.destructHandle(h)
		})
		return nil, callErr
	}
	c.destructHandle(h)
	return nil, callErr
}

// makeArrayFromShards makes a sharded (not replicated) array the way jaxlib
// does, which servers whose backends build only single-device or replicated
// arrays from one host buffer support: each distinct shard is uploaded as a host
// buffer of its own, and one MakeArraysFromHostBufferShardsRequest says which
// shards each fills. The array's handle is the first buffer's.
func (c *Client) makeArrayFromShards(ctx context.Context, data []byte, spec ifrt.ArraySpec, byteStrides []int64) (ifrt.Array, error) {
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	elem := spec.DType.HostByteSize()
	dense := data
	if byteStrides != nil {
		n, err := spec.Shape.ByteSize(spec.DType)
		if err != nil {
			return nil, err
		}
		dense = make([]byte, n)
		ifrt.CopyStridedToDense(dense, data, spec.DType, spec.Shape, byteStrides)
	}
	as, err := wire.ArraySpecToProto(spec)
	if err != nil {
		return nil, err
	}
	// One buffer per distinct domain; replicas of a shard share it.
	var (
		bufs    [][]byte
		indices []*proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices
		protos  []*proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer
	)
	byDomain := map[string]int{}
	for i, dom := range domains {
		key := dom.String()
		j, ok := byDomain[key]
		if !ok {
			j = len(bufs)
			byDomain[key] = j
			bufs = append(bufs, ifrt.ExtractDomain(dense, elem, spec.Shape, dom))
			indices = append(indices, &proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{})
			protos = append(protos, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: as.Dtype, Shape: wire.ShapeToProto(dom.Shape())})
		}
		indices[j].Indices = append(indices[j].Indices, int64(i))
	}
	handles, err := c.newHandles(len(bufs))
	if err != nil {
		return nil, err
	}
	for i := range bufs {
		protos[i].HostBufferHandle = handles[i]
	}
	// The shards are copies: dispatching asynchronously, nobody waits for them
	// to go up.
	uctx := ctx
	if c.async {
		uctx = c.bgCtx
	}
	stored := c.upload(uctx, handles, bufs)
	pending, callErr := c.dispatch(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{
		MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
			Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{{
				AddressableShardIndices: indices,
				HostBuffers:             protos,
				ArraySpec:               as,
			}},
			ArrayHandles: handles[:1],
		},
	}})
	if c.async && callErr == nil {
		c.afterUpload(handles, stored, func() {})
		a := c.newArray(handles[0], spec)
		a.pending = pending
		return a, nil
	}
	return c.finishMake(handles[0], spec, callErr, pending, handles, stored())
}
