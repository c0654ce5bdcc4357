package worker

import (
	"bytes"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/openpathways/pathways/internal/xlapb"
)

// canonicalOptions returns serialized xla.CompileOptionsProto bytes in a form
// that does not depend on the writer's map order: JAX writes map fields
// (some unknown to our copy of the schema) in a different order on each run,
// which would make every run a cache miss. Known fields are marshalled
// deterministically; the unknown fields of each message are sorted by their
// encoded bytes (they are map entries in practice, whose order means nothing).
// Options that do not parse are returned as they are.
func canonicalOptions(xla []byte) []byte {
	var o xlapb.CompileOptionsProto
	if len(xla) == 0 || proto.Unmarshal(xla, &o) != nil {
		return xla
	}
	sortUnknown(o.ProtoReflect())
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(&o)
	if err != nil {
		return xla
	}
	return out
}

func sortUnknown(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				sortUnknown(mv.Message())
				return true
			})
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				sortUnknown(v.List().Get(i).Message())
			}
		case !fd.IsMap() && !fd.IsList() && fd.Message() != nil:
			sortUnknown(v.Message())
		}
		return true
	})
	raw := m.GetUnknown()
	if len(raw) == 0 {
		return
	}
	var records [][]byte
	for len(raw) > 0 {
		_, _, n := protowire.ConsumeField(raw)
		if n < 0 {
			return // malformed: leave it as it is
		}
		records = append(records, raw[:n])
		raw = raw[n:]
	}
	slices.SortStableFunc(records, bytes.Compare)
	m.SetUnknown(bytes.Join(records, nil))
}
