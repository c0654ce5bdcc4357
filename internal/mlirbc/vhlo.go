package mlirbc

import (
	"fmt"
	"strconv"
	"strings"
)

// The VHLO dialect (openxla/stablehlo, VhloBytecode.cpp): the versioned,
// portable copy of StableHLO that portable artifacts are written in.

// VHLOType is a VHLO element type without parameters. Name is the builtin
// spelling of what it stands for: i1 (the boolean type), i2..i64 (signless
// in StableHLO), ui2..ui64, bf16, f16, tf32, f32, f64, the f4/f6/f8 types,
// index, none, token or witness.
type VHLOType struct{ Name string }

// VHLOTensorType is !vhlo.tensor_v1<shape x elem, encoding>.
type VHLOTensorType struct {
	Shape    []int64
	Elem     Type
	Encoding Attribute
}

// VHLOUnrankedTensorType is !vhlo.unranked_tensor_v1<elem>.
type VHLOUnrankedTensorType struct{ Elem Type }

// VHLOBufferType is !vhlo.buffer_v1<shape x elem>.
type VHLOBufferType struct {
	Shape []int64
	Elem  Type
}

// VHLOComplexType is !vhlo.complex_v1<elem>.
type VHLOComplexType struct{ Elem Type }

// VHLOFunctionType is !vhlo.func_v1<(inputs) -> outputs>.
type VHLOFunctionType struct{ Inputs, Outputs []Type }

// VHLOTupleType is !vhlo.tuple_v1<...>.
type VHLOTupleType struct{ Types []Type }

// VHLOFutureType is !vhlo.future_v1<...>.
type VHLOFutureType struct{ Types []Type }

// VHLOQuantizedType is !vhlo.quant_v1 or, with a quantized dimension,
// !vhlo.quant_per_axis_v1.
type VHLOQuantizedType struct {
	Flags                  uint64
	Storage, Expressed     Type
	PerAxis                bool
	Dimension              uint64
	Scales                 []float64
	ZeroPoints             []int64
	StorageMin, StorageMax int64
}

func (*VHLOType) isType()               {}
func (*VHLOTensorType) isType()         {}
func (*VHLOUnrankedTensorType) isType() {}
func (*VHLOBufferType) isType()         {}
func (*VHLOComplexType) isType()        {}
func (*VHLOFunctionType) isType()       {}
func (*VHLOTupleType) isType()          {}
func (*VHLOFutureType) isType()         {}
func (*VHLOQuantizedType) isType()      {}

func (t *VHLOType) String() string { return "!vhlo." + t.Name + "_v1" }
func (t *VHLOTensorType) String() string {
	s := "!vhlo.tensor_v1<" + shapePrefix(t.Shape) + t.Elem.String()
	if t.Encoding != nil {
		s += ", " + t.Encoding.String()
	}
	return s + ">"
}
func (t *VHLOUnrankedTensorType) String() string {
	return "!vhlo.unranked_tensor_v1<" + t.Elem.String() + ">"
}
func (t *VHLOBufferType) String() string {
	return "!vhlo.buffer_v1<" + shapePrefix(t.Shape) + t.Elem.String() + ">"
}
func (t *VHLOComplexType) String() string { return "!vhlo.complex_v1<" + t.Elem.String() + ">" }
func (t *VHLOFunctionType) String() string {
	return "!vhlo.func_v1<(" + joinTypes(t.Inputs) + ") -> " + joinTypes(t.Outputs) + ">"
}
func (t *VHLOTupleType) String() string  { return "!vhlo.tuple_v1<" + joinTypes(t.Types) + ">" }
func (t *VHLOFutureType) String() string { return "!vhlo.future_v1<" + joinTypes(t.Types) + ">" }
func (t *VHLOQuantizedType) String() string {
	return fmt.Sprintf("!vhlo.quant_v1<%s:%s>", t.Storage, t.Expressed)
}

// VHLOArray is #vhlo.array_v1<[...]>.
type VHLOArray struct{ Elems []Attribute }

