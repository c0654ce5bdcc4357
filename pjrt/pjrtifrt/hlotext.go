package pjrtifrt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openpathways/pathways/internal/xlapb"
)

// hloText prints a compiled module for a person, in the spirit of XLA's HLO
// text: each computation with its instructions, their shapes, operands and
// the attributes that say most (dimensions, slices, comparisons, callees,
// custom-call targets). Constants' values and backend configurations are left
// out. It is what compiled.as_text() shows through the proxy.
func hloText(m *xlapb.HloModuleProto) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule %s", m.GetName())
	if ps := m.GetHostProgramShape(); ps != nil {
		fmt.Fprintf(&b, ", entry_computation_layout={%s}", programShapeText(ps))
	}
	b.WriteString("\n")
	names := namesByID(m.GetComputations())
	for _, c := range m.GetComputations() {
		b.WriteString("\n")
		if c.GetId() == m.GetEntryComputationId() {
			b.WriteString("ENTRY ")
		}
		fmt.Fprintf(&b, "%%%s %s {\n", c.GetName(), programShapeText(c.GetProgramShape()))
		operands := namesByID(c.GetInstructions())
		for _, in := range c.GetInstructions() {
			b.WriteString("  ")
			if in.GetId() == c.GetRootId() {
				b.WriteString("ROOT ")
			}
			fmt.Fprintf(&b, "%%%s = %s %s(%s)%s\n", in.GetName(), shapeText(in.GetShape()), in.GetOpcode(),
				operandsText(in, operands), attributesText(in, names))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func programShapeText(ps *xlapb.ProgramShapeProto) string {
	params := make([]string, len(ps.GetParameters()))
	for i, p := range ps.GetParameters() {
		params[i] = shapeText(p)
	}
	return "(" + strings.Join(params, ", ") + ")->" + shapeText(ps.GetResult())
}

// shapeText prints a shape as XLA does: f32[4,2]{1,0}, (s32[], pred[3]).
func shapeText(s *xlapb.ShapeProto) string {
	if s == nil {
		return "()"
	}
	if s.GetElementType() == xlapb.PrimitiveType_TUPLE {
		parts := make([]string, len(s.GetTupleShapes()))
		for i, t := range s.GetTupleShapes() {
			parts[i] = shapeText(t)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	text := strings.ToLower(s.GetElementType().String()) + "[" + intsText(s.GetDimensions()) + "]"
	if l := s.GetLayout(); l != nil && len(s.GetDimensions()) > 0 {
		text += "{" + intsText(l.GetMinorToMajor()) + "}"
	}
	return text
}

func operandsText(in *xlapb.HloInstructionProto, names map[int64]string) string {
	if in.GetOpcode() == "parameter" {
		return strconv.FormatInt(in.GetParameterNumber(), 10)
	}
	ops := make([]string, len(in.GetOperandIds()))
	for i, id := range in.GetOperandIds() {
		ops[i] = "%" + names[id]
	}
	return strings.Join(ops, ", ")
}

func attributesText(in *xlapb.HloInstructionProto, computations map[int64]string) string {
	var attrs []string
	if d := in.GetDimensions(); len(d) > 0 {
		attrs = append(attrs, "dimensions={"+intsText(d)+"}")
	}
	if in.GetOpcode() == "get-tuple-element" {
		attrs = append(attrs, "index="+strconv.FormatInt(in.GetTupleIndex(), 10))
	}
	if sl := in.GetSliceDimensions(); len(sl) > 0 {
		parts := make([]string, len(sl))
		for i, d := range sl {
			parts[i] = fmt.Sprintf("[%d:%d:%d]", d.GetStart(), d.GetLimit(), d.GetStride())
		}
		attrs = append(attrs, "slice={"+strings.Join(parts, ", ")+"}")
	}
	if d := in.GetComparisonDirection(); d != "" {
		attrs = append(attrs, "direction="+d)
	}
	if t := in.GetCustomCallTarget(); t != "" {
		attrs = append(attrs, "custom_call_target="+strconv.Quote(t))
	}
	for _, id := range in.GetCalledComputationIds() {
		attrs = append(attrs, "calls=%"+computations[id])
	}
	if len(attrs) == 0 {
		return ""
	}
	return ", " + strings.Join(attrs, ", ")
}

func intsText(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ",")
}

// namesByID maps the ids of computations or instructions to their names.
func namesByID[T interface {
	GetId() int64
	GetName() string
}](items []T) map[int64]string {
	names := make(map[int64]string, len(items))
	for _, it := range items {
		names[it.GetId()] = it.GetName()
	}
	return names
}
