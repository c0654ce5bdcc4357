package mlirbc

import (
	"fmt"
	"strconv"
	"strings"
)

// Type is a decoded type. The builtin dialect's are the types in this file,
// VHLO's start with VHLO; a type stored as text is an *OpaqueType.
type Type interface {
	fmt.Stringer
	isType()
}

// Signedness of an IntegerType.
const (
	Signless = 0
	Signed   = 1
	Unsigned = 2
)

// IntegerType is iN, siN or uiN.
type IntegerType struct {
	Width      int
	Signedness int
}

// IndexType is index.
type IndexType struct{}

// FloatType is a builtin float type; Name is its spelling: bf16, f16, tf32,
// f32, f64, f80, f128, f8E5M2, f8E4M3FN, ...
type FloatType struct{ Name string }

// NoneType is none.
type NoneType struct{}

// FunctionType is (inputs) -> results.
type FunctionType struct{ Inputs, Results []Type }

// ComplexType is complex<elem>.
type ComplexType struct{ Elem Type }

// RankedTensorType is tensor<shape x elem, encoding>; a dynamic dimension is
// DynamicSize.
type RankedTensorType struct {
	Shape    []int64
	Elem     Type
	Encoding Attribute // nil when absent
}

// UnrankedTensorType is tensor<*xelem>.
type UnrankedTensorType struct{ Elem Type }

// TupleType is tuple<...>.
type TupleType struct{ Types []Type }

// VectorType is vector<shape x elem>; Scalable marks scalable dimensions.
type VectorType struct {
	Shape    []int64
	Elem     Type
	Scalable []bool
}

// MemRefType is memref<shape x elem, layout, memory space>.
type MemRefType struct {
	Shape       []int64
	Elem        Type
	Layout      Attribute
	MemorySpace Attribute // nil when absent
}

// UnrankedMemRefType is memref<*xelem, memory space>.
type UnrankedMemRefType struct {
	Elem        Type
	MemorySpace Attribute
}

// OpaqueType is a type the producer wrote in its textual form.
type OpaqueType struct {
	Dialect string
	Text    string
}

// DynamicSize marks a dynamic dimension in a shape.
const DynamicSize = -1 << 63

func (*IntegerType) isType()        {}
func (*IndexType) isType()          {}
func (*FloatType) isType()          {}
func (*NoneType) isType()           {}
func (*FunctionType) isType()       {}
func (*ComplexType) isType()        {}
func (*RankedTensorType) isType()   {}
func (*UnrankedTensorType) isType() {}
func (*TupleType) isType()          {}
func (*VectorType) isType()         {}
func (*MemRefType) isType()         {}
func (*UnrankedMemRefType) isType() {}
func (*OpaqueType) isType()         {}

func (t *IntegerType) String() string {
	return [...]string{"i", "si", "ui", "i"}[t.Signedness&3] + strconv.Itoa(t.Width)
}
func (*IndexType) String() string   { return "index" }
func (t *FloatType) String() string { return t.Name }
func (*NoneType) String() string    { return "none" }
func (t *FunctionType) String() string {
	return "(" + joinTypes(t.Inputs) + ") -> (" + joinTypes(t.Results) + ")"
}
func (t *ComplexType) String() string { return "complex<" + t.Elem.String() + ">" }
func (t *RankedTensorType) String() string {
	s := "tensor<" + shapePrefix(t.Shape) + t.Elem.String()
	if t.Encoding != nil {
		s += ", " + t.Encoding.String()
	}
	return s + ">"
}
func (t *UnrankedTensorType) String() string { return "tensor<*x" + t.Elem.String() + ">" }
func (t *TupleType) String() string          { return "tuple<" + joinTypes(t.Types) + ">" }
func (t *VectorType) String() string         { return "vector<" + shapePrefix(t.Shape) + t.Elem.String() + ">" }
func (t *MemRefType) String() string         { return "memref<" + shapePrefix(t.Shape) + t.Elem.String() + ">" }
func (t *UnrankedMemRefType) String() string { return "memref<*x" + t.Elem.String() + ">" }
func (t *OpaqueType) String() string         { return t.Text }

func shapePrefix(shape []int64) string {
	var b strings.Builder
	for _, d := range shape {
		if d == DynamicSize {
			b.WriteString("?")
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte('x')
	}
	return b.String()
}

func joinTypes(ts []Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// floatName is the builtin spelling of a float type, builtin or VHLO, or "".
func floatName(t Type) string {
	switch t := t.(type) {
	case *FloatType:
		return t.Name
	case *VHLOType:
		return t.Name
	}
	return ""
}

// floatBits is the bit width of the float type's encoding, or 0.
func floatBits(name string) int {
	switch name {
	case "bf16", "f16":
		return 16
	case "tf32":
		return 19
	case "f32":
		return 32
	case "f64":
		return 64
	case "f80":
		return 80
	case "f128":
		return 128
	case "f4E2M1FN":
		return 4
	case "f6E2M3FN", "f6E3M2FN":
		return 6
	}
	if strings.HasPrefix(name, "f8") {
		return 8
	}
	return 0
}
