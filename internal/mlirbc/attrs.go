package mlirbc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Attribute is a decoded attribute. The builtin dialect's are the types in
// this file, VHLO's start with VHLO, Shardy's with Sdy; an attribute stored
// as text (the assembly-format fallback) is an *OpaqueAttr.
type Attribute interface {
	fmt.Stringer
	isAttr()
}

// OpaqueAttr is an attribute the producer wrote in its textual form.
type OpaqueAttr struct {
	Dialect string
	Text    string // e.g. "#sdy<propagation_direction BOTH>"
}

// ArrayAttr is [a, b, ...].
type ArrayAttr struct{ Elems []Attribute }

// DictAttr is {name = value, ...}, in the order stored.
type DictAttr struct{ Entries []NamedAttr }

// StringAttr is "text", with a type when one was given.
type StringAttr struct {
	Value string
	Type  Type // nil unless typed
}

// SymbolRefAttr is @root::@nested...
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// TypeAttr wraps a type.
type TypeAttr struct{ Type Type }

// UnitAttr is the attribute whose presence is its value.
type UnitAttr struct{}

// IntegerAttr is an integer of an integer or index type. Bits holds the
// value's two's-complement bits, little-endian in 64-bit words; Width is the
// type's width.
type IntegerAttr struct {
	Type  Type
	Width int
	Bits  []uint64
}

// FloatAttr is a float; Bits holds the IEEE (or other) bit pattern of Type.
type FloatAttr struct {
	Type Type
	Bits []uint64
}

// DenseArrayAttr is array<T: ...>: Size elements of ElemType, little-endian
// in Data (i1 uses one byte per element).
type DenseArrayAttr struct {
	ElemType Type
	Size     int
	Data     []byte
}

// DenseElementsAttr is dense<...> of an integer, index, float or complex
// shaped type. Data is row-major little-endian; it holds one element when
// the attribute is a splat. i1 elements take one byte each (0 or 1).
type DenseElementsAttr struct {
	Type Type
	Data []byte
}

// DenseStringElementsAttr is dense<"a", "b"> of a string-like element type.
type DenseStringElementsAttr struct {
	Type   Type
	Splat  bool
	Values []string
}

// DenseResourceElementsAttr is dense_resource<key> : Type; Resource holds
// the blob when the file carries it.
type DenseResourceElementsAttr struct {
	Type     Type
	Resource *Resource
}

// SparseElementsAttr is sparse<indices, values> : Type.
type SparseElementsAttr struct {
	Type            Type
	Indices, Values Attribute
}

// DistinctAttr is distinct[n]<referenced>.
type DistinctAttr struct{ Referenced Attribute }

// AffineMapAttr is affine_map<(d0, ...)[s0, ...] -> (results)>.
type AffineMapAttr struct {
	NumDims, NumSymbols int
	Results             []AffineExpr
}

// IntegerSetAttr is affine_set<(d0, ...)[s0, ...] : (constraints)>; EqFlags
// says which constraints are equalities.
type IntegerSetAttr struct {
	NumDims, NumSymbols int
	Constraints         []AffineExpr
	EqFlags             []bool
}

// AffineExpr is one node of an affine expression: Kind is "d" (dimension
// Value), "s" (symbol Value), "c" (constant Value), or one of "+", "*",
// "mod", "floordiv", "ceildiv" with LHS and RHS.
type AffineExpr struct {
	Kind     string
	Value    int64
	LHS, RHS *AffineExpr
}

// UnknownLoc is loc(unknown).
type UnknownLoc struct{}

// FileLineColLoc is loc("file":line:col), or a range when Range holds the
// extra end positions.
type FileLineColLoc struct {
	File      string
	Line, Col uint64
	Range     []uint64 // end column, or end line and column, when a range
}

// NameLoc is loc("name"(child)).
type NameLoc struct {
	Name  string
	Child Attribute
}

// CallSiteLoc is loc(callsite(callee at caller)).
type CallSiteLoc struct{ Callee, Caller Attribute }

// FusedLoc is loc(fused<metadata>[locations...]).
type FusedLoc struct {
	Locs     []Attribute
	Metadata Attribute // nil when absent
}

