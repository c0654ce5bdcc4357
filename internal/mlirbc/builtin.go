package mlirbc

// The builtin dialect's encodings (mlir/IR/BuiltinDialectBytecode.td). The
// codes are positions in that file's lists, which only ever grow.

var builtinFloatTypes = map[uint64]string{
	3: "bf16", 4: "f16", 5: "f32", 6: "f64", 7: "f80", 8: "f128",
	21: "tf32", 22: "f8E5M2", 23: "f8E4M3", 24: "f8E4M3FN", 25: "f8E5M2FNUZ", 26: "f8E4M3FNUZ",
	27: "f8E4M3B11FNUZ", 28: "f8E3M4", 29: "f4E2M1FN", 30: "f6E2M3FN", 31: "f6E3M2FN", 32: "f8E8M0FNU",
}

func readBuiltinType(r *entryReader) Type {
	at := r.off()
	code := r.varint()
	if name, ok := builtinFloatTypes[code]; ok {
		return &FloatType{Name: name}
	}
	switch code {
	case 0:
		ws := r.varint()
		if ws>>2 > 1<<24 {
			fail(at, InvalidArgument, "integer type of width %d", ws>>2)
		}
		return &IntegerType{Width: int(ws >> 2), Signedness: int(ws & 3)}
	case 1:
		return &IndexType{}
	case 2:
		return &FunctionType{Inputs: r.types(), Results: r.types()}
	case 9:
		return &ComplexType{Elem: r.typ()}
	case 10:
		return &MemRefType{Shape: r.shape(), Elem: r.typ(), Layout: r.attr()}
	case 11:
		space := r.attr()
		return &MemRefType{MemorySpace: space, Shape: r.shape(), Elem: r.typ(), Layout: r.attr()}
	case 12:
		return &NoneType{}
	case 13:
		return &RankedTensorType{Shape: r.shape(), Elem: r.typ()}
	case 14:
		enc := r.attr()
		return &RankedTensorType{Encoding: enc, Shape: r.shape(), Elem: r.typ()}
	case 15:
		return &TupleType{Types: r.types()}
	case 16:
		return &UnrankedMemRefType{Elem: r.typ()}
	case 17:
		space := r.attr()
		return &UnrankedMemRefType{MemorySpace: space, Elem: r.typ()}
	case 18:
		return &UnrankedTensorType{Elem: r.typ()}
	case 19:
		return &VectorType{Shape: r.shape(), Elem: r.typ()}
	case 20:
		n := r.count("scalable dimension")
		scalable := make([]bool, n)
		for i := range scalable {
			scalable[i] = r.bool()
		}
		return &VectorType{Scalable: scalable, Shape: r.shape(), Elem: r.typ()}
	}
	fail(at, InvalidArgument, "unknown builtin type code %d", code)
	return nil
}

