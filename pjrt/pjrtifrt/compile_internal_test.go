package pjrtifrt

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/pjrt"
)

// TestCompileOptionsMerge checks that the devices override the caller's device
// assignment and partition count, and that fields we do not know (XLA flags in
// DebugOptions) reach the plugin unchanged.
func TestCompileOptionsMerge(t *testing.T) {
	devs := ifrt.DeviceList{{ID: 5}, {ID: 2}, {ID: 7}}
	var flags []byte // DebugOptions field 1000 (varint 1): stands for any XLA flag
	flags = protowire.AppendTag(flags, 1000, protowire.VarintType)
	flags = protowire.AppendVarint(flags, 1)
	caller := &xlapb.CompileOptionsProto{
		ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{
			DeviceOrdinal: -1, NumPartitions: 8, DebugOptions: &xlapb.DebugOptions{},
		},
		CompilePortableExecutable: true,
	}
	caller.ExecutableBuildOptions.DebugOptions.ProtoReflect().SetUnknown(flags)
	in, err := proto.Marshal(caller)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		xla  []byte
	}{{"caller options", in}, {"pjrt defaults", pjrt.CompileOptions{}.Marshal()}, {"none", nil}} {
		out, err := compileOptions(devs, tc.xla, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got xlapb.CompileOptionsProto
		if err := proto.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		b := got.GetExecutableBuildOptions()
		if b.GetNumReplicas() != 1 || b.GetNumPartitions() != 3 || !b.GetUseSpmdPartitioning() || !b.GetUseShardyPartitioner() || got.GetCompilePortableExecutable() {
			t.Errorf("%s: build options %v, portable %v", tc.name, b, got.GetCompilePortableExecutable())
		}
		if b.GetDeviceOrdinal() != -1 {
			t.Errorf("%s: device ordinal %d, want -1", tc.name, b.GetDeviceOrdinal())
		}
		da := b.GetDeviceAssignment()
		if da.GetReplicaCount() != 1 || da.GetComputationCount() != 3 || len(da.GetComputationDevices()) != 3 {
			t.Fatalf("%s: device assignment %v", tc.name, da)
		}
		for i, cd := range da.GetComputationDevices() {
			if ids := cd.GetReplicaDeviceIds(); len(ids) != 1 || ids[0] != int64(devs[i].ID) {
				t.Errorf("%s: partition %d on %v, want %d", tc.name, i, ids, devs[i].ID)
			}
		}
		if tc.xla != nil && tc.name == "caller options" {
			if got := b.GetDebugOptions().ProtoReflect().GetUnknown(); string(got) != string(flags) {
				t.Errorf("XLA flags lost: %x, want %x", got, flags)
			}
		}
	}
	if _, err := compileOptions(devs, []byte{0xff}, false); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("bad options: %v", err)
	}
	replicas, _ := proto.Marshal(&xlapb.CompileOptionsProto{ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{NumReplicas: 2}})
	if _, err := compileOptions(devs, replicas, false); ifrt.CodeOf(err) != ifrt.Unimplemented {
		t.Errorf("2 replicas: %v", err)
	}
}

func TestDTypeMapping(t *testing.T) {
	for _, d := range ifrt.AllDTypes() {
		bt, ok := BufferType(d)
		if d == ifrt.STRING {
			if ok {
				t.Errorf("STRING maps to %v", bt)
			}
			continue
		}
		if !ok {
			t.Errorf("%v has no PJRT type", d)
			continue
		}
		if back, ok := DType(bt); !ok || back != d {
			t.Errorf("%v -> %v -> %v", d, bt, back)
		}
		if d != ifrt.TOKEN && (bt.Bits() != d.BitWidth() || bt.ByteSize() != d.HostByteSize()) {
			t.Errorf("%v: %d bits, %d host bytes; PJRT %v: %d bits, %d bytes", d, d.BitWidth(), d.HostByteSize(), bt, bt.Bits(), bt.ByteSize())
		}
	}
}
