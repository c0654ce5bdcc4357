package proxyserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// The plugin programs of pathwaysutils' persistence API, which Orbax's
// Pathways array handler (ENABLE_PATHWAYS_PERSISTENCE=1) saves and restores
// arrays with. Every server serves them; a backend that is not an
// ifrt.Persister refuses them with UNIMPLEMENTED when they compile.
const (
	PersistenceWriteKey     = "persistenceWriteRequest"
	PersistenceReadKey      = "persistenceReadRequest"
	BulkPersistenceWriteKey = "bulk_persistence_write_request"
	BulkPersistenceReadKey  = "bulk_persistence_read_request"
)

// persistenceRequest is one array of a persistence program. Shape is the
// dimensions for a write, and {xla_primitive_type_str, dimensions} for a
// read.
type persistenceRequest struct {
	B64Location    string          `json:"b64_location"`
	B64Name        string          `json:"b64_name"`
	B64HloSharding string          `json:"b64_hlo_sharding_string"`
	Shape          json.RawMessage `json:"shape"`
	Devices        struct {
		DeviceIDs []int64 `json:"device_ids"`
	} `json:"devices"`
	Timeout struct {
		Seconds int64 `json:"seconds"`
		Nanos   int64 `json:"nanos"`
	} `json:"timeout"`
}

type readShape struct {
	Type       string  `json:"xla_primitive_type_str"`
	Dimensions []int64 `json:"dimensions"`
}

// persistenceEntry is a decoded persistenceRequest.
type persistenceEntry struct {
	location, name string
	spec           ifrt.ArraySpec // reads: what to make; writes: the sharding only
	shape          ifrt.Shape
	timeout        time.Duration
}

func persistencePlugins() map[string]PluginHandler {
	single := func(write bool) PluginHandler {
		return func(ctx context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error) {
			return persistencePlugin(backend, write, []json.RawMessage{body})
		}
	}
	bulk := func(write bool, field string) PluginHandler {
		return func(ctx context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error) {
			var b map[string][]json.RawMessage
			if err := json.Unmarshal(body, &b); err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "persistence: %v", err)
			}
			if len(b) != 1 || b[field] == nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "persistence: the bulk request has no %q list", field)
			}
			return persistencePlugin(backend, write, b[field])
		}
	}
	return map[string]PluginHandler{
		PersistenceWriteKey:     single(true),
		PersistenceReadKey:      single(false),
		BulkPersistenceWriteKey: bulk(true, "write_requests"),
		BulkPersistenceReadKey:  bulk(false, "read_requests"),
	}
}

