package proxyserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy/internal/wire"
)

func reshardBody(t testing.TB, donate bool, in, out []int, op ifrt.OpSharding) string {
	t.Helper()
	raw, err := proto.Marshal(wire.OpShardingToProto(op))
	if err != nil {
		t.Fatal(err)
	}
	sharding := func(ids []int) string {
		return fmt.Sprintf(`{"devices": {"device_ids": %s}, "xla_hlo_sharding": %q}`, jsonInts(ids), base64.StdEncoding.EncodeToString(raw))
	}
	return fmt.Sprintf(`{"donateInput": %v, "inSharding": [%s], "outSharding": [%s]}`, donate, sharding(in), sharding(out))
}

func jsonInts(v []int) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s + "]"
}

// FuzzReshardPlugin feeds the reshard plugin program arbitrary bodies: each
// either compiles and runs on a real array or fails with a clear code, never
// panics.
func FuzzReshardPlugin(f *testing.F) {
	backend, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		f.Fatal(err)
	}
	defer backend.Close()
	f.Add(reshardBody(f, false, []int{0, 1}, []int{2, 3}, ifrt.Replicated()))
	f.Add(reshardBody(f, true, []int{0, 1}, []int{3, 2}, ifrt.OpSharding{Type: ifrt.OpShardingOther, TileAssignmentDimensions: []int64{2}, IotaReshapeDims: []int64{2}}))
	f.Add(`{"inSharding": [], "outSharding": []}`)
	f.Add(`{"inSharding": [{"devices": {"device_ids": [99]}}], "outSharding": [{}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		ctx := context.Background()
		pe, err := reshardPlugin(ctx, backend, []byte(body))
		if err != nil {
			if c := ifrt.CodeOf(err); c != ifrt.InvalidArgument && c != ifrt.NotFound {
				t.Fatalf("reshardPlugin(%q): %v with code %v, want INVALID_ARGUMENT or NOT_FOUND", body, err, c)
			}
			return
		}
		devs := backend.Devices()[:2]
		a, err := backend.MakeArrayFromHostBuffer(ctx, make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4},
			Sharding: &ifrt.HloSharding{DeviceList: devs, Spec: ifrt.Replicated()}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Delete()
		if outs, err := pe.Execute(ctx, []ifrt.Array{a}); err == nil {
			for _, o := range outs {
				o.Delete()
			}
		}
	})
}
