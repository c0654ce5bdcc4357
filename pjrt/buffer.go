package pjrt

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

// Buffer is an array on a device (PJRT_Buffer). It is safe for concurrent use.
// Close it when done (Close is idempotent); a forgotten Buffer is destroyed by
// the garbage collector, and closing its client destroys it too.
type Buffer struct {
	client   *Client
	res      *resource
	hostDone *Event // non-nil for semantics other than ImmutableOnlyDuringCall

	infoOnce sync.Once
	info     bufferInfo
	infoErr  error
}

// HostBufferOptions are the optional arguments of Client.BufferFromHost.
type HostBufferOptions struct {
	// ByteStrides gives the distance in bytes between consecutive elements of
	// each dimension of data; nil means dense major-to-minor (row-major).
	ByteStrides []int64
	// Semantics says how long PJRT may use data; the default copies during the
	// call.
	Semantics HostBufferSemantics
	// Device is the destination device; nil means the first addressable device.
	Device *Device
	// Memory, if set, is the destination memory space and wins over Device.
	Memory *Memory
}

var emptyHostData [64]byte

func (c *Client) newBuffer(ptr unsafe.Pointer) *Buffer {
	b := &Buffer{client: c, res: newResource(c.st.api, c.st, resBuffer, ptr)}
	runtime.AddCleanup(b, (*resource).cleanup, b.res)
	return b
}

// hostSpan returns how many bytes of data the array spans, and whether it could
// be computed (false for negative strides and sub-byte types).
func hostSpan(t BufferType, dims, strides []int64) (int64, bool) {
	elem := int64(t.ByteSize())
	if t.Bits() < 8 {
		return 0, false
	}
	count := int64(1)
	for _, d := range dims {
		count *= d
	}
	if count == 0 {
		return 0, true
	}
	if len(strides) == 0 {
		return count * elem, true
	}
	end := elem
	for i, d := range dims {
		if strides[i] < 0 {
			return 0, false
		}
		end += (d - 1) * strides[i]
	}
	return end, true
}

// BufferFromHost copies (or, with a zero-copy semantics, wraps) host data into
// a new buffer of element type t and shape dims (PJRT_Client_BufferFromHostBuffer).
//
// With opts.Semantics other than ImmutableOnlyDuringCall, data is pinned and
// must not be modified until the buffer's HostDone event fires; for the
// zero-copy semantics that is after the buffer is closed.
func (c *Client) BufferFromHost(ctx context.Context, data []byte, t BufferType, dims []int64, opts *HostBufferOptions) (*Buffer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var o HostBufferOptions
	if opts != nil {
		o = *opts
	}
	if t.ByteSize() == 0 {
		return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: element type %v has no host representation", t)
	}
	for _, d := range dims {
		if d < 0 {
			return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: negative dimension in %v", dims)
		}
	}
	if len(o.ByteStrides) != 0 && len(o.ByteStrides) != len(dims) {
		return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: %d byte strides for %d dimensions", len(o.ByteStrides), len(dims))
	}
	if o.Semantics < ImmutableOnlyDuringCall || o.Semantics > MutableZeroCopy {
		return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: unknown host buffer semantics %d", o.Semantics)
	}
	if span, ok := hostSpan(t, dims, o.ByteStrides); ok && int64(len(data)) < span {
		return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: %v%v needs %d bytes of host data, got %d", t, dims, span, len(data))
	}
	var dev, mem unsafe.Pointer
	if o.Memory != nil {
		if o.Memory.client != c {
			return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: memory belongs to another client")
		}
		mem = o.Memory.ptr
	} else {
		d := o.Device
		if d == nil {
			if len(c.addressable) == 0 {
				return nil, errorf(ifrt.FailedPrecondition, "BufferFromHost: client has no addressable device")
			}
			d = c.addressable[0]
		}
		if d.client != c {
			return nil, errorf(ifrt.InvalidArgument, "BufferFromHost: device belongs to another client")
		}
		dev = d.ptr
	}
	if err := c.st.api.need(fnClientBufferFromHostBuffer); err != nil {
		return nil, err
	}
	cptr, err := c.st.acquire()
	if err != nil {
		return nil, err
	}
	defer c.st.release()

	ptr := unsafe.Pointer(&emptyHostData[0])
	if len(data) > 0 {
		ptr = unsafe.Pointer(unsafe.SliceData(data))
	}
	keep := o.Semantics != ImmutableOnlyDuringCall
	var pinner *runtime.Pinner
	if keep && len(data) > 0 {
		pinner = new(runtime.Pinner)
		pinner.Pin(unsafe.SliceData(data))
	}
	bptr, done, err := c.st.api.bufferFromHost(cptr, ptr, t, dims, o.ByteStrides, o.Semantics, dev, mem, keep)
	runtime.KeepAlive(data)
	if err != nil {
		if pinner != nil {
			pinner.Unpin()
		}
		return nil, err
	}
	b := c.newBuffer(bptr)
	if keep && done == nil {
		// No event to tell when PJRT is done with data: keep it pinned for the
		// buffer's life.
		if pinner != nil {
			b.res.onClose = append(b.res.onClose, pinner.Unpin)
		}
		b.hostDone = newEvent(nil, nil)
	} else if keep {
		ev := newEvent(c, done)
		if pinner != nil {
			ev.st.mu.Lock()
			ev.st.after = append(ev.st.after, pinner.Unpin)
			ev.st.mu.Unlock()
		}
		// Done fires when PJRT is finished with data; registering now makes the
		// unpin happen then, whatever the caller does with the event.
		ev.register()
		if ev.res != nil {
			evRes := ev.res
			b.res.mu.Lock()
			b.res.onClose = append(b.res.onClose, func() { _ = evRes.close() })
			b.res.mu.Unlock()
		}
		b.hostDone = ev
	}
	return b, nil
}

