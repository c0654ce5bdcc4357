package worker

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/worker/workerpb"
)

// split cuts b into buffers of at most n bytes, as the transport hands a
// message over in its HTTP/2 frames.
func split(b []byte, n int) mem.BufferSlice {
	var s mem.BufferSlice
	for len(b) > 0 {
		k := min(n, len(b))
		s = append(s, mem.SliceBuffer(b[:k]))
		b = b[k:]
	}
	return s
}

type decodedFrame struct {
	Launch     uint64
	From, To   int32
	Collective uint64
	Message    uint32
	Size       int64
	Data       []byte
}

func decoded(f *inFrame) decodedFrame {
	var data bytes.Buffer
	_ = f.writeTo(&data)
	return decodedFrame{f.launch, f.from, f.to, f.tag.Collective, f.tag.Message, f.size, data.Bytes()}
}

// TestExchangeFrameWire checks that an outFrame encodes as the ExchangeFrame
// with the same fields, and that inFrame decodes both its encoding and the
// generated message's, however the transport cuts the bytes.
func TestExchangeFrameWire(t *testing.T) {
	big := make([]byte, 3*smallFrameData+5)
	for i := range big {
		big[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		name string
		out  outFrame
	}{
		{"empty", outFrame{launch: 1}},
		{"small", outFrame{launch: 7, from: 1, to: 2, tag: stablehlo.Tag{Collective: 3, Message: 4}, size: 3, data: []byte{1, 2, 3}}},
		{"large", outFrame{launch: math.MaxUint64, from: -1, to: math.MaxInt32, tag: stablehlo.Tag{Collective: math.MaxUint64, Message: math.MaxUint32}, size: int64(len(big)), data: big}},
		{"later frame", outFrame{launch: 9, from: 3, data: big[:smallFrameData]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.out.written = newWritten()
			bufs, err := tc.out.MarshalBuffers()
			if err != nil {
				t.Fatal(err)
			}
			wire := bufs.Materialize()
			bufs.Free()
			want := decodedFrame{tc.out.launch, tc.out.from, tc.out.to, tc.out.tag.Collective, tc.out.tag.Message, tc.out.size, tc.out.data}
			var m workerpb.ExchangeFrame
			if err := proto.Unmarshal(wire, &m); err != nil {
				t.Fatalf("the encoding is not an ExchangeFrame: %v", err)
			}
			gen := decodedFrame{m.GetLaunchId(), m.GetFrom(), m.GetTo(), m.GetCollective(), m.GetMessage(), m.GetSize(), m.GetData()}
			if diff := cmp.Diff(want, gen, cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("as an ExchangeFrame (-want +got):\n%s", diff)
			}
			for _, enc := range [][]byte{wire, mustMarshal(t, &m)} {
				for _, cut := range []int{1, 5, 16 << 10} {
					var f inFrame
					f.UnmarshalBuffers(split(enc, cut))
					if err := f.DecodeFailure(); err != nil {
						t.Fatalf("cut every %d bytes: %v", cut, err)
					}
					if diff := cmp.Diff(want, decoded(&f), cmp.Comparer(bytes.Equal)); diff != "" {
						t.Errorf("decoded, cut every %d bytes (-want +got):\n%s", cut, diff)
					}
					if err := f.free(); err != nil {
						t.Errorf("free: %v", err)
					}
				}
			}
		})
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWrittenWaitsForTheTransport checks that a large frame's data counts
// as held until the transport frees its buffer.
func TestWrittenWaitsForTheTransport(t *testing.T) {
	w := newWritten()
	f := &outFrame{launch: 1, data: make([]byte, smallFrameData), written: w}
	bufs, err := f.MarshalBuffers()
	if err != nil {
		t.Fatal(err)
	}
	w.release()
	select {
	case <-w.done:
		t.Fatal("the frame counts as written while the transport holds its data")
	default:
	}
	bufs.Free()
	select {
	case <-w.done:
	default:
		t.Fatal("the frame does not count as written after the transport freed its data")
	}
}

// FuzzInFrame checks that any bytes decode as the generated ExchangeFrame
// decodes them, or fail where it fails.
func FuzzInFrame(f *testing.F) {
	f.Add([]byte{}, 3)
	f.Add(mustMarshalF(&workerpb.ExchangeFrame{LaunchId: 5, From: 1, To: 2, Collective: 3, Message: 4, Size: 2, Data: []byte{9, 8}}), 2)
	f.Add(mustMarshalF(&workerpb.ExchangeFrame{Data: []byte{1}, From: -4}), 1)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var m workerpb.ExchangeFrame
		perr := proto.Unmarshal(b, &m)
		var fr inFrame
		fr.UnmarshalBuffers(split(b, max(1, cut%64)))
		ferr := fr.DecodeFailure()
		if (perr == nil) != (ferr == nil) {
			t.Fatalf("proto.Unmarshal: %v, inFrame: %v", perr, ferr)
		}
		if perr != nil {
			return
		}
		want := decodedFrame{m.GetLaunchId(), m.GetFrom(), m.GetTo(), m.GetCollective(), m.GetMessage(), m.GetSize(), m.GetData()}
		if diff := cmp.Diff(want, decoded(&fr), cmp.Comparer(bytes.Equal)); diff != "" {
			t.Errorf("(-proto +inFrame):\n%s", diff)
		}
	})
}

func mustMarshalF(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}
