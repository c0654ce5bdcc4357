package ifrt

import (
	"context"
	"sync/atomic"
)

// NewErrorArray returns an array of spec whose contents are the failure err: every
// read fails with err and Ready resolves with it. Servers use it to stand for the
// result of a failed operation whose handle a client already holds. Delete frees
// nothing but makes it report IsDeleted, as any array does.
func NewErrorArray(spec ArraySpec, err error) Array {
	return &errorArray{spec: spec, err: err}
}

type errorArray struct {
	UnimplementedArray
	spec    ArraySpec
	err     error
	deleted atomic.Bool
}

func (a *errorArray) DType() DType       { return a.spec.DType }
func (a *errorArray) Shape() Shape       { return a.spec.Shape }
func (a *errorArray) Sharding() Sharding { return a.spec.Sharding }
func (a *errorArray) Layout() *Layout    { return a.spec.Layout }
func (a *errorArray) Spec() ArraySpec    { return a.spec }
func (a *errorArray) Ready() *Future     { return ReadyFuture(a.err) }
func (a *errorArray) Delete() *Future    { a.deleted.Store(true); return nil }
func (a *errorArray) IsDeleted() bool    { return a.deleted.Load() }
func (a *errorArray) As(any) bool        { return false }

func (a *errorArray) CopyToHostBuffer(context.Context, []byte, []int64) error { return a.err }

// ArrayError returns the error an array made by NewErrorArray stands for, and
// whether a is such an array.
func ArrayError(a Array) (error, bool) {
	e, ok := a.(*errorArray)
	if !ok {
		return nil, false
	}
	return e.err, true
}
