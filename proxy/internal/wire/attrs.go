package wire

import (
	"fmt"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// AttributesToProto encodes a. Values must be string, bool, int64, []int64 or
// float32 (the types of the IFRT attribute map); int, int32 and float64 are
// accepted and narrowed or widened to those, anything else is InvalidArgument.
func AttributesToProto(a ifrt.Attributes) (*proxypb.AttributeMapProto, error) {
	p := &proxypb.AttributeMapProto{Attributes: make(map[string]*proxypb.AttributeMapProto_Value, len(a))}
	for k, v := range a {
		var val proxypb.AttributeMapProto_Value
		switch v := v.(type) {
		case string:
			val.Value = &proxypb.AttributeMapProto_Value_StringValue{StringValue: []byte(v)}
		case []byte:
			val.Value = &proxypb.AttributeMapProto_Value_StringValue{StringValue: append([]byte{}, v...)}
		case bool:
			val.Value = &proxypb.AttributeMapProto_Value_BoolValue{BoolValue: v}
		case int64:
			val.Value = &proxypb.AttributeMapProto_Value_Int64Value{Int64Value: v}
		case int:
			val.Value = &proxypb.AttributeMapProto_Value_Int64Value{Int64Value: int64(v)}
		case int32:
			val.Value = &proxypb.AttributeMapProto_Value_Int64Value{Int64Value: int64(v)}
		case []int64:
			val.Value = &proxypb.AttributeMapProto_Value_Int64ListValue{Int64ListValue: &proxypb.AttributeMapProto_Value_Int64List{Elements: append([]int64{}, v...)}}
		case float32:
			val.Value = &proxypb.AttributeMapProto_Value_FloatValue{FloatValue: v}
		case float64:
			val.Value = &proxypb.AttributeMapProto_Value_FloatValue{FloatValue: float32(v)}
		default:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: attribute %q has type %T, which the attribute map cannot carry", k, v)
		}
		p.Attributes[k] = &val
	}
	return p, nil
}

// AttributesFromProto decodes p (nil: no attributes). String values become Go
// strings; a value with no member set is InvalidArgument.
func AttributesFromProto(p *proxypb.AttributeMapProto) (ifrt.Attributes, error) {
	out := make(ifrt.Attributes, len(p.GetAttributes()))
	for k, v := range p.GetAttributes() {
		switch x := v.GetValue().(type) {
		case *proxypb.AttributeMapProto_Value_StringValue:
			out[k] = string(x.StringValue)
		case *proxypb.AttributeMapProto_Value_BoolValue:
			out[k] = x.BoolValue
		case *proxypb.AttributeMapProto_Value_Int64Value:
			out[k] = x.Int64Value
		case *proxypb.AttributeMapProto_Value_Int64ListValue:
			out[k] = append([]int64{}, x.Int64ListValue.GetElements()...)
		case *proxypb.AttributeMapProto_Value_FloatValue:
			out[k] = x.FloatValue
		default:
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: attribute %q has no value", k)
		}
	}
	return out, nil
}

// RemapPlanToProto encodes plan.
func RemapPlanToProto(plan ifrt.RemapPlan) (*proxypb.RemapPlanProto, error) {
	p := &proxypb.RemapPlanProto{}
	for _, s := range plan.InputSpecs {
		sp, err := ArraySpecToProto(s)
		if err != nil {
			return nil, err
		}
		p.InputSpecs = append(p.InputSpecs, sp)
	}
	for _, s := range plan.OutputSpecs {
		sp, err := ArraySpecToProto(s)
		if err != nil {
			return nil, err
		}
		p.OutputSpecs = append(p.OutputSpecs, sp)
	}
	for _, m := range plan.Mappings {
		mp := &proxypb.RemapPlanProto_MappingProto{InArray: int32(m.InArray), OutArray: int32(m.OutArray)}
		for _, iv := range m.From {
			mp.FromStart = append(mp.FromStart, iv.Start)
			mp.FromEnd = append(mp.FromEnd, iv.End)
			mp.FromStep = append(mp.FromStep, iv.Step)
		}
		for _, iv := range m.To {
			mp.ToStart = append(mp.ToStart, iv.Start)
			mp.ToEnd = append(mp.ToEnd, iv.End)
			mp.ToStep = append(mp.ToStep, iv.Step)
		}
		p.Mappings = append(p.Mappings, mp)
	}
	return p, nil
}

// RemapPlanFromProto decodes p: array indices must be in range, interval lists
// must have matching lengths and every interval must be well formed.
func RemapPlanFromProto(p *proxypb.RemapPlanProto, lookup DeviceLookup) (ifrt.RemapPlan, error) {
	if p == nil {
		return ifrt.RemapPlan{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing remap plan")
	}
	var plan ifrt.RemapPlan
	for i, sp := range p.GetInputSpecs() {
		s, err := ArraySpecFromProto(sp, lookup)
		if err != nil {
			return ifrt.RemapPlan{}, fmt.Errorf("remap plan input %d: %w", i, err)
		}
		plan.InputSpecs = append(plan.InputSpecs, s)
	}
	for i, sp := range p.GetOutputSpecs() {
		s, err := ArraySpecFromProto(sp, lookup)
		if err != nil {
			return ifrt.RemapPlan{}, fmt.Errorf("remap plan output %d: %w", i, err)
		}
		plan.OutputSpecs = append(plan.OutputSpecs, s)
	}
	for i, mp := range p.GetMappings() {
		m := ifrt.RemapMapping{InArray: int(mp.GetInArray()), OutArray: int(mp.GetOutArray())}
		if m.InArray < 0 || m.InArray >= len(plan.InputSpecs) || m.OutArray < 0 || m.OutArray >= len(plan.OutputSpecs) {
			return ifrt.RemapPlan{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: remap mapping %d moves array %d to %d, out of range", i, m.InArray, m.OutArray)
		}
		var err error
		if m.From, err = intervals(mp.GetFromStart(), mp.GetFromEnd(), mp.GetFromStep()); err != nil {
			return ifrt.RemapPlan{}, err
		}
		if m.To, err = intervals(mp.GetToStart(), mp.GetToEnd(), mp.GetToStep()); err != nil {
			return ifrt.RemapPlan{}, err
		}
		if len(m.From) != len(m.To) {
			return ifrt.RemapPlan{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: remap mapping %d has %d source and %d destination intervals", i, len(m.From), len(m.To))
		}
		plan.Mappings = append(plan.Mappings, m)
	}
	return plan, nil
}

func intervals(start, end, step []int64) ([]ifrt.Interval, error) {
	if len(start) != len(end) || len(start) != len(step) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: remap intervals have %d starts, %d ends and %d steps", len(start), len(end), len(step))
	}
	out := make([]ifrt.Interval, len(start))
	for i := range start {
		iv := ifrt.Interval{Start: start[i], End: end[i], Step: step[i]}
		if iv.Step <= 0 || iv.Start < 0 || iv.End < iv.Start {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: bad remap interval [%d:%d:%d]", iv.Start, iv.End, iv.Step)
		}
		out[i] = iv
	}
	return out, nil
}

// ExecuteOptionsToProto encodes o (nil: defaults).
func ExecuteOptionsToProto(o *ifrt.ExecuteOptions) *proxypb.ExecuteOptionsProto {
	p := &proxypb.ExecuteOptionsProto{}
	if o == nil {
		return p
	}
	p.FillStatus = o.FillStatus
	p.LaunchId = o.LaunchID
	for _, i := range o.NonDonatableInputs {
		p.NonDonatableInputIndices = append(p.NonDonatableInputIndices, int32(i))
	}
	return p
}

// ExecuteOptionsFromProto decodes p (nil: defaults). Negative input indices
// are InvalidArgument; fields ifrt has no place for are dropped.
func ExecuteOptionsFromProto(p *proxypb.ExecuteOptionsProto) (*ifrt.ExecuteOptions, error) {
	o := &ifrt.ExecuteOptions{FillStatus: p.GetFillStatus(), LaunchID: p.GetLaunchId()}
	for _, i := range p.GetNonDonatableInputIndices() {
		if i < 0 {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: non-donatable input index %d is negative", i)
		}
		o.NonDonatableInputs = append(o.NonDonatableInputs, int(i))
	}
	return o, nil
}
