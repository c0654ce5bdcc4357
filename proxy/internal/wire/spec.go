package wire

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Serialized type names of the IFRT layouts (LayoutProto.serialized_layout.type_name).
const (
	TypeCompactLayout = "xla::ifrt::CompactLayout"
	TypePjRtLayout    = "xla::ifrt::PjRtLayout"
)

// ArraySpecToProto encodes s.
func ArraySpecToProto(s ifrt.ArraySpec) (*proxypb.ArraySpecProto, error) {
	dt, err := DTypeToProto(s.DType)
	if err != nil {
		return nil, err
	}
	sh, err := ShardingToProto(s.Sharding)
	if err != nil {
		return nil, err
	}
	p := &proxypb.ArraySpecProto{Dtype: dt, Shape: ShapeToProto(s.Shape), Sharding: sh}
	if s.Layout != nil {
		if p.Layout, err = XLALayoutToBytes(s.Layout); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// ArraySpecFromProto decodes p and validates the result with
// ifrt.ArraySpec.Validate (the sharding must split the shape).
func ArraySpecFromProto(p *proxypb.ArraySpecProto, lookup DeviceLookup) (ifrt.ArraySpec, error) {
	if p == nil {
		return ifrt.ArraySpec{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing array spec")
	}
	var s ifrt.ArraySpec
	var err error
	if s.DType, err = DTypeFromProto(p.GetDtype()); err != nil {
		return ifrt.ArraySpec{}, err
	}
	if s.Shape, err = ShapeFromProto(p.GetShape()); err != nil {
		return ifrt.ArraySpec{}, err
	}
	if s.Sharding, err = ShardingFromProto(p.GetSharding(), lookup); err != nil {
		return ifrt.ArraySpec{}, err
	}
	if p.Layout != nil {
		if s.Layout, err = XLALayoutFromBytes(p.Layout); err != nil {
			return ifrt.ArraySpec{}, err
		}
		if err := checkLayoutRank(s.Layout, len(s.Shape)); err != nil {
			return ifrt.ArraySpec{}, err
		}
	}
	if err := s.Validate(); err != nil {
		return ifrt.ArraySpec{}, err
	}
	return s, nil
}

// XLALayoutToProto encodes l as an xla.LayoutProto.
func XLALayoutToProto(l *ifrt.Layout) *xlapb.LayoutProto {
	return &xlapb.LayoutProto{MinorToMajor: append([]int64{}, l.MinorToMajor...)}
}

// XLALayoutFromProto decodes an xla.LayoutProto. Only the dimension order is
// kept: tiling, element size and memory space are dropped, as ifrt.Layout has
// no place for them. minor_to_major must be a permutation.
func XLALayoutFromProto(p *xlapb.LayoutProto) (*ifrt.Layout, error) {
	if p == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing layout")
	}
	l := &ifrt.Layout{MinorToMajor: append([]int64{}, p.GetMinorToMajor()...)}
	if err := checkPermutation(l.MinorToMajor); err != nil {
		return nil, err
	}
	return l, nil
}

// XLALayoutToBytes encodes l as a serialized xla::PjRtLayout, the form of
// ArraySpecProto.layout and GetDefaultLayoutResponse.serialized_pjrt_layout.
// jaxlib 0.10.2 serializes a PjRtLayout as the layout's text, e.g. "{1,0}",
// and refuses anything else, so that is what this writes.
func XLALayoutToBytes(l *ifrt.Layout) ([]byte, error) {
	if l == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing layout")
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// XLALayoutFromBytes decodes a serialized xla::PjRtLayout: the layout's text
// ("{1,0}", "{1,0:T(8,128)}", what jaxlib 0.10.2 writes) or a serialized
// xla.LayoutProto (what other XLA versions may write). Only the dimension
// order is kept, as in XLALayoutFromProto.
func XLALayoutFromBytes(b []byte) (*ifrt.Layout, error) {
	if len(b) > 0 && b[0] == '{' {
		return parseLayoutText(string(b))
	}
	var p xlapb.LayoutProto
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: malformed layout: neither layout text nor an xla.LayoutProto: %v", err)
	}
	return XLALayoutFromProto(&p)
}

func parseLayoutText(s string) (*ifrt.Layout, error) {
	if len(s) > 4096 || !strings.HasSuffix(s, "}") {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: malformed layout text %.40q", s)
	}
	body := s[1 : len(s)-1]
	if i := strings.IndexByte(body, ':'); i >= 0 {
		body = body[:i]
	}
	l := &ifrt.Layout{MinorToMajor: []int64{}}
	if strings.TrimSpace(body) != "" {
		for _, f := range strings.Split(body, ",") {
			d, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: malformed layout text %.40q", s)
			}
			l.MinorToMajor = append(l.MinorToMajor, d)
		}
	}
	if err := checkPermutation(l.MinorToMajor); err != nil {
		return nil, err
	}
	return l, nil
}

// LayoutToProto encodes l as an IFRT LayoutProto holding a PjRtLayout (the
// form every upstream server understands). A nil layout, the default, is a
// nil message.
func LayoutToProto(l *ifrt.Layout) (*proxypb.LayoutProto, error) {
	if l == nil {
		return nil, nil
	}
	b, err := proto.Marshal(&proxypb.PjRtLayoutProto{XlaLayout: XLALayoutToProto(l)})
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "wire: encoding layout: %v", err)
	}
	return &proxypb.LayoutProto{SerializedLayout: &proxypb.Serialized{TypeName: TypePjRtLayout, Data: b}}, nil
}

