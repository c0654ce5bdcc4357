package proxy

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// ArrayHandle is the number that names an array in the session with the server.
// Array.As sets a *ArrayHandle.
type ArrayHandle uint64

// isDeletedTimeout bounds the IsArrayDeleted request IsDeleted may need.
const isDeletedTimeout = 30 * time.Second

// array is an array on the server, named by a client-generated handle.
type array struct {
	ifrt.UnimplementedArray
	c      *Client
	handle uint64
	spec   ifrt.ArraySpec

	deleted atomic.Bool
	// mayBeDonated is set when an execution may have donated the array without
	// the client knowing for sure (the server did not say which inputs its
	// program donates); IsDeleted then asks the server.
	mayBeDonated atomic.Bool

	// pending, with WithAsyncDispatch, resolves with the error of the request
	// that made the array; nil when the client waited for it.
	pending *ifrt.Future

	cleanup runtime.Cleanup // destructs the handle once the array is unreachable
}

var _ ifrt.Array = (*array)(nil)

// newArray wraps handle. When the array becomes unreachable, a cleanup queues a
// DestructArray for its handle (batched with others), so the server drops it.
func (c *Client) newArray(handle uint64, spec ifrt.ArraySpec) *array {
	a := &array{c: c, handle: handle, spec: spec}
	a.cleanup = runtime.AddCleanup(a, c.destructHandle, handle)
	return a
}

// release destructs the handle now, for arrays the client made for its own use.
func (a *array) release() {
	a.cleanup.Stop()
	a.c.destructHandle(a.handle)
}

// destructHandle queues a DestructArray for handle unless the session is over
// (the server then has freed everything already).
func (c *Client) destructHandle(handle uint64) {
	if c.checkOpen() != nil {
		return
	}
	c.sess.destruct(handle)
}

func (a *array) DType() ifrt.DType       { return a.spec.DType }
func (a *array) Shape() ifrt.Shape       { return a.spec.Shape }
func (a *array) Sharding() ifrt.Sharding { return a.spec.Sharding }
func (a *array) Layout() *ifrt.Layout    { return a.spec.Layout }
func (a *array) Spec() ifrt.ArraySpec    { return a.spec }

// As sets *target to the array's handle when target is a *ArrayHandle, or to the
// client when it is a **Client.
func (a *array) As(target any) bool {
	switch p := target.(type) {
	case *ArrayHandle:
		*p = ArrayHandle(a.handle)
		return true
	case **Client:
		*p = a.c
		return true
	}
	return false
}

// usable returns the error of using a: the client's if it is closed, then
// ErrArrayDeleted if a was deleted or donated.
func (a *array) usable() error {
	if err := a.c.checkOpen(); err != nil {
		return err
	}
	if a.deleted.Load() {
		return ifrt.ErrArrayDeleted
	}
	return nil
}

// CopyToHostBuffer reads the array as jaxlib does, which any server supports:
// a single-device array directly; a replicated one through its
// FullyReplicatedShard; a sharded one through DisassembleArray, reading the
// shards in parallel and assembling them here. Each single-device read is a
// CopyToHostBufferRequest, a HostBufferLookup of the bytes and a
// HostBufferDelete that is not waited for.
func (a *array) CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error {
	if err := a.usable(); err != nil {
		return err
	}
	devs := a.spec.Sharding.Devices()
	for _, d := range devs {
		if !a.c.isAddressable(d.ID) {
			return ifrt.Errorf(ifrt.FailedPrecondition, "proxy: array on %v is not fully addressable", devs)
		}
	}
	if a.spec.DType == ifrt.TOKEN {
		return a.Ready().Await(ctx)
	}
	if err := ifrt.CheckHostBuffer(a.spec.DType, a.spec.Shape, byteStrides, len(dst)); err != nil {
		return err
	}
	switch {
	case len(devs) == 1:
		return a.copySingle(ctx, dst, byteStrides)
	case a.spec.Sharding.IsFullyReplicated():
		s, err := a.c.FullyReplicatedShard(ctx, a, ifrt.ReuseInput)
		if err != nil {
			return err
		}
		shard := s.(*array)
		defer shard.release()
		return shard.copySingle(ctx, dst, byteStrides)
	}
	return a.copySharded(ctx, dst, byteStrides)
}

