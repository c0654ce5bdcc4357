// Package shardio is the plugin program by which the Pathways cluster client
// asks a worker to store or load the shards it holds: the cluster client
// splits a persistence request by worker, and each worker writes or reads its
// own shards straight to or from storage. Both sides use these types; the
// JSON is private to this module.
package shardio

import (
	"encoding/json"

	"github.com/openpathways/pathways/ifrt"
)

// Key is the program's top-level JSON key.
const Key = "openpathways_shard_io"

// Request is the program. Writes take one argument per shard, in the order of
// Arrays and their Shards, each a single-device array; reads take none and
// return one single-device array per shard in the same order.
type Request struct {
	Location string  `json:"location"`
	Write    bool    `json:"write"`
	Arrays   []Array `json:"arrays"`
}

// Array is one stored array and the shards of it this worker writes or reads.
type Array struct {
	Name   string  `json:"name"`
	DType  string  `json:"dtype"` // ifrt.DType.String()
	Shape  []int64 `json:"shape"`
	Chunks []int64 `json:"chunks,omitempty"` // writes: the chunk shape
	// WriteMetadata says this worker writes the array's metadata (one worker
	// per array does).
	WriteMetadata bool    `json:"write_metadata,omitempty"`
	Shards        []Shard `json:"shards"`
}

// Shard is a part of the array on one of the worker's devices.
type Shard struct {
	Domain [][2]int64 `json:"domain"` // [start, end) per dimension
	Device int32      `json:"device"` // the worker's own device id
}

// IndexDomain converts the domain.
func (s Shard) IndexDomain() ifrt.IndexDomain {
	d := make(ifrt.IndexDomain, len(s.Domain))
	for i, r := range s.Domain {
		d[i] = ifrt.Range{Start: r[0], End: r[1]}
	}
	return d
}

// FromDomain converts a domain.
func FromDomain(d ifrt.IndexDomain) [][2]int64 {
	out := make([][2]int64, len(d))
	for i, r := range d {
		out[i] = [2]int64{r.Start, r.End}
	}
	return out
}

// Encode returns the program's bytes (without the PluginProgram prefix).
func Encode(r Request) ([]byte, error) {
	data, err := json.Marshal(map[string]Request{Key: r})
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "shardio: %v", err)
	}
	return data, nil
}

// Decode parses the body under Key.
func Decode(body json.RawMessage) (Request, error) {
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return r, ifrt.Errorf(ifrt.InvalidArgument, "%s: %v", Key, err)
	}
	if r.Location == "" {
		return r, ifrt.Errorf(ifrt.InvalidArgument, "%s: no location", Key)
	}
	return r, nil
}