// LayoutFromProto decodes an IFRT LayoutProto (CompactLayout or PjRtLayout).
// A nil message, or one without a serialized layout, is the default layout
// (nil).
func LayoutFromProto(p *proxypb.LayoutProto) (*ifrt.Layout, error) {
	ser := p.GetSerializedLayout()
	if ser == nil {
		return nil, nil
	}
	switch ser.GetTypeName() {
	case TypeCompactLayout:
		var m proxypb.CompactLayoutProto
		if err := unmarshal(ser, &m); err != nil {
			return nil, err
		}
		m2m := m.GetMajorToMinor()
		l := &ifrt.Layout{MinorToMajor: make([]int64, len(m2m))}
		for i, d := range m2m {
			l.MinorToMajor[len(m2m)-1-i] = int64(d)
		}
		if err := checkPermutation(l.MinorToMajor); err != nil {
			return nil, err
		}
		return l, nil
	case TypePjRtLayout:
		var m proxypb.PjRtLayoutProto
		if err := unmarshal(ser, &m); err != nil {
			return nil, err
		}
		return XLALayoutFromProto(m.GetXlaLayout())
	}
	return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: unknown layout type %q", ser.GetTypeName())
}

func checkPermutation(p []int64) error {
	if len(p) > MaxRank {
		return ifrt.Errorf(ifrt.InvalidArgument, "wire: layout of rank %d exceeds the maximum %d", len(p), MaxRank)
	}
	seen := make([]bool, len(p))
	for _, d := range p {
		if d < 0 || d >= int64(len(p)) || seen[d] {
			return ifrt.Errorf(ifrt.InvalidArgument, "wire: layout dimension order %v is not a permutation", p)
		}
		seen[d] = true
	}
	return nil
}

func checkLayoutRank(l *ifrt.Layout, rank int) error {
	if l != nil && len(l.MinorToMajor) != rank {
		return ifrt.Errorf(ifrt.InvalidArgument, "wire: layout %v does not fit rank %d", l.MinorToMajor, rank)
	}
	return nil
}

// CheckLayoutRank reports whether l (nil: the default) fits an array of rank
// dimensions.
func CheckLayoutRank(l *ifrt.Layout, rank int) error { return checkLayoutRank(l, rank) }