func (*OpaqueAttr) isAttr()                {}
func (*ArrayAttr) isAttr()                 {}
func (*DictAttr) isAttr()                  {}
func (*StringAttr) isAttr()                {}
func (*SymbolRefAttr) isAttr()             {}
func (*TypeAttr) isAttr()                  {}
func (*UnitAttr) isAttr()                  {}
func (*IntegerAttr) isAttr()               {}
func (*FloatAttr) isAttr()                 {}
func (*DenseArrayAttr) isAttr()            {}
func (*DenseElementsAttr) isAttr()         {}
func (*DenseStringElementsAttr) isAttr()   {}
func (*DenseResourceElementsAttr) isAttr() {}
func (*SparseElementsAttr) isAttr()        {}
func (*DistinctAttr) isAttr()              {}
func (*AffineMapAttr) isAttr()             {}
func (*IntegerSetAttr) isAttr()            {}
func (*UnknownLoc) isAttr()                {}
func (*FileLineColLoc) isAttr()            {}
func (*NameLoc) isAttr()                   {}
func (*CallSiteLoc) isAttr()               {}
func (*FusedLoc) isAttr()                  {}

// Int64 returns the value sign-extended from its width (the low 64 bits for
// wider integers).
func (a *IntegerAttr) Int64() int64 { return signExtend(a.Bits[0], a.Width) }

// Uint64 returns the value's low 64 bits, zero-extended from its width.
func (a *IntegerAttr) Uint64() uint64 { return maskBits(a.Bits[0], a.Width) }

// Float64 converts the value to float64 (f16, bf16, f32 and f64 exactly;
// other widths are approximated through their bit layout).
func (a *FloatAttr) Float64() float64 { return floatBitsToFloat64(a.Type, a.Bits) }

// Int64s returns the elements of an integer DenseArrayAttr.
func (a *DenseArrayAttr) Int64s() ([]int64, bool) {
	it, ok := a.ElemType.(*IntegerType)
	if !ok {
		return nil, false
	}
	return leInts(a.Data, a.Size, it.Width)
}

func signExtend(v uint64, width int) int64 {
	if width <= 0 || width >= 64 {
		return int64(v)
	}
	shift := 64 - width
	return int64(v<<shift) >> shift
}

func maskBits(v uint64, width int) uint64 {
	if width <= 0 || width >= 64 {
		return v
	}
	return v & (1<<width - 1)
}

// leInts decodes n little-endian integers of the given bit width (1 means
// one byte per element), sign-extending them.
func leInts(data []byte, n, width int) ([]int64, bool) {
	size := (width + 7) / 8
	if width == 1 {
		size = 1
	}
	if size == 0 || size > 8 || len(data) != n*size {
		return nil, false
	}
	out := make([]int64, n)
	for i := range out {
		var v uint64
		for j := size - 1; j >= 0; j-- {
			v = v<<8 | uint64(data[i*size+j])
		}
		out[i] = signExtend(v, size*8)
		if width == 1 {
			out[i] = int64(v & 1)
		}
	}
	return out, true
}

func floatBitsToFloat64(t Type, words []uint64) float64 {
	b := words[0]
	switch floatName(t) {
	case "f64":
		return math.Float64frombits(b)
	case "f32":
		return float64(math.Float32frombits(uint32(b)))
	case "bf16":
		return float64(math.Float32frombits(uint32(b) << 16))
	case "f16":
		return halfToFloat64(uint16(b))
	}
	return math.NaN()
}

func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1F
	frac := float64(h & 0x3FF)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1F:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

