package sidecar

import (
	"context"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// stringArray is a STRING array on the host's CPU device, made by a colocated
// Python function (the output specs it reports when called without
// out_specs_fn): its content is a serialized StringArrayContents, read with
// ifrt.ReadHostContent.
type stringArray struct {
	ifrt.UnimplementedArray
	backend.Described
	content []byte
	deleted atomic.Bool
}

var _ ifrt.HostContentReader = (*stringArray)(nil)

func (a *stringArray) ReadHostContent(context.Context) ([]byte, error) {
	if a.deleted.Load() {
		return nil, ifrt.ErrArrayDeleted
	}
	return a.content, nil
}

func (a *stringArray) CopyToHostBuffer(context.Context, []byte, []int64) error {
	return ifrt.Errorf(ifrt.Unimplemented, "sidecar: a STRING array is read with ifrt.ReadHostContent, not CopyToHostBuffer")
}

func (a *stringArray) Ready() *ifrt.Future {
	if a.deleted.Load() {
		return ifrt.ReadyFuture(ifrt.ErrArrayDeleted)
	}
	return ifrt.ReadyFuture(nil)
}

func (a *stringArray) Delete() *ifrt.Future {
	a.deleted.Store(true)
	return ifrt.ReadyFuture(nil)
}

// view is the array's single shard: another array with the same content
// (the array is on one device).
func (a *stringArray) view() *stringArray {
	return &stringArray{Described: a.Described, content: a.content}
}

// copyTo is the array as spec, which must keep it on the host's CPU device.
func (a *stringArray) copyTo(spec ifrt.ArraySpec) (ifrt.Array, error) {
	devs := spec.Sharding.Devices()
	if len(devs) != 1 || devs[0].ID != a.ArraySpec.Sharding.Devices()[0].ID {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "sidecar: a STRING array stays on the host's CPU device; cannot copy it to %v", devs)
	}
	return &stringArray{Described: backend.Described{ArraySpec: spec}, content: a.content}, nil
}

func (a *stringArray) IsDeleted() bool { return a.deleted.Load() }
func (a *stringArray) As(any) bool     { return false }
