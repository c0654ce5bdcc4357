//go:build !linux

package proxyserver

// hostMemory is the machine's physical memory in bytes; where this package
// cannot read it, a fixed guess.
func hostMemory() int64 { return fallbackHostMemory }
