package proxy

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// ArrayHandle is the number that names an array in the session with the server.
// Array.As sets a *ArrayHandle.
type ArrayHandle uint64

// array is an array on the server, named by a client-generated handle.
type array struct {
	ifrt.UnimplementedArray
	c      *Client
	handle uint64
	backend.Described

	deleted atomic.Bool

	// pending, with WithAsyncDispatch, resolves with the error of the request
	// that made the array; nil when the client waited for it.
	pending *ifrt.Future

	cleanup runtime.Cleanup // destructs the handle once the array is unreachable
}

var _ ifrt.Array = (*array)(nil)

// newArray wraps handle. When the array becomes unreachable, a cleanup queues a
// DestructArray for its handle (batched with others), so the server drops it.
func (c *Client) newArray(handle uint64, spec ifrt.ArraySpec) *array {
	a := &array{c: c, handle: handle, Described: backend.Described{ArraySpec: spec}}
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

// Ready sends a CheckValueReady request; the future resolves with its answer.
func (a *array) Ready() *ifrt.Future {
	defer runtime.KeepAlive(a)
	if err := a.usable(); err != nil {
		return ifrt.ReadyFuture(err)
	}
	ready := a.c.sess.future(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{
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
	defer runtime.KeepAlive(a)
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

// Release frees the array without a future: a DestructArray, batched with
// others, instead of a DeleteArray and a CheckFuture (backend.Releaser).
func (a *array) Release() {
	if !a.deleted.Swap(true) {
		a.release()
	}
}

// checkFuture waits for the server future handle with a CheckFuture request.
func (c *Client) checkFuture(handle uint64) error {
	return c.sess.future(context.Background(), &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{
		CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: handle},
	}}).Await(context.Background())
}

// IsDeleted reports whether the array was deleted or donated, from what the
// client knows: executions learn what they donated (ExecuteResult.Donated).
func (a *array) IsDeleted() bool { return a.deleted.Load() }

// askDeleted asks the server whether the array was deleted (IsArrayDeleted)
// and records the answer; an execution whose server did not say which
// parameters its program donates asks so about each argument.
func (a *array) askDeleted(ctx context.Context) bool {
	defer runtime.KeepAlive(a)
	resp, err := a.c.sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_IsArrayDeletedRequest{
		IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: a.handle},
	}})
	if err != nil {
		a.c.log.Debug("IsArrayDeleted failed", "handle", a.handle, "error", err)
		return false
	}
	if resp.GetIsArrayDeletedResponse().GetDeleted() {
		a.deleted.Store(true)
		return true
	}
	return false
}

// check is the client's side of ifrt/backend's checks.
func (c *Client) check() backend.Checker[*array] {
	return backend.Checker[*array]{
		Name: "proxy", Open: c.checkOpen, Spec: c.checkSpec,
		Owns: func(a *array) bool { return a != nil && a.c == c },
	}
}

// handlesOf returns the arrays' handles.
func handlesOf(arrays []*array) []uint64 {
	out := make([]uint64, len(arrays))
	for i, a := range arrays {
		out[i] = a.handle
	}
	return out
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