// copySingle reads a single-device array into dst, already checked to be the
// right size.
func (a *array) copySingle(ctx context.Context, dst []byte, byteStrides []int64) error {
	if dense, _ := a.spec.Shape.ByteSize(a.spec.DType); int64(len(dst)) > dense {
		// Strides with gaps: a server does not make such a buffer (it would be
		// larger than the array), so the dense bytes are spread out here.
		buf := make([]byte, dense)
		if err := a.copySingle(ctx, buf, nil); err != nil {
			return err
		}
		ifrt.CopyDenseToStrided(dst, buf, a.spec.DType, a.spec.Shape, byteStrides)
		return nil
	}
	if byteStrides == nil {
		// jaxlib always sends explicit strides.
		byteStrides = ifrt.DenseByteStrides(a.spec.Shape, a.spec.DType.HostByteSize())
	}
	hb, err := a.c.newHandle()
	if err != nil {
		return err
	}
	_, err = a.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{
		CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
			HostBufferHandle: hb,
			ArrayHandle:      a.handle,
			ByteStrides:      wire.ByteStridesToProto(byteStrides),
		},
	}})
	if err != nil {
		return err
	}
	defer a.c.deleteHostBufferAsync(hb)
	return a.c.lookupHostBuffer(ctx, hb, dst)
}

// copySharded reads the distinct shards of a sharded array in parallel and
// assembles them into dst.
func (a *array) copySharded(ctx context.Context, dst []byte, byteStrides []int64) error {
	domains, err := a.spec.Sharding.IndexDomains(a.spec.Shape)
	if err != nil {
		return err
	}
	parts, err := a.c.DisassembleArray(ctx, a, ifrt.ReuseInput)
	if err != nil {
		return err
	}
	for _, p := range parts {
		defer p.(*array).release()
	}
	elem := a.spec.DType.HostByteSize()
	full := dst
	dense := byteStrides == nil || slices.Equal(byteStrides, ifrt.DenseByteStrides(a.spec.Shape, elem))
	if !dense {
		full = make([]byte, a.spec.Shape.NumElements()*int64(elem))
	}
	seen := map[string]bool{}
	errs := make(chan error, len(parts))
	n := 0
	for i, p := range parts {
		key := domains[i].String()
		if seen[key] {
			continue // a replica of a shard already read
		}
		seen[key] = true
		n++
		go func() {
			buf := make([]byte, domains[i].Shape().NumElements()*int64(elem))
			err := p.(*array).copySingle(ctx, buf, nil)
			if err == nil {
				ifrt.InsertDomain(full, elem, a.spec.Shape, domains[i], buf)
			}
			errs <- err
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	if !dense {
		ifrt.CopyDenseToStrided(dst, full, a.spec.DType, a.spec.Shape, byteStrides)
	}
	return nil
}

// Ready sends a CheckValueReady request; the future resolves with its answer.
func (a *array) Ready() *ifrt.Future {
	if err := a.usable(); err != nil {
		return ifrt.ReadyFuture(err)
	}
	ready := a.c.sess.future(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{
		CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{a.handle}},
	}})
	if a.pending != nil {
		return ifrt.JoinFutures(a.pending, ready)
	}
	return ready
}

// Delete sends a DeleteArray request and then a CheckFuture on the deletion
// future the server returns; the returned future resolves with the latter.
// From the call on, the array counts as deleted.
func (a *array) Delete() *ifrt.Future {
	if a.deleted.Swap(true) {
		return nil
	}
	if err := a.c.checkOpen(); err != nil {
		return ifrt.ReadyFuture(err)
	}
	f, resolve := ifrt.NewFuture()
	err := a.c.sess.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DeleteArrayRequest{
		DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{a.handle}},
	}}, func(resp *proxypb.IfrtResponse, err error) {
		if err == nil {
			err = responseError(resp)
		}
		if err == nil {
			var r *proxypb.DeleteArrayResponse
			r, err = typed(resp.GetDeleteArrayResponse(), "DeleteArrayRequest")
			if err == nil {
				// Sending from the receive goroutine would hold it up behind
				// other senders; the check goes out from a goroutine of its own.
				go func() { resolve(a.c.checkFuture(r.GetDeletionFutureHandle())) }()
				return
			}
		}
		resolve(err)
	})
	if err != nil {
		resolve(err)
	}
	return f
}

// checkFuture waits for the server future handle with a CheckFuture request.
func (c *Client) checkFuture(handle uint64) error {
	return c.sess.future(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{
		CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: handle},
	}}).Await(context.Background())
}

