package backend

import "github.com/openpathways/pathways/ifrt"

// Releaser is implemented by arrays that can be given up more cheaply than
// Delete when nobody waits for the memory to be freed: Release frees the
// array as Delete does, eventually, but returns no future, so a remote
// backend need not wait for, or even ask about, the deletion (the proxy client
// batches them into DestructArray requests).
type Releaser interface {
	Release()
}

// Release gives a up: Release where a implements Releaser, else Delete,
// without waiting.
func Release(a ifrt.Array) {
	if r, ok := a.(Releaser); ok {
		r.Release()
		return
	}
	a.Delete()
}