// VHLOBool is #vhlo.bool_v1<...>.
type VHLOBool struct{ Value bool }

// VHLOEnum is one of VHLO's enum attributes: Kind names the enum
// ("comparison_direction", "comparison_type", "api_version", "fft_type",
// "precision", "rng_algorithm", "rng_distribution", "transpose",
// "result_accuracy_mode") and Name the case, e.g. "GT".
type VHLOEnum struct {
	Kind  string
	Value uint64
	Name  string
}

// VHLODict is #vhlo.dict_v1<{key = value, ...}>; keys are attributes
// (VHLOString in practice).
type VHLODict struct{ Entries []VHLOEntry }

// VHLOEntry is one key and value of a VHLODict.
type VHLOEntry struct{ Key, Value Attribute }

// VHLOFloat is #vhlo.float_v1<value : type>.
type VHLOFloat struct {
	Type Type
	Bits []uint64
}

// VHLOInteger is #vhlo.integer_v1<value : type>.
type VHLOInteger struct {
	Type  Type
	Width int
	Bits  []uint64
}

// VHLOString is #vhlo.string_v1<"...">.
type VHLOString struct{ Value string }

// VHLOTensor is #vhlo.tensor_v1<dense<...>>: the constant's VHLO tensor type
// and its row-major little-endian data (one element for a splat; i1 one byte
// per element).
type VHLOTensor struct {
	Type Type
	Data []byte
}

// VHLOTypeAttr is #vhlo.type_v1<type>.
type VHLOTypeAttr struct{ Type Type }

// VHLOTypeExtensions is #vhlo.type_extensions_v1<bounds = [...]>.
type VHLOTypeExtensions struct{ Bounds []int64 }

// VHLOOutputOperandAlias is #vhlo.output_operand_alias_v1<...>.
type VHLOOutputOperandAlias struct {
	OutputTupleIndices  []int64
	OperandIndex        int64
	OperandTupleIndices []int64
}

// VHLOResultAccuracy is #vhlo.result_accuracy_v1<...>.
type VHLOResultAccuracy struct {
	Atol, Rtol float64
	Ulps       int64
	Mode       Attribute
}

// VHLOSubAxisInfo, VHLOAxisRef, VHLOMeshAxis, VHLOMesh and
// VHLOReplicaGroupMeshAxes describe mesh-based replica groups of collectives.
type VHLOSubAxisInfo struct{ PreSize, Size int64 }

// VHLOAxisRef names a mesh axis, optionally a sub-axis of it.
type VHLOAxisRef struct{ Name, SubAxis Attribute }

// VHLOMeshAxis is one named axis of a VHLOMesh.
type VHLOMeshAxis struct {
	Name Attribute
	Size int64
}

// VHLOMesh is a mesh of axes with an optional device order.
type VHLOMesh struct{ Axes, DeviceIDs Attribute }

// VHLOReplicaGroupMeshAxes is replica groups given by mesh axes.
type VHLOReplicaGroupMeshAxes struct{ Mesh, Axes Attribute }

func (*VHLOArray) isAttr()                {}
func (*VHLOBool) isAttr()                 {}
func (*VHLOEnum) isAttr()                 {}
func (*VHLODict) isAttr()                 {}
func (*VHLOFloat) isAttr()                {}
func (*VHLOInteger) isAttr()              {}
func (*VHLOString) isAttr()               {}
func (*VHLOTensor) isAttr()               {}
func (*VHLOTypeAttr) isAttr()             {}
func (*VHLOTypeExtensions) isAttr()       {}
func (*VHLOOutputOperandAlias) isAttr()   {}
func (*VHLOResultAccuracy) isAttr()       {}
func (*VHLOSubAxisInfo) isAttr()          {}
func (*VHLOAxisRef) isAttr()              {}
func (*VHLOMeshAxis) isAttr()             {}
func (*VHLOMesh) isAttr()                 {}
func (*VHLOReplicaGroupMeshAxes) isAttr() {}

