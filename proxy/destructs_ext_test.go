package proxy_test

import (
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
)

// Handles taken with TakeDestructs stay with the caller: the session's next
// request no longer sends them, and the arrays live on until the server is told
// by another path (DestructSessionArrays, as a worker's gang launch does), or
// until they are given back with Destruct.
func TestTakeDestructs(t *testing.T) {
	opts, srv, gocpuBackend := startServerWith(t, 1)
	c := dial(t, opts)
	// The batch timer must not send the handles before the test takes them.
	proxy.SetDestructBatchDelay(c, time.Hour)
	ctx := testenv.Context(t, defaultTestTimeout)
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	put := func() (ifrt.Array, proxy.ArrayHandle) {
		a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		var h proxy.ArrayHandle
		if !a.As(&h) {
			t.Fatal("a proxy array has no handle")
		}
		return a, h
	}
	live := func() int { n, _ := gocpuBackend.Live(); return n }
	waitLive := func(want int) {
		t.Helper()
		for live() != want {
			if ctx.Err() != nil {
				t.Fatalf("the backend holds %d arrays, want %d", live(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}

	a, ha := put()
	b, hb := put()
	backend.Release(a)
	backend.Release(b)
	handles, after := c.TakeDestructs()
	if len(handles) != 2 || handles[0] != ha || handles[1] != hb || after != c.LastOpID() || after == 0 {
		t.Fatalf("TakeDestructs = %v after op %d; want [%d %d] after op %d", handles, after, ha, hb, c.LastOpID())
	}
	if again, _ := c.TakeDestructs(); len(again) != 0 {
		t.Fatalf("a second TakeDestructs = %v, want none", again)
	}
	// A request flushes what waits for a batch; the taken handles are not there.
	third, _ := put()
	if n := live(); n != 3 {
		t.Fatalf("the backend holds %d arrays after the handles were taken, want 3", n)
	}

	if err := srv.DestructSessionArrays(ctx, c.SessionID(), c.SessionToken(), []uint64{uint64(ha)}, after); err != nil {
		t.Fatalf("DestructSessionArrays: %v", err)
	}
	waitLive(2)
	c.Destruct(hb)
	if err := third.Delete().Await(ctx); err != nil { // a request: hb goes along
		t.Fatal(err)
	}
	waitLive(0)

	err := srv.DestructSessionArrays(ctx, c.SessionID(), c.SessionToken(), []uint64{uint64(ha)}, after)
	if ifrt.CodeOf(err) != ifrt.NotFound {
		t.Errorf("DestructSessionArrays of a destructed handle = %v, want NOT_FOUND", err)
	}
	err = srv.DestructSessionArrays(ctx, c.SessionID(), "not the token", []uint64{uint64(hb)}, after)
	if ifrt.CodeOf(err) != ifrt.NotFound {
		t.Errorf("DestructSessionArrays with a wrong token = %v, want NOT_FOUND", err)
	}
}
