package mlirbc

import (
	"strconv"
	"strings"
)

// The Shardy dialect (openxla/shardy, sdy/ir/bytecode.td). Mixed
// serialization keeps its ops and attributes unversioned in a portable
// artifact. String methods print the MLIR syntax, e.g.
// #sdy.sharding<@mesh, [{"x"}, {}]>.

// SdyManualAxes is #sdy<manual_axes{"x", ...}>.
type SdyManualAxes struct{ Axes []string }

// SdyMeshAxis is one "name"=size of a mesh.
type SdyMeshAxis struct {
	Name string
	Size int64
}

// SdyMesh is #sdy.mesh<[axes], device_ids=[...]>.
type SdyMesh struct {
	Axes      []*SdyMeshAxis
	DeviceIDs []int64
}

// SdySubAxisInfo is the (pre_size)size of a sub-axis.
type SdySubAxisInfo struct{ PreSize, Size int64 }

// SdyAxisRef names an axis or a sub-axis of one.
type SdyAxisRef struct {
	Name string
	Sub  *SdySubAxisInfo
}

// SdyDimSharding is the {axes} of one dimension; an open one ends with "?".
type SdyDimSharding struct {
	Axes     []*SdyAxisRef
	Closed   bool
	Priority int64 // -1 when absent
}

// SdyTensorSharding is #sdy.sharding<mesh, [dims], replicated={...},
// unreduced={...}>. Mesh is a *SymbolRefAttr naming an sdy.mesh or an inline
// *SdyMesh.
type SdyTensorSharding struct {
	Mesh        Attribute
	Dims        []*SdyDimSharding
	Replicated  []*SdyAxisRef
	Unreduced   []*SdyAxisRef
	ReductionOp int64
}

// SdyShardingPerValue is #sdy.sharding_per_value<[...]>.
type SdyShardingPerValue struct{ Shardings []*SdyTensorSharding }

// SdyDimMapping, SdyTensorMapping and SdyOpShardingRule make up
// #sdy.op_sharding_rule<...>.
type SdyDimMapping struct{ FactorIndices []int64 }

// SdyTensorMapping maps each dimension of a tensor to factors.
type SdyTensorMapping struct{ Dims []*SdyDimMapping }

// SdyOpShardingRule is #sdy.op_sharding_rule<...>.
type SdyOpShardingRule struct {
	FactorSizes                                    []int64
	Operands, Results                              []*SdyTensorMapping
	Reduction, NeedReplication, Permutation, Block []int64
	Custom                                         bool
}

// SdyAxisRefList is a list of axis references.
type SdyAxisRefList struct{ Axes []*SdyAxisRef }

// SdyAxisRefLists is a list of lists of axis references.
type SdyAxisRefLists struct{ Lists []*SdyAxisRefList }

// SdyAllToAllParam is one parameter of sdy.all_to_all.
type SdyAllToAllParam struct {
	Axes           []*SdyAxisRef
	SrcDim, TgtDim int64
}

// SdyAllToAllParams is a list of SdyAllToAllParam.
type SdyAllToAllParams struct{ Params []*SdyAllToAllParam }

func (*SdyManualAxes) isAttr()       {}
func (*SdyMeshAxis) isAttr()         {}
func (*SdyMesh) isAttr()             {}
func (*SdySubAxisInfo) isAttr()      {}
func (*SdyAxisRef) isAttr()          {}
func (*SdyDimSharding) isAttr()      {}
func (*SdyTensorSharding) isAttr()   {}
func (*SdyShardingPerValue) isAttr() {}
func (*SdyDimMapping) isAttr()       {}
func (*SdyTensorMapping) isAttr()    {}
func (*SdyOpShardingRule) isAttr()   {}
func (*SdyAxisRefList) isAttr()      {}
func (*SdyAxisRefLists) isAttr()     {}
func (*SdyAllToAllParam) isAttr()    {}
func (*SdyAllToAllParams) isAttr()   {}