// IsDeleted reports whether the array was deleted or donated. It answers from
// what the client knows, and asks the server (IsArrayDeleted) only after an
// execution that may have donated the array without saying so.
func (a *array) IsDeleted() bool {
	if a.deleted.Load() {
		return true
	}
	if !a.mayBeDonated.Load() || a.c.checkOpen() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), isDeletedTimeout)
	defer cancel()
	resp, err := a.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_IsArrayDeletedRequest{
		IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: a.handle},
	}})
	if err != nil {
		a.c.log.Debug("proxy: IsArrayDeleted failed", "handle", a.handle, "err", err)
		return false
	}
	if resp.GetIsArrayDeletedResponse().GetDeleted() {
		a.deleted.Store(true)
		return true
	}
	return false
}

// arrayOf returns x as an array of c that is still usable.
func (c *Client) arrayOf(x ifrt.Array, what string) (*array, error) {
	a, ok := x.(*array)
	if !ok || a == nil || a.c != c {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: %s: the array does not belong to this client", what)
	}
	if err := a.usable(); err != nil {
		return nil, err
	}
	return a, nil
}

// isAddressable reports whether the client's device id is addressable.
func (c *Client) isAddressable(id ifrt.DeviceID) bool {
	d, ok := c.byID[id]
	return ok && d.Addressable
}

// checkDevices reports devices that are not this client's.
func (c *Client) checkDevices(devs ifrt.DeviceList) error {
	if err := devs.Validate(); err != nil {
		return err
	}
	for _, d := range devs {
		if _, ok := c.byID[d.ID]; !ok {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxy: device %d is not a device of this client", d.ID)
		}
	}
	return nil
}

// checkSpec validates spec and that its devices are this client's.
func (c *Client) checkSpec(spec ifrt.ArraySpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Layout != nil && !spec.Layout.IsRowMajor() {
		return ifrt.Errorf(ifrt.Unimplemented, "proxy: custom layouts are not supported by the proxy client")
	}
	return c.checkDevices(spec.Sharding.Devices())
}

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
	dt, err := wire.DTypeToProto(spec.DType)
	if err != nil {
		return nil, err
	}
	sh, err := wire.ShardingToProto(spec.Sharding)
	if err != nil {
		return nil, err
	}
	h, err := c.newHandle()
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
			Dtype:            dt,
			Shape:            wire.ShapeToProto(spec.Shape),
			Sharding:         sh,
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
				c.log.Debug("proxy: uploading a host buffer failed", "handle", handles[i], "err", err)
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
		f := c.sess.future(req)
		select {
		case <-f.Done(): // failed to send, or already answered
			return nil, f.Await(ctx)
		default:
			return f, nil
		}
	}
	_, err := c.sess.call(ctx, req)
	return nil, err
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
	dt, err := wire.DTypeToProto(spec.DType)
	if err != nil {
		return nil, err
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
			protos = append(protos, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: dt, Shape: wire.ShapeToProto(dom.Shape())})
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

// arrayOp sends an array-producing request whose results the client names and
// wraps the results: after the server answered, or at once with
// WithAsyncDispatch. On failure the server has recorded the error under the
// result handles; they are destructed. Inputs given in donated are marked
// deleted on success (or, dispatching asynchronously, when sent).
func (c *Client) arrayOp(ctx context.Context, req *proxypb.IfrtRequest, handles []uint64, specs []ifrt.ArraySpec, donated []*array) ([]ifrt.Array, error) {
	pending, err := c.dispatch(ctx, req)
	if err != nil {
		for _, h := range handles {
			c.destructHandle(h)
		}
		return nil, err
	}
	for _, a := range donated {
		a.deleted.Store(true)
	}
	out := make([]ifrt.Array, len(handles))
	for i, h := range handles {
		a := c.newArray(h, specs[i])
		a.pending = pending
		out[i] = a
	}
	return out, nil
}

func donatedIf(sem ifrt.CopySemantics, arrays []*array) []*array {
	if sem == ifrt.DonateInput {
		return arrays
	}
	return nil
}

