package backend

import (
	"slices"

	"github.com/openpathways/pathways/ifrt"
)

// errForeign is the ownership failure; a nil array fails the same way.
var errForeign = ifrt.Errorf(ifrt.InvalidArgument, "not an array of this client")

// Own returns xs as the backend's array type A, checking that each is one of
// this client's (mine says which) and not deleted. name prefixes the errors
// ("gocpu").
func Own[A ifrt.Array](name string, xs []ifrt.Array, mine func(A) bool) ([]A, error) {
	out := make([]A, len(xs))
	for i, x := range xs {
		a, err := own(x, mine)
		if err != nil {
			return nil, ifrt.Errorf(ifrt.CodeOf(err), "%s: argument %d: %w", name, i, err)
		}
		out[i] = a
	}
	return out, nil
}

// OwnOne is Own for one array.
func OwnOne[A ifrt.Array](name string, x ifrt.Array, mine func(A) bool) (A, error) {
	a, err := own(x, mine)
	if err != nil {
		return a, ifrt.Errorf(ifrt.CodeOf(err), "%s: %w", name, err)
	}
	return a, nil
}

func own[A ifrt.Array](x ifrt.Array, mine func(A) bool) (A, error) {
	a, ok := x.(A)
	var zero A
	switch {
	case !ok || !mine(a):
		return zero, errForeign
	case a.IsDeleted():
		return zero, ifrt.ErrArrayDeleted
	}
	return a, nil
}

// Donate deletes inputs when sem is DonateInput: the end of every operation
// that takes CopySemantics.
func Donate[A ifrt.Array](sem ifrt.CopySemantics, inputs ...A) {
	if sem != ifrt.DonateInput {
		return
	}
	for _, a := range inputs {
		a.Delete()
	}
}

// Derive makes the arrays of an operation that derives one array per spec
// from inputs (copy, reshard, remap, a replicated shard): build(i) makes
// the shards of array i and newArray the array. When a build fails, discard
// (if set) gets the shards built so far and no array is made; otherwise
// inputs are donated as sem says.
func Derive[S any, In, Out ifrt.Array](inputs []In, specs []ifrt.ArraySpec, sem ifrt.CopySemantics,
	build func(i int) (S, error), discard func(S), newArray func(ifrt.ArraySpec, S) Out) ([]ifrt.Array, error) {
	made := make([]S, 0, len(specs))
	for i := range specs {
		s, err := build(i)
		if err != nil {
			for _, m := range made {
				if discard != nil {
					discard(m)
				}
			}
			return nil, err
		}
		made = append(made, s)
	}
	out := make([]ifrt.Array, len(specs))
	for i, spec := range specs {
		out[i] = newArray(spec, made[i])
	}
	Donate(sem, inputs...)
	return out, nil
}

// One returns the array of a Derive that makes one.
func One(out []ifrt.Array, err error) (ifrt.Array, error) {
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Donated returns the argument indices an execution donates: the program's
// donatable parameters less opts.NonDonatableInputs, in order; nil when none.
func Donated(donatable []int, opts *ifrt.ExecuteOptions) []int {
	var out []int
	for _, i := range donatable {
		if opts == nil || !slices.Contains(opts.NonDonatableInputs, i) {
			out = append(out, i)
		}
	}
	return out
}