func (a *SdyManualAxes) String() string {
	q := make([]string, len(a.Axes))
	for i, n := range a.Axes {
		q[i] = strconv.Quote(n)
	}
	return "#sdy<manual_axes{" + strings.Join(q, ", ") + "}>"
}
func (a *SdyMeshAxis) String() string {
	return strconv.Quote(a.Name) + "=" + strconv.FormatInt(a.Size, 10)
}

// Body prints the mesh without its "#sdy.mesh" prefix: <["x"=2, "y"=4]>.
func (a *SdyMesh) Body() string {
	parts := make([]string, len(a.Axes))
	for i, ax := range a.Axes {
		parts[i] = ax.String()
	}
	s := "<[" + strings.Join(parts, ", ") + "]"
	if a.DeviceIDs != nil {
		s += ", device_ids=[" + joinInt64s(a.DeviceIDs) + "]"
	}
	return s + ">"
}
func (a *SdyMesh) String() string { return "#sdy.mesh" + a.Body() }
func (a *SdySubAxisInfo) String() string {
	return "(" + strconv.FormatInt(a.PreSize, 10) + ")" + strconv.FormatInt(a.Size, 10)
}
func (a *SdyAxisRef) String() string {
	s := strconv.Quote(a.Name)
	if a.Sub != nil {
		s += ":" + a.Sub.String()
	}
	return s
}
func (a *SdyDimSharding) String() string {
	parts := axisRefStrings(a.Axes)
	if !a.Closed {
		parts = append(parts, "?")
	}
	s := "{" + strings.Join(parts, ", ") + "}"
	if a.Priority >= 0 {
		s += "p" + strconv.FormatInt(a.Priority, 10)
	}
	return s
}