// HostDone returns the event that fires when PJRT no longer uses the host data
// the buffer was created from, or nil for ImmutableOnlyDuringCall buffers (for
// which that happened before BufferFromHost returned) and buffers not created
// from host data. The event is owned by the buffer: do not Close it.
func (b *Buffer) HostDone() *Event { return b.hostDone }

func (b *Buffer) loadInfo() (bufferInfo, error) {
	b.infoOnce.Do(func() {
		ptr, err := b.res.acquire()
		if err != nil {
			b.infoErr = err
			return
		}
		defer b.res.release()
		b.info, b.infoErr = b.res.api.bufferInfo(ptr)
	})
	return b.info, b.infoErr
}

// Type returns the element type, or InvalidType if the buffer is closed.
func (b *Buffer) Type() BufferType {
	info, _ := b.loadInfo()
	return info.typ
}

// Dims returns the dimensions (a copy), or nil if the buffer is closed.
func (b *Buffer) Dims() []int64 {
	info, err := b.loadInfo()
	if err != nil {
		return nil
	}
	return append([]int64{}, info.dims...)
}

// Device returns the buffer's device, or nil if the buffer is closed.
func (b *Buffer) Device() *Device {
	info, _ := b.loadInfo()
	if info.device == nil {
		return nil
	}
	return b.client.devByPtr[info.device]
}

// Memory returns the buffer's memory space, or nil if unknown.
func (b *Buffer) Memory() *Memory {
	info, _ := b.loadInfo()
	if info.memory == nil {
		return nil
	}
	return b.client.memByPtr[info.memory]
}

// OnDeviceSize returns the buffer's size on the device in bytes.
func (b *Buffer) OnDeviceSize() (int64, error) {
	info, err := b.loadInfo()
	return info.onDeviceSize, err
}

// Client returns the buffer's client.
func (b *Buffer) Client() *Client { return b.client }

// HostSize returns the number of bytes ToHost writes (the dense major-to-minor
// host representation).
func (b *Buffer) HostSize() (int64, error) {
	info, err := b.loadInfo()
	if err != nil {
		return 0, err
	}
	if span, ok := hostSpan(info.typ, info.dims, nil); ok {
		return span, nil
	}
	ptr, err := b.res.acquire()
	if err != nil {
		return 0, err
	}
	defer b.res.release()
	return b.res.api.bufferHostSize(ptr)
}

// ToHost copies the buffer into dst, dense major-to-minor, and waits for the
// copy (PJRT_Buffer_ToHostBuffer). dst must hold at least HostSize bytes.
//
// If ctx ends first ToHost returns ctx's error while the copy finishes in the
// background: dst stays pinned and may still be written until then, so the
// caller must not reuse it. Use ToHostAsync to keep hold of the copy's event.
func (b *Buffer) ToHost(ctx context.Context, dst []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ctx.Done() != nil {
		ev, err := b.ToHostAsync(dst)
		if err != nil {
			return err
		}
		return ev.Await(ctx)
	}
	n, err := b.checkDst(dst)
	if err != nil {
		return err
	}
	ptr, err := b.res.acquire()
	if err != nil {
		return err
	}
	defer b.res.release()
	_, err = b.res.api.bufferToHost(ptr, unsafe.Pointer(unsafe.SliceData(dst)), int(n), true)
	runtime.KeepAlive(dst)
	return err
}

func (b *Buffer) checkDst(dst []byte) (int64, error) {
	if err := b.res.api.need(fnBufferToHostBuffer); err != nil {
		return 0, err
	}
	n, err := b.HostSize()
	if err != nil {
		return 0, err
	}
	if int64(len(dst)) < n {
		return 0, errorf(ifrt.InvalidArgument, "ToHost: destination has %d bytes, the buffer needs %d", len(dst), n)
	}
	return n, nil
}

