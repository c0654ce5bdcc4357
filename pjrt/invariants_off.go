//go:build !invariants

package pjrt

// invariants is true in builds with -tags invariants: the garbage-collection
// safety net then reports every object it has to destroy (one that was never
// closed) on standard error.
const invariants = false
