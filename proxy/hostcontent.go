package proxy

import (
	"context"
	"runtime"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// ReadHostContent reads a STRING array (see ifrt.HostContentReader): one
// CopyToHostBufferRequest without strides for a single-device or replicated
// array, whose host buffer, of whatever size, is the serialized
// StringArrayContents.
func (a *array) ReadHostContent(ctx context.Context) ([]byte, error) {
	defer runtime.KeepAlive(a)
	if err := a.usable(); err != nil {
		return nil, err
	}
	devs := a.ArraySpec.Sharding.Devices()
	for _, d := range devs {
		if !a.c.isAddressable(d.ID) {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "proxy: array on %v is not fully addressable", devs)
		}
	}
	single := a
	if len(devs) != 1 {
		if !a.ArraySpec.Sharding.IsFullyReplicated() {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "proxy: reading a sharded STRING array")
		}
		s, err := a.c.FullyReplicatedShard(ctx, a, ifrt.ReuseInput)
		if err != nil {
			return nil, err
		}
		single = s.(*array)
		defer single.release()
	}
	hb, err := a.c.newHandle()
	if err != nil {
		return nil, err
	}
	_, err = a.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{
		CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{HostBufferHandle: hb, ArrayHandle: single.handle},
	}})
	if err != nil {
		return nil, err
	}
	defer a.c.deleteHostBufferAsync(hb)
	return a.c.lookupHostContent(ctx, hb)
}