// Int64 returns the value sign-extended from its width.
func (a *VHLOInteger) Int64() int64 { return signExtend(a.Bits[0], a.Width) }

// Float64 converts the value to float64 (see FloatAttr.Float64).
func (a *VHLOFloat) Float64() float64 { return floatBitsToFloat64(a.Type, a.Bits) }

func (a *VHLOArray) String() string { return "#vhlo.array_v1<[" + joinAttrs(a.Elems) + "]>" }
func (a *VHLOBool) String() string  { return "#vhlo.bool_v1<" + strconv.FormatBool(a.Value) + ">" }
func (a *VHLOEnum) String() string  { return "#vhlo<" + a.Kind + "_v1 " + a.Name + ">" }
func (a *VHLODict) String() string {
	parts := make([]string, len(a.Entries))
	for i, e := range a.Entries {
		parts[i] = e.Key.String() + " = " + e.Value.String()
	}
	return "#vhlo.dict_v1<{" + strings.Join(parts, ", ") + "}>"
}
func (a *VHLOFloat) String() string {
	return "#vhlo.float_v1<" + strconv.FormatFloat(a.Float64(), 'g', -1, 64) + " : " + a.Type.String() + ">"
}
func (a *VHLOInteger) String() string {
	return "#vhlo.integer_v1<" + strconv.FormatInt(a.Int64(), 10) + " : " + a.Type.String() + ">"
}
func (a *VHLOString) String() string { return "#vhlo.string_v1<" + strconv.Quote(a.Value) + ">" }
func (a *VHLOTensor) String() string {
	return fmt.Sprintf("#vhlo.tensor_v1<\"0x%X\" : %s>", a.Data, a.Type)
}
func (a *VHLOTypeAttr) String() string { return "#vhlo.type_v1<" + a.Type.String() + ">" }
func (a *VHLOTypeExtensions) String() string {
	return "#vhlo.type_extensions_v1<bounds = " + fmt.Sprint(a.Bounds) + ">"
}
func (a *VHLOOutputOperandAlias) String() string {
	return fmt.Sprintf("#vhlo.output_operand_alias_v1<output_tuple_indices = %v, operand_index = %d, operand_tuple_indices = %v>",
		a.OutputTupleIndices, a.OperandIndex, a.OperandTupleIndices)
}
func (a *VHLOResultAccuracy) String() string {
	return fmt.Sprintf("#vhlo.result_accuracy_v1<atol = %g, rtol = %g, ulps = %d, mode = %s>", a.Atol, a.Rtol, a.Ulps, a.Mode)
}
func (a *VHLOSubAxisInfo) String() string {
	return fmt.Sprintf("#vhlo.sub_axis_info_v1<pre_size = %d, size = %d>", a.PreSize, a.Size)
}
func (a *VHLOAxisRef) String() string { return "#vhlo.axis_ref_v1<" + a.Name.String() + ">" }
func (a *VHLOMeshAxis) String() string {
	return fmt.Sprintf("#vhlo.mesh_axis_v1<%s = %d>", a.Name, a.Size)
}
func (a *VHLOMesh) String() string { return "#vhlo.mesh_v1<" + a.Axes.String() + ">" }
func (a *VHLOReplicaGroupMeshAxes) String() string {
	return "#vhlo.replica_group_mesh_axes_v1<" + a.Mesh.String() + ", " + a.Axes.String() + ">"
}

