//go:build !linux

package worker

import (
	"errors"
	"os"
)

// sharedMemorySupported tells whether workers of this platform pass peer
// bytes through shared memory (shm.go): not here, they use the connection.
const sharedMemorySupported = false

func mapFile(*os.File, int, bool) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }

func holdSegment(*os.File) error { return errors.ErrUnsupported }

func removeAbandoned(string) {}
