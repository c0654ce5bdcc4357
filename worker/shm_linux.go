package worker

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// sharedMemorySupported tells whether workers of this platform pass peer
// bytes through shared memory (shm.go).
const sharedMemorySupported = true

// mapFile maps size bytes of f shared and writable. With allocate it first
// allocates them (a full tmpfs fails here, not with SIGBUS at a later
// write) and maps them populated.
func mapFile(f *os.File, size int, allocate bool) ([]byte, error) {
	flags := syscall.MAP_SHARED
	if allocate {
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, int64(size)); err != nil {
			return nil, err
		}
		flags |= syscall.MAP_POPULATE
	}
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, flags)
}

func unmapFile(mem []byte) error { return syscall.Munmap(mem) }

// holdSegment takes the shared lock that tells other workers the segment's
// owner lives; the kernel drops it when the owner dies, however it dies.
func holdSegment(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }

// removeAbandoned removes the segments in dir whose owner died: nobody
// holds their lock. Locks are per open file, so this works across
// processes and containers that share the directory. A segment still being
// made (its name ends in pendingSuffix until it is ready) is unlocked for a
// moment before its maker locks it, so one of those is abandoned only once
// it is old too: its maker died making it.
func removeAbandoned(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name, pending := strings.CutSuffix(e.Name(), pendingSuffix)
		if !segmentName.MatchString(name) {
			continue
		}
		if pending {
			if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < pendingAge {
				continue
			}
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.Remove(path)
		}
		f.Close()
	}
}

// pendingAge is how old an unlocked segment still being made must be to
// count as abandoned; making one takes milliseconds.
const pendingAge = time.Minute
