package cluster

import (
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/worker/workerpb"
)

func TestDecodeTraceChunk(t *testing.T) {
	good := &workerpb.TraceEvent{Name: "backend.Execute", Thread: "session 1", StartNs: 10, DurationNs: 5, Args: map[string]string{"code": "OK"}}
	events, err := decodeTraceChunk(&workerpb.TraceChunk{Events: []*workerpb.TraceEvent{good}}, 0)
	if err != nil || len(events) != 1 || events[0].Start != 10 || events[0].Duration != 5 || events[0].Args["code"] != "OK" {
		t.Fatalf("a good chunk: %+v, %v", events, err)
	}
	long := strings.Repeat("x", maxTraceString+1)
	manyArgs := map[string]string{}
	for i := range maxTraceArgs + 1 {
		manyArgs[strings.Repeat("k", i+1)] = ""
	}
	for name, e := range map[string]*workerpb.TraceEvent{
		"no name":           {StartNs: 1},
		"negative start":    {Name: "x", StartNs: -1},
		"negative duration": {Name: "x", DurationNs: -1},
		"end overflows":     {Name: "x", StartNs: math.MaxInt64, DurationNs: 1},
		"long name":         {Name: long},
		"long thread":       {Name: "x", Thread: long},
		"long arg":          {Name: "x", Args: map[string]string{"k": long}},
		"too many args":     {Name: "x", Args: manyArgs},
	} {
		if _, err := decodeTraceChunk(&workerpb.TraceChunk{Events: []*workerpb.TraceEvent{good, e}}, 0); ifrt.CodeOf(err) != ifrt.Internal {
			t.Errorf("%s: %v, want INTERNAL", name, err)
		}
	}
	if _, err := decodeTraceChunk(&workerpb.TraceChunk{Events: []*workerpb.TraceEvent{good}}, profiling.MaxEvents); ifrt.CodeOf(err) != ifrt.Internal {
		t.Errorf("past MaxEvents: %v, want INTERNAL", err)
	}
	if _, err := decodeTraceChunk(&workerpb.TraceChunk{Dropped: -1}, 0); ifrt.CodeOf(err) != ifrt.Internal {
		t.Errorf("negative dropped count: %v, want INTERNAL", err)
	}
}

// FuzzDecodeTraceChunk: whatever a worker sends decodes to events within
// bounds or fails with INTERNAL; never a panic.
func FuzzDecodeTraceChunk(f *testing.F) {
	seed, _ := proto.Marshal(&workerpb.TraceChunk{Events: []*workerpb.TraceEvent{
		{Name: "IfrtProxy/CompileRequest", Category: "request", Thread: "session 3", StartNs: 100, DurationNs: 20, Args: map[string]string{"op_id": "1"}},
	}, Dropped: 2, Last: true})
	f.Add(seed, 0)
	f.Add([]byte{0x0a, 0x02, 0x20, 0x01}, profiling.MaxEvents)
	f.Fuzz(func(t *testing.T, data []byte, have int) {
		var chunk workerpb.TraceChunk
		if proto.Unmarshal(data, &chunk) != nil || have < 0 || have > profiling.MaxEvents {
			return
		}
		events, err := decodeTraceChunk(&chunk, have)
		if err != nil {
			if ifrt.CodeOf(err) != ifrt.Internal {
				t.Fatalf("error without INTERNAL: %v", err)
			}
			return
		}
		for _, e := range events {
			if e.Name == "" || e.Start < 0 || e.Duration < 0 || e.Start+e.Duration < e.Start {
				t.Fatalf("decoded an out-of-bounds event %+v", e)
			}
		}
	})
}
