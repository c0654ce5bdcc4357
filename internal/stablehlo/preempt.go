package stablehlo

import "runtime"

// Copies and fills of whole arrays go in pieces, each ending in a yield.
// The runtime cannot preempt a goroutine inside memmove (assembly), which is
// where a loop of large copies spends nearly all its time, and a garbage
// collection waits for every goroutine to stop. One copy of gigabytes takes
// seconds where first touches of memory fault slowly (some virtual
// machines); meanwhile the collector holds the other processor waiting for
// it, and every other goroutine stalls: in a worker its heartbeats too, and
// the resource manager declares the worker lost. The runtime clears large
// allocations the same way.

// copyPiece is the most elements one memmove moves.
const copyPiece = 1 << 16

// copyPreemptible is copy(dst, src), one piece at a time. Small enough to
// inline, it costs a short copy nothing.
func copyPreemptible[T any](dst, src []T) int {
	if len(dst) <= copyPiece || len(src) <= copyPiece {
		return copy(dst, src)
	}
	return copyPieces(dst, src)
}

func copyPieces[T any](dst, src []T) int {
	n := min(len(dst), len(src))
	for lo := 0; lo < n; lo += copyPiece {
		hi := min(lo+copyPiece, n)
		copy(dst[lo:hi], src[lo:hi])
		if hi < n {
			runtime.Gosched()
		}
	}
	return n
}

// clonePreemptible is a copy of s that owns its storage; nil when s is
// empty.
func clonePreemptible[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	c := make([]T, len(s))
	copyPreemptible(c, s)
	return c
}

// repeatPreemptible is slices.Repeat(s, count): the filled prefix doubles
// with each copy.
func repeatPreemptible[T any](s []T, count int) []T {
	out := make([]T, len(s)*count)
	for filled := copy(out, s); filled < len(out); filled *= 2 {
		copyPreemptible(out[filled:], out[:filled])
	}
	return out
}
