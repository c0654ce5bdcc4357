package ifrt

import "context"

// Persister is an optional interface of a Client whose arrays can be saved to
// storage and restored by whoever holds their shards, such as the Pathways
// cluster client, whose workers write and read their own shards. Servers use it
// for pathwaysutils' persistence plugin programs (Orbax checkpoints).
//
// An array is stored as name under location (a storage URL such as
// "gs://bucket/ckpt/100/state" or "file:///dir"), in the layout Orbax writes
// without Pathways, so either can read what the other wrote.
type Persister interface {
	// WriteArrays stores arrays[i] as names[i] under location; it returns
	// when every byte is stored.
	WriteArrays(ctx context.Context, location string, names []string, arrays []Array) error
	// ReadArrays makes one array of specs[i] from the array stored as names[i]
	// under location, each device reading its own shard.
	ReadArrays(ctx context.Context, location string, names []string, specs []ArraySpec) ([]Array, error)
}
