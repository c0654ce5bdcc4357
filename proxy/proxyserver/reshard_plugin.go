package proxyserver

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
)

// ReshardPluginKey is the plugin program of pathwaysutils.experimental.reshard:
// move arrays to other shardings, on any devices, as one program. Every server
// serves it (Config.PluginPrograms may replace it).
const ReshardPluginKey = "reshardRequest"

// reshardRequest is the JSON body of the reshard plugin program.
type reshardRequest struct {
	DonateInput bool             `json:"donateInput"`
	InSharding  []pluginSharding `json:"inSharding"`
	OutSharding []pluginSharding `json:"outSharding"`
}

// pluginSharding is one sharding as pathwaysutils writes it: devices by id, a
// serialized xla.OpSharding in base64, and an optional memory kind.
type pluginSharding struct {
	Devices struct {
		DeviceIDs []int64 `json:"device_ids"`
	} `json:"devices"`
	XLAHloSharding string `json:"xla_hlo_sharding"`
	MemoryKind     string `json:"memory_kind"`
}

// reshardPlugin compiles a reshard plugin program: its execution reshards
// argument i to OutSharding[i] on the backend.
func reshardPlugin(_ context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error) {
	var req reshardRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "reshardRequest: %v", err)
	}
	if len(req.OutSharding) == 0 || len(req.InSharding) != len(req.OutSharding) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "reshardRequest: %d input and %d output shardings; want as many of each, at least one",
			len(req.InSharding), len(req.OutSharding))
	}
	in, err := req.InSharding[0].sharding(backend)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "reshardRequest: inSharding[0]: %w", err)
	}
	outs := make([]ifrt.Sharding, len(req.OutSharding))
	for i, ps := range req.OutSharding {
		if outs[i], err = ps.sharding(backend); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "reshardRequest: outSharding[%d]: %w", i, err)
		}
	}
	sem := ifrt.AlwaysCopy
	if req.DonateInput {
		sem = ifrt.DonateInput
	}
	return &PluginExecutable{
		Name:             "reshard",
		Devices:          in.Devices(),
		DonatesArguments: req.DonateInput,
		Execute: func(ctx context.Context, args []ifrt.Array) ([]ifrt.Array, error) {
			if len(args) != len(outs) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "reshardRequest: %d arrays for %d shardings", len(args), len(outs))
			}
			specs := make([]ifrt.ArraySpec, len(args))
			for i, a := range args {
				specs[i] = ifrt.ArraySpec{DType: a.DType(), Shape: a.Shape(), Sharding: outs[i]}
			}
			return backend.Reshard(ctx, args, specs, sem)
		},
	}, nil
}

func (ps pluginSharding) sharding(backend ifrt.Client) (ifrt.Sharding, error) {
	if len(ps.Devices.DeviceIDs) == 0 || len(ps.Devices.DeviceIDs) > len(backend.Devices()) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "%d devices; the server has %d", len(ps.Devices.DeviceIDs), len(backend.Devices()))
	}
	devs := make(ifrt.DeviceList, len(ps.Devices.DeviceIDs))
	for i, id := range ps.Devices.DeviceIDs {
		d, err := backend.LookupDevice(ifrt.DeviceID(id))
		if err != nil {
			return nil, err
		}
		devs[i] = d
	}
	raw, err := base64.StdEncoding.DecodeString(ps.XLAHloSharding)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "xla_hlo_sharding is not base64: %v", err)
	}
	var pb xlapb.OpSharding
	if err := proto.Unmarshal(raw, &pb); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "xla_hlo_sharding is not an xla.OpSharding: %v", err)
	}
	op, err := wire.OpShardingFromProto(&pb)
	if err != nil {
		return nil, err
	}
	return ifrt.NewHloSharding(devs, ifrt.MemoryKind(ps.MemoryKind), op)
}