// AssembleArray builds one array from single-device arrays, one per device of
// spec.Sharding in order (AssembleArrayFromSingleDeviceArraysRequest).
func (c *Client) AssembleArray(ctx context.Context, spec ifrt.ArraySpec, shards []ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if err := c.checkSpec(spec); err != nil {
		return nil, err
	}
	devs := spec.Sharding.Devices()
	if len(shards) != len(devs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: AssembleArray: %d shards for %d devices", len(shards), len(devs))
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	parts := make([]*array, len(shards))
	handles := make([]uint64, len(shards))
	for i, s := range shards {
		a, err := c.arrayOf(s, "AssembleArray")
		if err != nil {
			return nil, err
		}
		sd := a.spec.Sharding.Devices()
		if len(sd) != 1 || sd[0].ID != devs[i].ID {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: AssembleArray: shard %d is on %v, want device %d", i, sd, devs[i].ID)
		}
		if a.spec.DType != spec.DType || !a.spec.Shape.Equal(domains[i].Shape()) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: AssembleArray: shard %d is %v%v, want %v%v", i, a.spec.DType, a.spec.Shape, spec.DType, domains[i].Shape())
		}
		parts[i], handles[i] = a, a.handle
	}
	dt, err := wire.DTypeToProto(spec.DType)
	if err != nil {
		return nil, err
	}
	sh, err := wire.ShardingToProto(spec.Sharding)
	if err != nil {
		return nil, err
	}
	h, err := c.newHandle()
	if err != nil {
		return nil, err
	}
	out, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest{
		AssembleArrayFromSingleDeviceArraysRequest: &proxypb.AssembleArrayFromSingleDeviceArraysRequest{
			Shape:                      wire.ShapeToProto(spec.Shape),
			Sharding:                   sh,
			SingleDeviceArrayHandles:   handles,
			CopySemantics:              wire.CopySemanticsToProto(sem),
			SingleDeviceShardSemantics: wire.ShardSemanticsToProto(wire.AddressableShards),
			ResultHandle:               h,
			Dtype:                      dt,
		},
	}}, []uint64{h}, []ifrt.ArraySpec{spec}, donatedIf(sem, parts))
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// DisassembleArray splits an array into one single-device array per device
// (DisassembleIntoSingleDeviceArraysRequest); the client computes the shards'
// specs, as jaxlib does.
func (c *Client) DisassembleArray(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	a, err := c.arrayOf(x, "DisassembleArray")
	if err != nil {
		return nil, err
	}
	domains, err := a.spec.Sharding.IndexDomains(a.spec.Shape)
	if err != nil {
		return nil, err
	}
	devs := a.spec.Sharding.Devices()
	specs := make([]ifrt.ArraySpec, len(devs))
	for i, d := range devs {
		if !c.isAddressable(d.ID) {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "proxy: DisassembleArray: device %d is not addressable", d.ID)
		}
		specs[i] = ifrt.ArraySpec{
			DType:    a.spec.DType,
			Shape:    domains[i].Shape(),
			Sharding: ifrt.NewSingleDeviceSharding(d, a.spec.Sharding.MemoryKind()),
			Layout:   a.spec.Layout,
		}
	}
	handles, err := c.newHandles(len(devs))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest{
		DisassembleIntoSingleDeviceArraysRequest: &proxypb.DisassembleIntoSingleDeviceArraysRequest{
			ArrayHandle:                a.handle,
			CopySemantics:              wire.CopySemanticsToProto(sem),
			SingleDeviceShardSemantics: wire.ShardSemanticsToProto(wire.AddressableShards),
			ResultHandles:              handles,
		},
	}}, handles, specs, donatedIf(sem, []*array{a}))
}

// CopyArrays copies arrays to other devices and, when memoryKind is set, another
// memory kind (CopyArraysRequest). Arrays on different device lists or memory
// kinds go in separate requests, one per group, since upstream backends copy
// only arrays that share both.
func (c *Client) CopyArrays(ctx context.Context, arrays []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if err := c.checkDevices(devices); err != nil {
		return nil, err
	}
	if memoryKind != nil {
		for _, d := range devices {
			if _, err := c.byID[d.ID].Memory(*memoryKind); err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: CopyArrays: %w", err)
			}
		}
	}
	ins := make([]*array, len(arrays))
	specs := make([]ifrt.ArraySpec, len(arrays))
	groups := map[string][]int{} // source devices and memory kind -> positions
	var order []string
	for i, x := range arrays {
		a, err := c.arrayOf(x, "CopyArrays")
		if err != nil {
			return nil, err
		}
		if specs[i], err = ifrt.CopySpec(a.spec, devices, memoryKind); err != nil {
			return nil, err
		}
		ins[i] = a
		key := a.spec.Sharding.Devices().String() + "/" + string(a.spec.Sharding.MemoryKind())
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	out := make([]ifrt.Array, len(arrays))
	for _, key := range order {
		pos := groups[key]
		handles, err := c.newHandles(len(pos))
		if err != nil {
			return nil, err
		}
		req := &proxypb.CopyArraysRequest{
			DeviceIds:     wire.DeviceIDs(devices),
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		}
		if memoryKind != nil {
			k := string(*memoryKind)
			req.MemoryKind = &k
		}
		groupIns := make([]*array, len(pos))
		groupSpecs := make([]ifrt.ArraySpec, len(pos))
		for j, i := range pos {
			req.ArrayHandles = append(req.ArrayHandles, ins[i].handle)
			groupIns[j], groupSpecs[j] = ins[i], specs[i]
		}
		res, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: req}},
			handles, groupSpecs, donatedIf(sem, groupIns))
		if err != nil {
			return nil, err
		}
		for j, i := range pos {
			out[i] = res[j]
		}
	}
	return out, nil
}