// vhloEnums lists the cases of each VHLO enum by value (VhloEnums.td).
var vhloEnums = map[uint64]struct {
	kind  string
	cases []string
}{
	3:  {"comparison_direction", []string{"EQ", "NE", "GE", "GT", "LE", "LT"}},
	4:  {"comparison_type", []string{"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
	5:  {"api_version", []string{"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
	7:  {"fft_type", []string{"FFT", "IFFT", "RFFT", "IRFFT"}},
	11: {"precision", []string{"DEFAULT", "HIGH", "HIGHEST"}},
	12: {"rng_algorithm", []string{"DEFAULT", "THREE_FRY", "PHILOX"}},
	13: {"rng_distribution", []string{"", "UNIFORM", "NORMAL"}},
	16: {"transpose", []string{"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
	19: {"result_accuracy_mode", []string{"DEFAULT", "HIGHEST", "TOLERANCE"}},
}

// vhloScalarTypes maps the parameterless VHLO type codes to VHLOType names.
var vhloScalarTypes = map[uint64]string{
	0: "i1", 2: "bf16", 3: "f16", 4: "f32", 5: "f64", 6: "f8E4M3FN", 7: "f8E5M2", 9: "index",
	10: "i4", 11: "i8", 12: "i16", 13: "i32", 14: "i64", 15: "ui4", 16: "ui8", 17: "ui16", 18: "ui32", 19: "ui64",
	22: "token", 26: "witness", 27: "f8E4M3FNUZ", 28: "f8E5M2FNUZ", 29: "f8E4M3B11FNUZ",
	31: "i2", 32: "ui2", 33: "none", 34: "tf32", 35: "f8E4M3", 36: "f8E3M4", 37: "f4E2M1FN",
	38: "f6E2M3FN", 39: "f6E3M2FN", 40: "f8E8M0FNU",
}

func readVHLOType(r *entryReader) Type {
	code := r.varint()
	if name, ok := vhloScalarTypes[code]; ok {
		return &VHLOType{Name: name}
	}
	switch code {
	case 1:
		return &VHLOComplexType{Elem: r.typ()}
	case 8:
		return &VHLOFunctionType{Inputs: r.types(), Outputs: r.types()}
	case 20:
		return &VHLOTensorType{Shape: r.shape(), Elem: r.typ()}
	case 21:
		enc := r.attr()
		return &VHLOTensorType{Encoding: enc, Shape: r.shape(), Elem: r.typ()}
	case 23:
		return &VHLOTupleType{Types: r.types()}
	case 24:
		t := &VHLOQuantizedType{Flags: r.varint(), Storage: r.typ(), Expressed: r.typ()}
		t.Scales = []float64{r.float64()}
		t.ZeroPoints = []int64{r.svarint()}
		t.StorageMin, t.StorageMax = r.svarint(), r.svarint()
		return t
	case 25:
		return &VHLOUnrankedTensorType{Elem: r.typ()}
	case 30:
		t := &VHLOQuantizedType{PerAxis: true, Flags: r.varint(), Storage: r.typ(), Expressed: r.typ(), Dimension: r.varint()}
		t.StorageMin, t.StorageMax = r.svarint(), r.svarint()
		for n := r.count("scale"); n > 0; n-- {
			t.Scales = append(t.Scales, r.float64())
		}
		for n := r.count("zero point"); n > 0; n-- {
			t.ZeroPoints = append(t.ZeroPoints, r.svarint())
		}
		return t
	case 41:
		return &VHLOBufferType{Shape: r.shape(), Elem: r.typ()}
	case 42:
		return &VHLOFutureType{Types: r.types()}
	}
	r.fail("unknown vhlo type code %d", code)
	return nil
}

func readVHLOAttr(r *entryReader) Attribute {
	at := r.off()
	code := r.varint()
	if e, ok := vhloEnums[code]; ok {
		v := r.varint()
		if v >= uint64(len(e.cases)) || e.cases[v] == "" {
			r.fail("vhlo %s value %d out of range", e.kind, v)
		}
		return &VHLOEnum{Kind: e.kind, Value: v, Name: e.cases[v]}
	}
	switch code {
	case 1:
		return &VHLOArray{Elems: r.attrs()}
	case 2:
		v := r.varint()
		if v > 1 {
			r.fail("vhlo bool value %d", v)
		}
		return &VHLOBool{Value: v == 1}
	case 6:
		a := &VHLODict{}
		for n := r.count("dictionary entry"); n > 0; n-- {
			a.Entries = append(a.Entries, VHLOEntry{Key: r.attr(), Value: r.attr()})
		}
		return a
	case 8:
		t := r.typ()
		bits := floatBits(floatName(t))
		if bits == 0 {
			r.fail("vhlo float of non-float type %s", t)
		}
		return &VHLOFloat{Type: t, Bits: r.apint(bits)}
	case 9:
		t := r.typ()
		w := vhloIntWidth(t)
		if w == 0 {
			r.fail("vhlo integer of non-integer type %s", t)
		}
		return &VHLOInteger{Type: t, Width: w, Bits: r.apint(w)}
	case 10:
		return &VHLOOutputOperandAlias{OutputTupleIndices: r.svarints(), OperandIndex: r.svarint(), OperandTupleIndices: r.svarints()}
	case 14:
		return &VHLOString{Value: r.str()}
	case 15:
		t := r.typ()
		tt, ok := t.(*VHLOTensorType)
		if !ok {
			r.fail("vhlo tensor attribute of type %s", t)
		}
		return &VHLOTensor{Type: t, Data: r.denseData(tt.Shape, tt.Elem)}
	case 17:
		return &VHLOTypeAttr{Type: r.typ()}
	case 18:
		return &VHLOTypeExtensions{Bounds: r.svarints()}
	case 20:
		return &VHLOResultAccuracy{Atol: r.float64(), Rtol: r.float64(), Ulps: r.svarint(), Mode: r.attr()}
	case 21:
		return &VHLOSubAxisInfo{PreSize: r.svarint(), Size: r.svarint()}
	case 22:
		a := &VHLOAxisRef{Name: r.attr()}
		if r.varint() != 0 {
			a.SubAxis = r.attr()
		}
		return a
	case 23:
		return &VHLOReplicaGroupMeshAxes{Mesh: r.attr(), Axes: r.attr()}
	case 24:
		return &VHLOMeshAxis{Name: r.attr(), Size: r.svarint()}
	case 25:
		return &VHLOMesh{Axes: r.attr(), DeviceIDs: r.optAttr()}
	}
	fail(at, InvalidArgument, "unknown vhlo attribute code %d", code)
	return nil
}

// vhloIntWidth is the storage width of an integer_v1 attribute's type.
func vhloIntWidth(t Type) int {
	v, ok := t.(*VHLOType)
	if !ok {
		return 0
	}
	switch v.Name {
	case "index":
		return 64
	case "i1":
		return 0
	}
	name := strings.TrimPrefix(strings.TrimPrefix(v.Name, "u"), "i")
	w, err := strconv.Atoi(name)
	if err != nil {
		return 0
	}
	return w
}

// maxListElements bounds the integer lists Int64s expands, so that a splat
// of a huge type cannot exhaust memory.
const maxListElements = 1 << 20

// Int64s returns the elements of an integer, index or boolean tensor
// attribute (dimension lists and the like), a splat expanded; ok is false
// for other types and for more than maxListElements elements.
func (a *VHLOTensor) Int64s() ([]int64, bool) {
	t, ok := a.Type.(*VHLOTensorType)
	if !ok {
		return nil, false
	}
	e, ok := t.Elem.(*VHLOType)
	if !ok {
		return nil, false
	}
	width := vhloIntWidth(e)
	if e.Name == "i1" {
		width = 1
	}
	n := numElements(t.Shape)
	if width != 1 && width%8 != 0 || width == 0 || n > maxListElements {
		return nil, false
	}
	count, size := int(n), max(width/8, 1)
	if len(a.Data) == size && n > 1 {
		count = 1 // a splat
	}
	v, ok := leInts(a.Data, count, width)
	if !ok {
		return nil, false
	}
	if strings.HasPrefix(e.Name, "u") && width < 64 {
		for i := range v {
			v[i] = int64(maskBits(uint64(v[i]), width))
		}
	}
	for len(v) < int(n) {
		v = append(v, v[0])
	}
	return v, true
}
