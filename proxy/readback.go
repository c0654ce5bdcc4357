package proxy

import (
	"context"
	"runtime"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// inlineReadBytes is the largest single-device read that an OpenPathways
// server answers with the bytes in its CopyToHostBufferResponse (the
// inline_max_bytes extension): one round trip instead of three. Larger reads,
// and reads from servers that do not know the extension, go through the
// host-buffer store.
const inlineReadBytes = 256 << 10

// CopyToHostBuffer reads the array as jaxlib does, which any server supports:
// a single-device array directly; a replicated one through its
// FullyReplicatedShard; a sharded one through DisassembleArray, reading the
// shards in parallel and assembling them here. Each single-device read is a
// CopyToHostBufferRequest, a HostBufferLookup of the bytes and a
// HostBufferDelete that is not waited for; a small one (inlineReadBytes) comes
// back in the CopyToHostBufferRequest's response alone.
func (a *array) CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error {
	defer runtime.KeepAlive(a)
	if err := a.usable(); err != nil {
		return err
	}
	devs := a.ArraySpec.Sharding.Devices()
	for _, d := range devs {
		if !a.c.isAddressable(d.ID) {
			return ifrt.Errorf(ifrt.FailedPrecondition, "proxy: array on %v is not fully addressable", devs)
		}
	}
	if a.ArraySpec.DType == ifrt.TOKEN {
		return a.Ready().Await(ctx)
	}
	if err := ifrt.CheckHostBuffer(a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides, len(dst)); err != nil {
		return err
	}
	switch {
	case len(devs) == 1:
		return a.copySingle(ctx, dst, byteStrides)
	case a.ArraySpec.Sharding.IsFullyReplicated():
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
	if dense, _ := a.ArraySpec.Shape.ByteSize(a.ArraySpec.DType); int64(len(dst)) > dense {
		// Strides with gaps: a server does not make such a buffer (it would be
		// larger than the array), so the dense bytes are spread out here.
		buf := make([]byte, dense)
		if err := a.copySingle(ctx, buf, nil); err != nil {
			return err
		}
		ifrt.CopyDenseToStrided(dst, buf, a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides)
		return nil
	}
	if byteStrides == nil {
		// jaxlib always sends explicit strides.
		byteStrides = ifrt.DenseByteStrides(a.ArraySpec.Shape, a.ArraySpec.DType.HostByteSize())
	}
	hb, err := a.c.newHandle()
	if err != nil {
		return err
	}
	resp, err := a.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{
		CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
			HostBufferHandle: hb,
			ArrayHandle:      a.handle,
			ByteStrides:      wire.ByteStridesToProto(byteStrides),
			InlineMaxBytes:   inlineReadBytes,
		},
	}})
	if err != nil {
		return err
	}
	if data := resp.GetCopyToHostBufferResponse().GetInlineData(); data != nil {
		if len(data) != len(dst) {
			return ifrt.Errorf(ifrt.Internal, "proxy: the server sent %d bytes inline for a host buffer of %d", len(data), len(dst))
		}
		copy(dst, data)
		return nil
	}
	defer a.c.deleteHostBufferAsync(hb)
	return a.c.lookupHostBuffer(ctx, hb, dst)
}

// copySharded reads the distinct shards of a sharded array in parallel and
// assembles them into dst.
func (a *array) copySharded(ctx context.Context, dst []byte, byteStrides []int64) error {
	domains, err := a.ArraySpec.Sharding.IndexDomains(a.ArraySpec.Shape)
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
	elem := a.ArraySpec.DType.HostByteSize()
	full := dst
	dense := byteStrides == nil || slices.Equal(byteStrides, ifrt.DenseByteStrides(a.ArraySpec.Shape, elem))
	if !dense {
		full = make([]byte, a.ArraySpec.Shape.NumElements()*int64(elem))
	}
	unique := backend.UniqueDomains(domains) // replicas are read once
	errs := make(chan error, len(unique))
	for _, i := range unique {
		p := parts[i]
		go func() {
			buf := make([]byte, domains[i].Shape().NumElements()*int64(elem))
			err := p.(*array).copySingle(ctx, buf, nil)
			if err == nil {
				ifrt.InsertDomain(full, elem, a.ArraySpec.Shape, domains[i], buf)
			}
			errs <- err
		}()
	}
	var first error
	for range unique {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	if !dense {
		ifrt.CopyDenseToStrided(dst, full, a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides)
	}
	return nil
}
