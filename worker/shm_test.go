package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/worker/workerpb"
)

// newTestSharedMemory returns a sharedMemory over a directory of the test,
// standing for /dev/shm.
func newTestSharedMemory(t *testing.T, dir string) *sharedMemory {
	t.Helper()
	sm := newSharedMemory()
	sm.dir = dir
	t.Cleanup(sm.close)
	return sm
}

func takeSegment(t *testing.T, sm *sharedMemory, data []byte) *workerpb.SharedRegion {
	t.Helper()
	r := sm.take(data)
	if r == nil {
		t.Skip("cannot make a shared segment")
	}
	return r
}

// TestSharedRegionRoundTrip checks that a receiver reads what the sender
// put, that reading frees the segment for the sender's next use, and that
// a stale region (an older use) is refused.
func TestSharedRegionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sender, receiver := newTestSharedMemory(t, dir), newTestSharedMemory(t, dir)
	r := takeSegment(t, sender, []byte("hello"))
	view, release, err := receiver.view(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(view, []byte("hello")) {
		t.Errorf("the receiver read %q, want %q", view, "hello")
	}
	if err := release(); err != nil {
		t.Errorf("release: %v", err)
	}
	r2 := takeSegment(t, sender, []byte("again"))
	if r2.GetSegment() != r.GetSegment() {
		t.Errorf("the sender took a new segment %s while %s was free", r2.GetSegment(), r.GetSegment())
	}
	if _, _, err := receiver.view(r); ifrt.CodeOf(err) != ifrt.DataLoss {
		t.Errorf("a region of an older use: %v, want DATA_LOSS", err)
	}
}

// TestSharedRegionReusedWhileRead checks that a receiver whose region was
// taken back by the sender while it read learns so when it frees it.
func TestSharedRegionReusedWhileRead(t *testing.T) {
	dir := t.TempDir()
	sender, receiver := newTestSharedMemory(t, dir), newTestSharedMemory(t, dir)
	r := takeSegment(t, sender, []byte("data"))
	_, release, err := receiver.view(r)
	if err != nil {
		t.Fatal(err)
	}
	generation(sender.own[0].mem).Store(r.GetGeneration() + 1)
	if err := release(); ifrt.CodeOf(err) != ifrt.DataLoss {
		t.Errorf("releasing a region overwritten while read: %v, want DATA_LOSS", err)
	}
}

// TestSharedRegionRefusesOtherFiles checks that a peer cannot make a worker
// map a file that is not a segment.
func TestSharedRegionRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	sm := newTestSharedMemory(t, dir)
	notSegment := "openpathways-peer-00000000000000000000000000000000"
	if err := os.WriteFile(filepath.Join(dir, notSegment), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*workerpb.SharedRegion{
		{Segment: "../etc/passwd", Generation: 1, Length: 1},
		{Segment: "openpathways-peer-0123", Generation: 1, Length: 1},
		{Segment: notSegment, Generation: 1, Length: 1},
		{Segment: notSegment, Generation: 1, Length: segmentData + 1},
		{Segment: notSegment, Generation: 0, Length: 1},
	} {
		if _, _, err := sm.view(r); err == nil {
			t.Errorf("view(%v) succeeded", r)
		} else if c := ifrt.CodeOf(err); c != ifrt.InvalidArgument && c != ifrt.DataLoss {
			t.Errorf("view(%v): %v, want INVALID_ARGUMENT or DATA_LOSS", r, err)
		}
	}
}

// TestSharedMemoryProbe checks that a worker says it can read a segment
// only when it sees the segment with the sender's token.
func TestSharedMemoryProbe(t *testing.T) {
	dir := t.TempDir()
	sender, receiver := newTestSharedMemory(t, dir), newTestSharedMemory(t, dir)
	r := takeSegment(t, sender, nil)
	if !receiver.readable(&workerpb.SharedMemoryProbe{Segment: r.GetSegment(), Token: sender.token[:]}) {
		t.Error("a worker of the same directory cannot read the sender's segment")
	}
	if receiver.readable(&workerpb.SharedMemoryProbe{Segment: r.GetSegment(), Token: make([]byte, tokenSize)}) {
		t.Error("a wrong token reads as the sender's")
	}
	elsewhere := newTestSharedMemory(t, t.TempDir())
	if elsewhere.readable(&workerpb.SharedMemoryProbe{Segment: r.GetSegment(), Token: sender.token[:]}) {
		t.Error("a worker of another directory (another host) says it can read the segment")
	}
}

// TestSharedMemoryFullFallsBack checks that a sender whose segments are
// all in use gets none (and sends over the connection) instead of waiting,
// and gets one again once a receiver frees it.
func TestSharedMemoryFullFallsBack(t *testing.T) {
	dir := t.TempDir()
	sender, receiver := newTestSharedMemory(t, dir), newTestSharedMemory(t, dir)
	var taken []*workerpb.SharedRegion
	for range maxSegments {
		taken = append(taken, takeSegment(t, sender, []byte("x")))
	}
	if r := sender.take([]byte("y")); r != nil {
		t.Fatalf("a sender with all %d segments in use took %v", maxSegments, r)
	}
	_, release, err := receiver.view(taken[3])
	if err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if r := sender.take([]byte("y")); r == nil || r.GetSegment() != taken[3].GetSegment() {
		t.Errorf("after a receiver freed %s the sender took %v", taken[3].GetSegment(), r)
	}
}
