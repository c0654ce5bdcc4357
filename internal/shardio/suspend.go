package shardio

import "fmt"

// SuspendedName is the name, under a host's suspend location, of the array
// that session held under handle when the worker suspended its slice: the
// worker saves it so, and a cluster client asks a replacement worker to read
// it back by this name.
func SuspendedName(session, handle uint64) string { return fmt.Sprintf("s%d-h%d", session, handle) }
