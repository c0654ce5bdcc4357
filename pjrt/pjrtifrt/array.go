package pjrtifrt

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/pjrt"
)

// devBuf is a PJRT buffer shared by the arrays that hold it (ReuseInput lets
// results share their inputs' buffers). The last release closes it.
type devBuf struct {
	buf  *pjrt.Buffer
	refs atomic.Int32
}

func newDevBuf(b *pjrt.Buffer) *devBuf {
	d := &devBuf{buf: b}
	d.refs.Store(1)
	return d
}

func (d *devBuf) retain() *devBuf { d.refs.Add(1); return d }

func (d *devBuf) release() {
	if d.refs.Add(-1) == 0 {
		_ = d.buf.Close()
	}
}

// array is an ifrt.Array: one PJRT buffer per device of its sharding, in the
// sharding's device order.
type array struct {
	ifrt.UnimplementedArray

	client *Client
	backend.Described
	bufs backend.Shards[*devBuf]
}

// newArray registers an array made of bufs (whose references it takes over).
func (c *Client) newArray(spec ifrt.ArraySpec, bufs []*devBuf) *array {
	a := &array{client: c, Described: backend.Described{ArraySpec: spec}}
	a.bufs.Hold(bufs)
	if !c.life.Arrays.Add(a) {
		a.free() // the client closed meanwhile
	}
	return a
}

// As sets *target to the array's PJRT buffers, one per device of its sharding,
// when target is a *[]*pjrt.Buffer. The buffers stay owned by the array.
func (a *array) As(target any) bool {
	p, ok := target.(*[]*pjrt.Buffer)
	if !ok {
		return false
	}
	return a.bufs.Read(func(bufs []*devBuf) {
		*p = make([]*pjrt.Buffer, len(bufs))
		for i, b := range bufs {
			(*p)[i] = b.buf
		}
	}) == nil
}

func (a *array) IsDeleted() bool { return a.bufs.IsDeleted() }

// Delete releases the array's buffers; a buffer shared with another array lives
// on in that one.
func (a *array) Delete() *ifrt.Future {
	a.free()
	a.client.life.Arrays.Remove(a)
	return nil
}

func (a *array) free() { releaseAll(a.bufs.Take()) }

// hold returns the array's buffers with a reference taken on each, or
// ErrArrayDeleted. The caller releases them.
func (a *array) hold() (held []*devBuf, err error) {
	err = a.bufs.Read(func(bufs []*devBuf) {
		held = make([]*devBuf, len(bufs))
		for i, b := range bufs {
			held[i] = b.retain()
		}
	})
	return held, err
}

func releaseAll(bufs []*devBuf) {
	for _, b := range bufs {
		if b != nil {
			b.release()
		}
	}
}

// Ready resolves when every buffer's contents are computed, with the first
// error among them.
func (a *array) Ready() *ifrt.Future {
	bufs, err := a.hold()
	if err != nil {
		return ifrt.ReadyFuture(err)
	}
	events := make([]*pjrt.Event, 0, len(bufs))
	for _, b := range bufs {
		ev, err := b.buf.ReadyEvent()
		if err != nil {
			for _, e := range events {
				_ = e.Close()
			}
			releaseAll(bufs)
			return ifrt.ReadyFuture(fromPJRT(err))
		}
		events = append(events, ev)
	}
	releaseAll(bufs)
	return eventsFuture(events)
}

// eventsFuture returns a future resolved when every event has fired, with the
// first error; it closes the events.
func eventsFuture(events []*pjrt.Event) *ifrt.Future {
	pending := false
	for _, ev := range events {
		select {
		case <-ev.Done():
		default:
			pending = true
		}
	}
	if !pending {
		var first error
		for _, ev := range events {
			if err := ev.Err(); err != nil && first == nil {
				first = fromPJRT(err)
			}
			_ = ev.Close()
		}
		return ifrt.ReadyFuture(first)
	}
	f, resolve := ifrt.NewFuture()
	go func() {
		var first error
		for _, ev := range events {
			<-ev.Done()
			if err := ev.Err(); err != nil && first == nil {
				first = fromPJRT(err)
			}
			_ = ev.Close()
		}
		resolve(first)
	}()
	return f
}

func (a *array) CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error {
	if err := a.client.check.CopyToHost(a, dst, byteStrides); err != nil {
		return err
	}
	bufs, err := a.hold()
	if err != nil {
		return err
	}
	defer releaseAll(bufs)
	dense, err := a.client.fetchDense(ctx, a.ArraySpec, bufs, dst, byteStrides)
	if err != nil {
		return err
	}
	if dense != nil {
		ifrt.CopyDenseToStrided(dst, dense, a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides)
	}
	return nil
}

// fetchDense reads an array of spec held in bufs. When one buffer holds the
// whole array and dst is dense, it copies straight into dst and returns nil;
// otherwise it returns the dense row-major contents.
func (c *Client) fetchDense(ctx context.Context, spec ifrt.ArraySpec, bufs []*devBuf, dst []byte, byteStrides []int64) ([]byte, error) {
	size, err := spec.Shape.ByteSize(spec.DType)
	if err != nil {
		return nil, err
	}
	domains, err := spec.Sharding.IndexDomains(spec.Shape)
	if err != nil {
		return nil, err
	}
	full := ifrt.FullDomain(spec.Shape).String()
	dense := dst != nil && (byteStrides == nil || isDense(spec, byteStrides))
	for i, dom := range domains {
		if dom.String() != full {
			continue
		}
		if size == 0 {
			return make([]byte, 0), nil
		}
		if dense {
			return nil, readBuffer(ctx, bufs[i].buf, dst)
		}
		out := make([]byte, size)
		return out, readBuffer(ctx, bufs[i].buf, out)
	}
	elem := spec.DType.HostByteSize()
	shards := make([][]byte, len(domains))
	errs := make([]error, len(domains))
	var wg sync.WaitGroup
	for _, i := range backend.UniqueDomains(domains) {
		dom := domains[i]
		shards[i] = make([]byte, dom.Shape().NumElements()*int64(elem))
		if len(shards[i]) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = readBuffer(ctx, bufs[i].buf, shards[i])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ifrt.AssembleDense(elem, spec.Shape, domains, shards), nil
}

func isDense(spec ifrt.ArraySpec, byteStrides []int64) bool {
	return ifrt.StridesAreDense(spec.Shape, spec.DType.HostByteSize(), byteStrides)
}

// readBuffer copies a buffer's dense host representation into dst, which must
// be exactly its size.
func readBuffer(ctx context.Context, b *pjrt.Buffer, dst []byte) error {
	n, err := b.HostSize()
	if err != nil {
		return fromPJRT(err)
	}
	if n != int64(len(dst)) {
		return ifrt.Errorf(ifrt.Internal, "pjrtifrt: buffer %v has %d host bytes, want %d", b, n, len(dst))
	}
	if b.IsDeleted() {
		return ifrt.ErrArrayDeleted
	}
	if err := b.ToHost(ctx, dst); err != nil {
		return fromPJRT(err)
	}
	// Plugins unpack sub-byte integers without extending the sign; ifrt's host
	// layout (numpy's) has one sign-extended byte per element.
	switch t := b.Type(); t {
	case pjrt.S2, pjrt.S4:
		shift := 8 - t.Bits()
		for i, v := range dst {
			dst[i] = byte(int8(v<<shift) >> shift)
		}
	}
	return nil
}
