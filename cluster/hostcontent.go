package cluster

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// ReadHostContent reads a STRING array (see ifrt.HostContentReader) from its
// worker: one shard's content when every shard holds the whole array (a
// single-device or replicated array, such as the output specs a colocated
// Python function reports).
func (a *array) ReadHostContent(ctx context.Context) ([]byte, error) {
	if err := a.c.checkOpen(); err != nil {
		return nil, err
	}
	shards, err := a.live()
	if err != nil {
		return nil, err
	}
	all := make([]ifrt.IndexDomain, len(shards))
	for i, s := range shards {
		all[i] = s.domain
	}
	unique := backend.UniqueDomains(all)
	if len(unique) != 1 || !all[unique[0]].Shape().Equal(a.ArraySpec.Shape) {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "cluster: reading a sharded STRING array")
	}
	s := shards[unique[0]]
	b, err := ifrt.ReadHostContent(ctx, s.array)
	return b, a.c.shardError(s, err)
}
