package shardio_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/shardio"
)

func TestRoundTrip(t *testing.T) {
	req := shardio.Request{Location: "file:///x", Write: true, Arrays: []shardio.Array{{
		Name: "w", DType: "f32", Shape: []int64{4, 2}, Chunks: []int64{2, 2}, WriteMetadata: true,
		Shards: []shardio.Shard{{Domain: shardio.FromDomain(ifrt.IndexDomain{{Start: 2, End: 4}, {Start: 0, End: 2}}), Device: 3}},
	}}}
	data, err := shardio.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	// The program is {Key: body}; Decode takes the body.
	body := data[len(`{"`+shardio.Key+`":`) : len(data)-1]
	got, err := shardio.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Arrays[0].Shards[0].IndexDomain(); d.String() != (ifrt.IndexDomain{{Start: 2, End: 4}, {Start: 0, End: 2}}).String() || got.Arrays[0].Shards[0].Device != 3 {
		t.Errorf("decoded %+v", got)
	}
	for _, bad := range []string{`{`, `{"write": true}`, `{"location": 3}`} {
		if _, err := shardio.Decode([]byte(bad)); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("Decode(%s): %v; want INVALID_ARGUMENT", bad, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"location":"file:///x","write":false,"arrays":[{"name":"w","dtype":"f32","shape":[4],"shards":[{"domain":[[0,4]],"device":0}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := shardio.Decode(body); err != nil && ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Fatalf("an error of code %v: %v", ifrt.CodeOf(err), err)
		}
	})
}
