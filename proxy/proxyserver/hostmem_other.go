//go:build !linux

package proxyserver

// HostMemory is the memory this process's host may use, in bytes; where
// this package cannot read it, a fixed guess.
func HostMemory() int64 { return fallbackHostMemory }
