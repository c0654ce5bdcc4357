package proxyserver

import (
	"fmt"
	"maps"
	"strings"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// init answers InitRequest with the backend's platform, devices and memories.
func (s *session) init() (*proxypb.IfrtResponse, runFunc, error) {
	b := s.backend
	p := b.Platform()
	resp := &proxypb.InitResponse{
		SessionId:       s.id,
		PlatformName:    p.Name,
		PlatformVersion: p.Version,
		PlatformId:      p.ID,
		ProcessIndex:    uint64(max(p.ProcessIndex, 0)),
		RuntimeType:     p.RuntimeType,
	}
	attrs, err := wire.AttributesToProto(clientAttributes(b.Attributes()))
	if err != nil {
		return nil, nil, err
	}
	resp.ClientAttributes = attrs
	seenMem := map[ifrt.MemoryID]bool{}
	for _, d := range b.Devices() {
		dp := &proxypb.InitResponse_Device{
			Id:              int32(d.ID),
			LocalDeviceId:   int32(d.LocalHardwareID),
			LocalHardwareId: int32(d.LocalHardwareID),
			PlatformName:    d.Platform,
			DeviceKind:      d.Kind,
			DebugString:     fmt.Sprintf("%s:%d", d.Platform, d.ID),
			ToString:        fmt.Sprintf("%sDevice(id=%d)", titleCase(d.Platform), d.ID),
		}
		if dp.PlatformName == "" {
			dp.PlatformName = p.Name
		}
		if dp.Attributes, err = wire.AttributesToProto(d.Attributes); err != nil {
			return nil, nil, err
		}
		if d.DefaultMemory != nil {
			id := int32(d.DefaultMemory.ID)
			dp.DefaultMemoryId = &id
		}
		for _, m := range d.Memories {
			dp.MemoryIds = append(dp.MemoryIds, int32(m.ID))
			if seenMem[m.ID] {
				continue
			}
			seenMem[m.ID] = true
			mp := &proxypb.InitResponse_Memory{
				Id: int32(m.ID), MemorySpaceKind: string(m.Kind),
				DebugString: m.String(), ToString: m.String(),
			}
			for _, id := range m.Devices {
				mp.DeviceIds = append(mp.DeviceIds, int32(id))
			}
			resp.Memories = append(resp.Memories, mp)
		}
		resp.AllDevices = append(resp.AllDevices, dp)
		if !d.NonPrimary {
			resp.PrimaryDeviceIds = append(resp.PrimaryDeviceIds, int32(d.ID))
		}
		if d.Addressable {
			resp.AddressableDeviceIds = append(resp.AddressableDeviceIds, int32(d.ID))
		}
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_InitResponse{InitResponse: resp}}, nil, nil
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clientAttributes adds to a backend's attributes those jaxlib reads of every
// client, where the backend does not say: jax.export reads serialize_with_sdy
// (every backend here takes Shardy's dialect), and the persistent
// compilation cache skips a client without supports_executable_serialization
// (executables do not serialize through the proxy).
func clientAttributes(a ifrt.Attributes) ifrt.Attributes {
	out := maps.Clone(a)
	if out == nil {
		out = ifrt.Attributes{}
	}
	for k, v := range map[string]any{"serialize_with_sdy": true, "supports_executable_serialization": false} {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}
