package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAbandonedSegmentsAreRemoved checks that a worker making its first
// segment removes the segments of a worker that died without removing them
// (its lock gone with it) and one that a worker died while making (an old
// unlocked ".new"), and keeps those of a live one and a ".new" made just now
// (its maker may not have locked it yet).
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

	diedMaking := filepath.Join(dir, "openpathways-peer-"+strings.Repeat("a", 32)+pendingSuffix)
	beingMade := filepath.Join(dir, "openpathways-peer-"+strings.Repeat("b", 32)+pendingSuffix)
	for _, p := range []string{diedMaking, beingMade} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Dated so that the sweep sees one as old and the other as new however
	// long the test takes.
	for p, at := range map[string]time.Time{diedMaking: time.Now().Add(-2 * pendingAge), beingMade: time.Now().Add(time.Hour)} {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}

	takeSegment(t, newTestSharedMemory(t, dir), []byte("new"))

	if _, err := os.Stat(filepath.Join(dir, deadName)); !os.IsNotExist(err) {
		t.Errorf("the dead worker's segment %s: %v, want it removed", deadName, err)
	}
	if _, err := os.Stat(filepath.Join(dir, live.own[0].name)); err != nil {
		t.Errorf("the live worker's segment: %v, want it kept", err)
	}
	if _, err := os.Stat(diedMaking); !os.IsNotExist(err) {
		t.Errorf("the segment a worker died making: %v, want it removed", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files left, want the live and the new worker's segments and the one being made", len(entries))
	}
}
