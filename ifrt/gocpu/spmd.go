package gocpu

import (
	"context"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
)

// runPartitioned runs a program with collectives or manual partitioning as
// one process per device of the executable (partition p on devices[p]),
// connected by an in-process stablehlo.LocalGroup. Each process gets its
// shard of every argument as the parameter's sharding places it, straight
// from the argument's shard on that device when the shardings agree, and
// each output shard stays with the device that computed it. A failing
// partition stops the others; the error is the one that partition hit.
func (e *executable) runPartitioned(ctx context.Context, arrays []*array) ([]ifrt.Array, error) {
	n := len(e.devices)
	args := make([][]*stablehlo.Tensor, n)
	for p := range args {
		args[p] = make([]*stablehlo.Tensor, len(arrays))
	}
	for i, a := range arrays {
		shards, err := e.shardsFor(i, a)
		if err != nil {
			return nil, err
		}
		for p, s := range shards {
			args[p][i] = s
		}
	}
	results, err := e.module.RunProcesses(ctx, args)
	if err != nil {
		return nil, fromStablehlo(err)
	}
	outs := make([]ifrt.Array, len(e.outputs))
	for k, info := range e.outputs {
		s, err := e.shardingOf(info)
		if err != nil {
			return nil, err
		}
		spec := ifrt.ArraySpec{DType: info.DType, Shape: info.Shape, Sharding: s}
		shards := make([][]byte, n)
		for p := range shards {
			shards[p] = results[p][k].Data
		}
		outs[k] = e.client.newArray(spec, shards)
	}
	return outs, nil
}

// shardsFor returns argument i's shard for each partition, as parameter i's
// sharding places it.
func (e *executable) shardsFor(i int, a *array) ([]*stablehlo.Tensor, error) {
	param := e.module.Main().Params()[i]
	want, err := e.shardingOf(e.params[i])
	if err != nil {
		return nil, err
	}
	domains, err := want.IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return nil, err
	}
	have, err := a.ArraySpec.Sharding.IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return nil, err
	}
	held, err := a.data()
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
	}
	var dense []byte // assembled once, when some shard must be cut anew
	out := make([]*stablehlo.Tensor, len(e.devices))
	for p, d := range e.devices {
		t := stablehlo.TensorType{Elem: param.Type.Elem, Shape: slices.Clone(domains[p].Shape())}
		if k := a.ArraySpec.Sharding.Devices().Index(d.ID); k >= 0 && slices.Equal(have[k], domains[p]) {
			out[p] = &stablehlo.Tensor{Type: t, Data: held[k]}
			continue
		}
		if dense == nil {
			if dense, err = a.dense(); err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
			}
		}
		out[p] = &stablehlo.Tensor{Type: t, Data: ifrt.ExtractDomain(dense, a.ArraySpec.DType.HostByteSize(), a.ArraySpec.Shape, domains[p])}
	}
	return out, nil
}