// Reshard gives each array the sharding of its spec (ReshardArraysRequest).
func (c *Client) Reshard(ctx context.Context, arrays []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if len(arrays) != len(specs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: Reshard: %d arrays and %d specs", len(arrays), len(specs))
	}
	ins := make([]*array, len(arrays))
	inHandles := make([]uint64, len(arrays))
	protoSpecs := make([]*proxypb.ArraySpecProto, len(arrays))
	for i, x := range arrays {
		a, err := c.arrayOf(x, "Reshard")
		if err != nil {
			return nil, err
		}
		s := specs[i]
		if err := c.checkSpec(s); err != nil {
			return nil, err
		}
		if s.DType != a.spec.DType || !s.Shape.Equal(a.spec.Shape) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: Reshard: array %d is %v%v, the spec %v%v", i, a.spec.DType, a.spec.Shape, s.DType, s.Shape)
		}
		if protoSpecs[i], err = wire.ArraySpecToProto(s); err != nil {
			return nil, err
		}
		ins[i], inHandles[i] = a, a.handle
	}
	handles, err := c.newHandles(len(arrays))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{
		ReshardArraysRequest: &proxypb.ReshardArraysRequest{
			ArrayHandles:  inHandles,
			ArraySpecs:    protoSpecs,
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		},
	}}, handles, specs, donatedIf(sem, ins))
}

// Remap moves shards between arrays as the plan says (RemapArraysRequest).
func (c *Client) Remap(ctx context.Context, plan ifrt.RemapPlan, arrays []ifrt.Array, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if len(arrays) != len(plan.InputSpecs) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: Remap: %d arrays for a plan with %d inputs", len(arrays), len(plan.InputSpecs))
	}
	for _, s := range plan.OutputSpecs {
		if err := c.checkSpec(s); err != nil {
			return nil, err
		}
	}
	ins := make([]*array, len(arrays))
	inHandles := make([]uint64, len(arrays))
	for i, x := range arrays {
		a, err := c.arrayOf(x, "Remap")
		if err != nil {
			return nil, err
		}
		ins[i], inHandles[i] = a, a.handle
	}
	if err := checkRemap(plan, ins); err != nil {
		return nil, err
	}
	p, err := wire.RemapPlanToProto(plan)
	if err != nil {
		return nil, err
	}
	handles, err := c.newHandles(len(plan.OutputSpecs))
	if err != nil {
		return nil, err
	}
	return c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_RemapArraysRequest{
		RemapArraysRequest: &proxypb.RemapArraysRequest{
			Plan:          p,
			ArrayHandles:  inHandles,
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandles: handles,
		},
	}}, handles, plan.OutputSpecs, donatedIf(sem, ins))
}

// FullyReplicatedShard returns a replicated array's contents on its first device
// (FullyReplicatedShardRequest).
func (c *Client) FullyReplicatedShard(ctx context.Context, x ifrt.Array, sem ifrt.CopySemantics) (ifrt.Array, error) {
	a, err := c.arrayOf(x, "FullyReplicatedShard")
	if err != nil {
		return nil, err
	}
	if !a.spec.Sharding.IsFullyReplicated() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: FullyReplicatedShard: %v is not fully replicated", a.spec.Sharding)
	}
	spec := ifrt.ArraySpec{
		DType:    a.spec.DType,
		Shape:    a.spec.Shape,
		Sharding: ifrt.NewSingleDeviceSharding(a.spec.Sharding.Devices()[0], a.spec.Sharding.MemoryKind()),
		Layout:   a.spec.Layout,
	}
	h, err := c.newHandle()
	if err != nil {
		return nil, err
	}
	out, err := c.arrayOp(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{
		FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
			ArrayHandle:   a.handle,
			CopySemantics: wire.CopySemanticsToProto(sem),
			ResultHandle:  h,
		},
	}}, []uint64{h}, []ifrt.ArraySpec{spec}, donatedIf(sem, []*array{a}))
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