func (a *OpaqueAttr) String() string { return a.Text }
func (a *ArrayAttr) String() string  { return "[" + joinAttrs(a.Elems) + "]" }
func (a *DictAttr) String() string   { return "{" + joinNamed(a.Entries) + "}" }
func (a *StringAttr) String() string {
	if a.Type != nil {
		return strconv.Quote(a.Value) + " : " + a.Type.String()
	}
	return strconv.Quote(a.Value)
}
func (a *SymbolRefAttr) String() string {
	s := "@" + a.Root
	for _, n := range a.Nested {
		s += "::@" + n
	}
	return s
}
func (a *TypeAttr) String() string { return a.Type.String() }
func (*UnitAttr) String() string   { return "unit" }
func (a *IntegerAttr) String() string {
	if a.Width == 1 {
		return strconv.FormatBool(a.Bits[0]&1 != 0)
	}
	if it, ok := a.Type.(*IntegerType); ok && it.Signedness == Unsigned {
		return strconv.FormatUint(a.Uint64(), 10) + " : " + a.Type.String()
	}
	return strconv.FormatInt(a.Int64(), 10) + " : " + a.Type.String()
}
func (a *FloatAttr) String() string {
	return strconv.FormatFloat(a.Float64(), 'g', -1, 64) + " : " + a.Type.String()
}
func (a *DenseArrayAttr) String() string {
	if v, ok := a.Int64s(); ok {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatInt(x, 10)
		}
		return "array<" + a.ElemType.String() + ": " + strings.Join(parts, ", ") + ">"
	}
	return fmt.Sprintf("array<%s: %d elements>", a.ElemType, a.Size)
}
func (a *DenseElementsAttr) String() string {
	return fmt.Sprintf("dense<\"0x%X\"> : %s", a.Data, a.Type)
}
func (a *DenseStringElementsAttr) String() string {
	q := make([]string, len(a.Values))
	for i, v := range a.Values {
		q[i] = strconv.Quote(v)
	}
	return "dense<[" + strings.Join(q, ", ") + "]> : " + a.Type.String()
}
func (a *DenseResourceElementsAttr) String() string {
	return "dense_resource<" + a.Resource.Key + "> : " + a.Type.String()
}
func (a *SparseElementsAttr) String() string {
	return "sparse<" + a.Indices.String() + ", " + a.Values.String() + "> : " + a.Type.String()
}
func (a *DistinctAttr) String() string { return "distinct<" + a.Referenced.String() + ">" }
func (a *AffineMapAttr) String() string {
	return "affine_map<" + affineDims(a.NumDims, a.NumSymbols) + " -> (" + joinExprs(a.Results) + ")>"
}
func (a *IntegerSetAttr) String() string {
	parts := make([]string, len(a.Constraints))
	for i, c := range a.Constraints {
		op := " >= 0"
		if a.EqFlags[i] {
			op = " == 0"
		}
		parts[i] = c.String() + op
	}
	return "affine_set<" + affineDims(a.NumDims, a.NumSymbols) + " : (" + strings.Join(parts, ", ") + ")>"
}
func (*UnknownLoc) String() string { return "loc(unknown)" }
func (a *FileLineColLoc) String() string {
	s := fmt.Sprintf("loc(%q:%d:%d", a.File, a.Line, a.Col)
	switch len(a.Range) {
	case 1:
		s += fmt.Sprintf(" to :%d", a.Range[0])
	case 2:
		s += fmt.Sprintf(" to %d:%d", a.Range[0], a.Range[1])
	}
	return s + ")"
}
func (a *NameLoc) String() string {
	if _, unknown := a.Child.(*UnknownLoc); unknown {
		return fmt.Sprintf("loc(%q)", a.Name)
	}
	return fmt.Sprintf("loc(%q(%s))", a.Name, a.Child)
}
func (a *CallSiteLoc) String() string {
	return "loc(callsite(" + a.Callee.String() + " at " + a.Caller.String() + "))"
}
func (a *FusedLoc) String() string {
	s := "loc(fused"
	if a.Metadata != nil {
		s += "<" + a.Metadata.String() + ">"
	}
	return s + "[" + joinAttrs(a.Locs) + "])"
}

func (e *AffineExpr) String() string {
	switch e.Kind {
	case "d", "s":
		return e.Kind + strconv.FormatInt(e.Value, 10)
	case "c":
		return strconv.FormatInt(e.Value, 10)
	}
	return "(" + e.LHS.String() + " " + e.Kind + " " + e.RHS.String() + ")"
}

func affineDims(dims, syms int) string {
	var d, s []string
	for i := 0; i < dims; i++ {
		d = append(d, "d"+strconv.Itoa(i))
	}
	for i := 0; i < syms; i++ {
		s = append(s, "s"+strconv.Itoa(i))
	}
	out := "(" + strings.Join(d, ", ") + ")"
	if syms > 0 {
		out += "[" + strings.Join(s, ", ") + "]"
	}
	return out
}

func joinExprs(es []AffineExpr) string {
	parts := make([]string, len(es))
	for i := range es {
		parts[i] = es[i].String()
	}
	return strings.Join(parts, ", ")
}

func joinAttrs(as []Attribute) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

func joinNamed(as []NamedAttr) string {
	parts := make([]string, len(as))
	for i, a := range as {
		if _, unit := a.Value.(*UnitAttr); unit {
			parts[i] = a.Name
			continue
		}
		parts[i] = a.Name + " = " + a.Value.String()
	}
	return strings.Join(parts, ", ")
}