func persistencePlugin(backend ifrt.Client, write bool, bodies []json.RawMessage) (*PluginExecutable, error) {
	p, ok := backend.(ifrt.Persister)
	if !ok && !backend.As(&p) {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "persistence: this server's backend (%s) cannot store arrays; the Pathways cluster backend can", backend.Platform().Name)
	}
	if len(bodies) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "persistence: no arrays")
	}
	entries := make([]persistenceEntry, len(bodies))
	var timeout time.Duration
	for i, body := range bodies {
		e, err := decodePersistence(backend, write, body)
		if err != nil {
			return nil, ifrt.Errorf(ifrt.CodeOf(err), "persistence: array %d: %w", i, err)
		}
		entries[i] = e
		timeout = max(timeout, e.timeout)
	}
	withTimeout := func(ctx context.Context) (context.Context, context.CancelFunc) {
		if timeout <= 0 {
			return context.WithCancel(ctx)
		}
		return context.WithTimeout(ctx, timeout)
	}
	devices := entries[0].spec.Sharding.Devices()
	if write {
		return &PluginExecutable{Name: "persistence_write", Devices: devices, Execute: func(ctx context.Context, args []ifrt.Array) ([]ifrt.Array, error) {
			if len(args) != len(entries) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "persistence: %d arrays for %d write requests", len(args), len(entries))
			}
			for i, a := range args {
				if !a.Shape().Equal(entries[i].shape) {
					return nil, ifrt.Errorf(ifrt.InvalidArgument, "persistence: array %d has shape %v; the request says %v", i, a.Shape(), entries[i].shape)
				}
			}
			ctx, cancel := withTimeout(ctx)
			defer cancel()
			for _, g := range byLocation(entries) {
				names, arrays := make([]string, len(g)), make([]ifrt.Array, len(g))
				for k, i := range g {
					names[k], arrays[k] = entries[i].name, args[i]
				}
				if err := p.WriteArrays(ctx, entries[g[0]].location, names, arrays); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}, nil
	}
	return &PluginExecutable{Name: "persistence_read", Devices: devices, Execute: func(ctx context.Context, _ []ifrt.Array) ([]ifrt.Array, error) {
		ctx, cancel := withTimeout(ctx)
		defer cancel()
		outs := make([]ifrt.Array, len(entries))
		for _, g := range byLocation(entries) {
			names, specs := make([]string, len(g)), make([]ifrt.ArraySpec, len(g))
			for k, i := range g {
				names[k], specs[k] = entries[i].name, entries[i].spec
			}
			arrays, err := p.ReadArrays(ctx, entries[g[0]].location, names, specs)
			if err != nil {
				for _, a := range outs {
					if a != nil {
						a.Delete()
					}
				}
				return nil, err
			}
			for k, i := range g {
				outs[i] = arrays[k]
			}
		}
		return outs, nil
	}}, nil
}

// byLocation groups entry indices by location, in order of first appearance.
func byLocation(entries []persistenceEntry) [][]int {
	var groups [][]int
	at := map[string]int{}
	for i, e := range entries {
		g, ok := at[e.location]
		if !ok {
			g = len(groups)
			at[e.location] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

func decodePersistence(backend ifrt.Client, write bool, body json.RawMessage) (persistenceEntry, error) {
	var r persistenceRequest
	var e persistenceEntry
	if err := json.Unmarshal(body, &r); err != nil {
		return e, ifrt.Errorf(ifrt.InvalidArgument, "%v", err)
	}
	loc, err := base64.StdEncoding.DecodeString(r.B64Location)
	if err != nil || len(loc) == 0 {
		return e, ifrt.Errorf(ifrt.InvalidArgument, "b64_location is not a base64 location")
	}
	name, err := base64.StdEncoding.DecodeString(r.B64Name)
	if err != nil || len(name) == 0 {
		return e, ifrt.Errorf(ifrt.InvalidArgument, "b64_name is not a base64 name")
	}
	e.location, e.name = string(loc), string(name)
	if r.Timeout.Seconds < 0 || r.Timeout.Nanos < 0 {
		return e, ifrt.Errorf(ifrt.InvalidArgument, "negative timeout")
	}
	e.timeout = time.Duration(r.Timeout.Seconds)*time.Second + time.Duration(r.Timeout.Nanos)
	if write {
		if err := json.Unmarshal(r.Shape, &e.shape); err != nil {
			return e, ifrt.Errorf(ifrt.InvalidArgument, "shape: %v", err)
		}
	} else {
		var s readShape
		if err := json.Unmarshal(r.Shape, &s); err != nil {
			return e, ifrt.Errorf(ifrt.InvalidArgument, "shape: %v", err)
		}
		dt, err := ifrt.ParseDType(strings.ToLower(s.Type))
		if err != nil {
			return e, err
		}
		e.shape, e.spec.DType = s.Dimensions, dt
	}
	if e.shape == nil {
		e.shape = ifrt.Shape{}
	}
	if err := e.shape.Validate(); err != nil {
		return e, err
	}
	ps := pluginSharding{XLAHloSharding: r.B64HloSharding}
	ps.Devices.DeviceIDs = r.Devices.DeviceIDs
	if e.spec.Sharding, err = ps.sharding(backend); err != nil {
		return e, err
	}
	e.spec.Shape = e.shape
	return e, nil
}