func readBuiltinAttr(r *entryReader) Attribute {
	at := r.off()
	switch code := r.varint(); code {
	case 0:
		return &ArrayAttr{Elems: r.attrs()}
	case 1:
		d := &DictAttr{}
		for n := r.count("dictionary entry"); n > 0; n-- {
			name := asString(r, r.attr())
			d.Entries = append(d.Entries, NamedAttr{Name: name, Value: r.attr()})
		}
		return d
	case 2:
		return &StringAttr{Value: r.str()}
	case 3:
		return &StringAttr{Value: r.str(), Type: r.typ()}
	case 4:
		return &SymbolRefAttr{Root: asString(r, r.attr())}
	case 5:
		s := &SymbolRefAttr{Root: asString(r, r.attr())}
		for _, a := range r.attrs() {
			ref := want[*SymbolRefAttr](r, a)
			s.Nested = append(s.Nested, ref.Root)
		}
		return s
	case 6:
		return &TypeAttr{Type: r.typ()}
	case 7:
		return &UnitAttr{}
	case 8:
		t := r.typ()
		w := builtinIntWidth(t)
		if w <= 0 {
			r.fail("integer attribute of type %s", t)
		}
		return &IntegerAttr{Type: t, Width: w, Bits: r.apint(w)}
	case 9:
		t := r.typ()
		w := floatBits(floatName(t))
		if _, ok := t.(*FloatType); !ok || w == 0 {
			r.fail("float attribute of type %s", t)
		}
		return &FloatAttr{Type: t, Bits: r.apint(w)}
	case 10:
		return &CallSiteLoc{Callee: r.attr(), Caller: r.attr()}
	case 11:
		return &FileLineColLoc{File: asString(r, r.attr()), Line: r.varint(), Col: r.varint()}
	case 12:
		return &FusedLoc{Locs: r.attrs()}
	case 13:
		return &FusedLoc{Locs: r.attrs(), Metadata: r.attr()}
	case 14:
		return &NameLoc{Name: asString(r, r.attr()), Child: r.attr()}
	case 15:
		return &UnknownLoc{}
	case 16:
		return &DenseResourceElementsAttr{Type: r.typ(), Resource: r.resource()}
	case 17:
		t := r.typ()
		return &DenseArrayAttr{ElemType: t, Size: int(min(r.varint(), 1<<40)), Data: r.blob()}
	case 18:
		t := r.typ()
		shape, elem := shapedParts(t)
		if elem == nil {
			r.fail("dense elements attribute of type %s", t)
		}
		return &DenseElementsAttr{Type: t, Data: r.denseData(shape, elem)}
	case 19:
		t := r.typ()
		shape, elem := shapedParts(t)
		if elem == nil {
			r.fail("dense string attribute of type %s", t)
		}
		a := &DenseStringElementsAttr{Type: t, Splat: r.varint() != 0}
		n := 1
		if !a.Splat {
			n = int(min(numElements(shape), int64(r.remaining()+1)))
			if int64(n) != numElements(shape) {
				r.fail("dense string attribute of %d elements does not fit", numElements(shape))
			}
		}
		for i := 0; i < n; i++ {
			a.Values = append(a.Values, r.str())
		}
		return a
	case 20:
		return &SparseElementsAttr{Type: r.typ(), Indices: r.attr(), Values: r.attr()}
	case 21:
		return &DistinctAttr{Referenced: r.attr()}
	case 22:
		l := &FileLineColLoc{File: asString(r, r.attr())}
		pos := make([]uint64, r.count("location position"))
		for i := range pos {
			pos[i] = r.varint()
		}
		if len(pos) > 4 {
			fail(at, InvalidArgument, "file location with %d positions", len(pos))
		}
		if len(pos) > 0 {
			l.Line = pos[0]
		}
		if len(pos) > 1 {
			l.Col = pos[1]
		}
		if len(pos) > 2 {
			l.Range = pos[2:]
		}
		return l
	case 23:
		m := &AffineMapAttr{NumDims: r.smallCount(), NumSymbols: r.smallCount()}
		for n := r.count("affine result"); n > 0; n-- {
			m.Results = append(m.Results, readAffineExpr(r, 0))
		}
		return m
	case 24:
		s := &IntegerSetAttr{NumDims: r.smallCount(), NumSymbols: r.smallCount()}
		for n := r.count("affine constraint"); n > 0; n-- {
			s.Constraints = append(s.Constraints, readAffineExpr(r, 0))
		}
		for range s.Constraints {
			s.EqFlags = append(s.EqFlags, r.bool())
		}
		return s
	default:
		fail(at, InvalidArgument, "unknown builtin attribute code %d", code)
	}
	return nil
}

// smallCount reads a varint that must be small (a dimension count).
func (r *entryReader) smallCount() int {
	at := r.off()
	v := r.varint()
	if v > 1<<16 {
		fail(at, InvalidArgument, "count %d is too large", v)
	}
	return int(v)
}

var affineBinary = map[uint64]string{3: "+", 4: "*", 5: "mod", 6: "floordiv", 7: "ceildiv"}

func readAffineExpr(r *entryReader, depth int) AffineExpr {
	if depth > maxDepth {
		r.fail("affine expression nests deeper than %d", maxDepth)
	}
	at := r.off()
	switch kind := r.varint(); kind {
	case 0:
		return AffineExpr{Kind: "d", Value: int64(r.smallCount())}
	case 1:
		return AffineExpr{Kind: "s", Value: int64(r.smallCount())}
	case 2:
		return AffineExpr{Kind: "c", Value: r.svarint()}
	default:
		op, ok := affineBinary[kind]
		if !ok {
			fail(at, InvalidArgument, "unknown affine expression kind %d", kind)
		}
		lhs := readAffineExpr(r, depth+1)
		rhs := readAffineExpr(r, depth+1)
		return AffineExpr{Kind: op, LHS: &lhs, RHS: &rhs}
	}
}

func builtinIntWidth(t Type) int {
	switch t := t.(type) {
	case *IntegerType:
		return t.Width
	case *IndexType:
		return 64
	}
	return 0
}

// shapedParts returns the shape and element type of a shaped type (builtin
// or VHLO), or a nil element type for other types.
func shapedParts(t Type) ([]int64, Type) {
	switch t := t.(type) {
	case *RankedTensorType:
		return t.Shape, t.Elem
	case *VectorType:
		return t.Shape, t.Elem
	case *MemRefType:
		return t.Shape, t.Elem
	case *VHLOTensorType:
		return t.Shape, t.Elem
	}
	return nil, nil
}

// numElements is the product of the static dimensions, saturating at 2^62.
func numElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0
		}
		if d > 0 && n > (1<<62)/d {
			return 1 << 62
		}
		n *= d
	}
	return n
}
