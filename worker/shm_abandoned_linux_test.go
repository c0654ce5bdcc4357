package worker

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAbandonedSegmentsAreRemoved checks that a worker making its first
// segment removes the segments of a worker that died without removing them
// (its lock gone with it), and keeps those of a live one.
func TestAbandonedSegmentsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	live, dead := newTestSharedMemory(t, dir), newTestSharedMemory(t, dir)
	takeSegment(t, live, []byte("live"))
	takeSegment(t, dead, []byte("dead"))
	deadName := dead.own[0].name
	// Dying: the kernel unmaps and closes the files, which drops their
	// locks (a mapping holds the open file too); the segment files stay.
	for _, s := range dead.own {
		if err := unmapFile(s.mem); err != nil {
			t.Fatal(err)
		}
		s.file.Close()
	}
	dead.own = nil

	takeSegment(t, newTestSharedMemory(t, dir), []byte("new"))

	if _, err := os.Stat(filepath.Join(dir, deadName)); !os.IsNotExist(err) {
		t.Errorf("the dead worker's segment %s: %v, want it removed", deadName, err)
	}
	if _, err := os.Stat(filepath.Join(dir, live.own[0].name)); err != nil {
		t.Errorf("the live worker's segment: %v, want it kept", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files left, want the live and the new worker's segments", len(entries))
	}
}
