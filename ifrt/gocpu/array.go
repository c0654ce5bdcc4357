package gocpu

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// array holds one dense row-major byte slice per device of its sharding. Shard bytes
// are never written after the array is made, so arrays may share them.
type array struct {
	ifrt.UnimplementedArray

	client *Client
	backend.Described
	shards backend.Shards[[]byte]
}

// newArray registers an array made of shards with the client.
func (c *Client) newArray(spec ifrt.ArraySpec, shards [][]byte) *array {
	a := &array{client: c, Described: backend.Described{ArraySpec: spec}}
	a.shards.Hold(shards)
	if !c.life.Arrays.Add(a) {
		a.free() // the client closed meanwhile
	}
	return a
}

func (a *array) As(any) bool { return false }

// Ready is always resolved: gocpu computes arrays before returning them.
func (a *array) Ready() *ifrt.Future {
	if a.IsDeleted() {
		return ifrt.ReadyFuture(ifrt.ErrArrayDeleted)
	}
	return ifrt.ReadyFuture(nil)
}

func (a *array) IsDeleted() bool { return a.shards.IsDeleted() }

func (a *array) Delete() *ifrt.Future {
	a.free()
	a.client.life.Arrays.Remove(a)
	return ifrt.ReadyFuture(nil)
}

func (a *array) free() { a.shards.Take() }

// data returns the shards, or ErrArrayDeleted.
func (a *array) data() (shards [][]byte, err error) {
	err = a.shards.Read(func(s [][]byte) { shards = s })
	return shards, err
}

// HostBytes lends the contents of an array on one device: shard bytes are
// never written, and Go keeps them alive for whoever holds them.
func (a *array) HostBytes() ([]byte, bool, error) {
	shards, err := a.data()
	if err != nil || len(shards) != 1 {
		return nil, false, err
	}
	return shards[0], true, nil
}

// dense returns the array's whole contents, dense row-major.
func (a *array) dense() ([]byte, error) {
	shards, err := a.data()
	if err != nil {
		return nil, err
	}
	if len(shards) == 1 {
		return shards[0], nil
	}
	domains, err := a.ArraySpec.Sharding.IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return nil, err
	}
	return ifrt.AssembleDense(a.ArraySpec.DType.HostByteSize(), a.ArraySpec.Shape, domains, shards), nil
}

func (a *array) CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error {
	if err := a.client.check.CopyToHost(a, dst, byteStrides); err != nil {
		return err
	}
	full, err := a.dense()
	if err != nil {
		return err
	}
	ifrt.CopyDenseToStrided(dst, full, a.ArraySpec.DType, a.ArraySpec.Shape, byteStrides)
	return nil
}
