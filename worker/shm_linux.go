package worker

import (
	"os"
	"syscall"
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