// ToHostAsync starts copying the buffer into dst and returns the copy's event.
// dst is pinned and must not be touched until the event fires. The event is
// released when it fires; closing it early is allowed.
func (b *Buffer) ToHostAsync(dst []byte) (*Event, error) {
	n, err := b.checkDst(dst)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return newEvent(nil, nil), nil
	}
	ptr, err := b.res.acquire()
	if err != nil {
		return nil, err
	}
	defer b.res.release()
	pinner := new(runtime.Pinner)
	pinner.Pin(unsafe.SliceData(dst))
	evPtr, err := b.res.api.bufferToHost(ptr, unsafe.Pointer(unsafe.SliceData(dst)), int(n), false)
	if err != nil {
		pinner.Unpin()
		return nil, err
	}
	ev := newEvent(b.client, evPtr)
	evRes := ev.res
	ev.st.mu.Lock()
	ev.st.after = append(ev.st.after, pinner.Unpin)
	if evRes != nil {
		ev.st.after = append(ev.st.after, func() { go func() { _ = evRes.close() }() })
	}
	ev.st.mu.Unlock()
	ev.register()
	return ev, nil
}

// ReadyEvent returns an event that fires when the buffer's contents are ready
// (PJRT_Buffer_ReadyEvent). Close it when done.
func (b *Buffer) ReadyEvent() (*Event, error) {
	ev, err := callWith(b.res.api, b.res, fnBufferReadyEvent, b.res.api.bufferReadyEvent)
	if err != nil {
		return nil, err
	}
	return newEvent(b.client, ev), nil
}

// CopyToDevice copies the buffer to another device of the same client
// (PJRT_Buffer_CopyToDevice). The copy may still be in flight when it returns;
// use its ReadyEvent or read it, which waits.
func (b *Buffer) CopyToDevice(ctx context.Context, dst *Device) (*Buffer, error) {
	if dst == nil || dst.client != b.client {
		return nil, errorf(ifrt.InvalidArgument, "CopyToDevice: device is nil or belongs to another client")
	}
	return b.copyWith(ctx, fnBufferCopyToDevice, func(ptr unsafe.Pointer) (unsafe.Pointer, error) {
		return b.res.api.bufferCopyToDevice(ptr, dst.ptr)
	})
}

// CopyToMemory copies the buffer into a memory space of the same client
// (PJRT_Buffer_CopyToMemory), e.g. another device's memory or pinned host
// memory.
func (b *Buffer) CopyToMemory(ctx context.Context, dst *Memory) (*Buffer, error) {
	if dst == nil || dst.client != b.client {
		return nil, errorf(ifrt.InvalidArgument, "CopyToMemory: memory is nil or belongs to another client")
	}
	return b.copyWith(ctx, fnBufferCopyToMemory, func(ptr unsafe.Pointer) (unsafe.Pointer, error) {
		return b.res.api.bufferCopyToMemory(ptr, dst.ptr)
	})
}

// copyWith makes a new buffer of the client with call, which PJRT names fn.
func (b *Buffer) copyWith(ctx context.Context, fn apiFn, call func(unsafe.Pointer) (unsafe.Pointer, error)) (*Buffer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.res.api.need(fn); err != nil {
		return nil, err
	}
	if _, err := b.client.st.acquire(); err != nil {
		return nil, err
	}
	defer b.client.st.release()
	ptr, err := b.res.acquire()
	if err != nil {
		return nil, err
	}
	defer b.res.release()
	out, err := call(ptr)
	if err != nil {
		return nil, err
	}
	return b.client.newBuffer(out), nil
}

// Delete frees the buffer's device memory now but keeps the handle
// (PJRT_Buffer_Delete); afterwards only IsDeleted and Close are useful.
func (b *Buffer) Delete() error {
	if err := b.res.api.need(fnBufferDelete); err != nil {
		return err
	}
	ptr, err := b.res.acquire()
	if err != nil {
		return err
	}
	defer b.res.release()
	return b.res.api.deleteBuffer(ptr)
}

// IsDeleted reports whether the buffer's device memory was freed by Delete or
// by donation to an execution. A closed buffer reports true.
func (b *Buffer) IsDeleted() bool {
	ptr, err := b.res.acquire()
	if err != nil {
		return true
	}
	defer b.res.release()
	deleted, err := b.res.api.bufferIsDeleted(ptr)
	return err != nil || deleted
}

// Close destroys the buffer (PJRT_Buffer_Destroy). It is idempotent.
func (b *Buffer) Close() error { return b.res.close() }

func (b *Buffer) String() string {
	info, err := b.loadInfo()
	if err != nil {
		return "pjrt.Buffer(closed)"
	}
	return fmt.Sprintf("pjrt.Buffer(%v%v)", info.typ, info.dims)
}