// Body prints the sharding without its "#sdy.sharding" prefix.
func (a *SdyTensorSharding) Body() string {
	var mesh string
	switch m := a.Mesh.(type) {
	case *SymbolRefAttr:
		mesh = m.String()
	case *SdyMesh:
		mesh = "mesh" + m.Body()
	default:
		mesh = a.Mesh.String()
	}
	dims := make([]string, len(a.Dims))
	for i, d := range a.Dims {
		dims[i] = d.String()
	}
	s := "<" + mesh + ", [" + strings.Join(dims, ", ") + "]"
	if len(a.Replicated) > 0 {
		s += ", replicated={" + strings.Join(axisRefStrings(a.Replicated), ", ") + "}"
	}
	if len(a.Unreduced) > 0 {
		s += ", unreduced={" + strings.Join(axisRefStrings(a.Unreduced), ", ") + "}"
	}
	return s + ">"
}
func (a *SdyTensorSharding) String() string { return "#sdy.sharding" + a.Body() }
func (a *SdyShardingPerValue) String() string {
	parts := make([]string, len(a.Shardings))
	for i, s := range a.Shardings {
		parts[i] = s.Body()
	}
	return "#sdy.sharding_per_value<[" + strings.Join(parts, ", ") + "]>"
}
func (a *SdyDimMapping) String() string    { return "[" + joinInt64s(a.FactorIndices) + "]" }
func (a *SdyTensorMapping) String() string { return "tensor_mapping" }
func (a *SdyOpShardingRule) String() string {
	return "#sdy.op_sharding_rule<factors=[" + joinInt64s(a.FactorSizes) + "]>"
}
func (a *SdyAxisRefList) String() string {
	return "{" + strings.Join(axisRefStrings(a.Axes), ", ") + "}"
}
func (a *SdyAxisRefLists) String() string {
	parts := make([]string, len(a.Lists))
	for i, l := range a.Lists {
		parts[i] = l.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
func (a *SdyAllToAllParam) String() string {
	return "{" + strings.Join(axisRefStrings(a.Axes), ", ") + "}: " + strconv.FormatInt(a.SrcDim, 10) + "->" + strconv.FormatInt(a.TgtDim, 10)
}
func (a *SdyAllToAllParams) String() string {
	parts := make([]string, len(a.Params))
	for i, p := range a.Params {
		parts[i] = p.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func axisRefStrings(refs []*SdyAxisRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

func joinInt64s(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ", ")
}

// SdyVersion decodes Shardy's dialect version (major, minor, patch).
func SdyVersion(v []byte) (major, minor, patch uint64, ok bool) {
	ok = true
	func() {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		d := &decoder{data: v}
		major, minor, patch = d.varint(), d.varint(), d.varint()
	}()
	return major, minor, patch, ok
}

func readSdyAttr(r *entryReader) Attribute {
	at := r.off()
	switch code := r.varint(); code {
	case 0:
		a := &SdyManualAxes{}
		for _, s := range r.attrs() {
			a.Axes = append(a.Axes, asString(r, s))
		}
		return a
	case 1:
		return &SdyMeshAxis{Name: r.str(), Size: r.svarint()}
	case 2:
		m := &SdyMesh{}
		m.Axes = wantList[*SdyMeshAxis](r)
		if ids := r.svarints(); len(ids) > 0 {
			m.DeviceIDs = ids
		}
		return m
	case 3:
		return &SdySubAxisInfo{PreSize: r.svarint(), Size: r.svarint()}
	case 4:
		a := &SdyAxisRef{Name: r.str()}
		if sub := r.optAttr(); sub != nil {
			a.Sub = want[*SdySubAxisInfo](r, sub)
		}
		return a
	case 5:
		d := &SdyDimSharding{Axes: sdyAxisRefs(r), Priority: -1}
		d.Closed = r.bool()
		if p, ok := r.varintFlag(); ok {
			d.Priority = int64(p)
		}
		return d
	case 6, 15, 17:
		s := &SdyTensorSharding{Mesh: r.attr()}
		s.Dims = wantList[*SdyDimSharding](r)
		s.Replicated = sdyAxisRefs(r)
		if code != 6 {
			s.Unreduced = sdyAxisRefs(r)
		}
		if code == 17 {
			s.ReductionOp = r.svarint()
		}
		return s
	case 7, 16:
		return &SdyShardingPerValue{Shardings: wantList[*SdyTensorSharding](r)}
	case 8:
		return &SdyDimMapping{FactorIndices: r.svarints()}
	case 9:
		return &SdyTensorMapping{Dims: wantList[*SdyDimMapping](r)}
	case 10:
		rule := &SdyOpShardingRule{FactorSizes: r.svarints()}
		rule.Operands = wantList[*SdyTensorMapping](r)
		rule.Results = wantList[*SdyTensorMapping](r)
		rule.Reduction, rule.NeedReplication = r.svarints(), r.svarints()
		rule.Permutation, rule.Block = r.svarints(), r.svarints()
		rule.Custom = r.bool()
		return rule
	case 11:
		return &SdyAxisRefList{Axes: sdyAxisRefs(r)}
	case 12:
		return &SdyAxisRefLists{Lists: wantList[*SdyAxisRefList](r)}
	case 13:
		return &SdyAllToAllParam{Axes: sdyAxisRefs(r), SrcDim: r.svarint(), TgtDim: r.svarint()}
	case 14:
		return &SdyAllToAllParams{Params: wantList[*SdyAllToAllParam](r)}
	default:
		fail(at, InvalidArgument, "unknown sdy attribute code %d", code)
	}
	return nil
}

func sdyAxisRefs(r *entryReader) []*SdyAxisRef {
	return wantList[*SdyAxisRef](r)
}

// want checks that a referenced attribute has the kind the encoding needs.
func want[T Attribute](r *entryReader, a Attribute) T {
	t, ok := a.(T)
	if !ok {
		var zero T
		r.fail("expected %T, found %s", zero, a)
	}
	return t
}

// wantList reads an attribute list whose items must all be T.
func wantList[T Attribute](r *entryReader) []T {
	var out []T
	for _, a := range r.attrs() {
		out = append(out, want[T](r, a))
	}
	return out
}

func asString(r *entryReader, a Attribute) string {
	return want[*StringAttr](r, a).Value
}
