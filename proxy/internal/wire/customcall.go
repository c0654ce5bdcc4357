package wire

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Serialized type names of custom-call programs and their compile options
// (jax.experimental.colocated_python sends both; the options carry nothing).
const (
	TypeCustomCallProgram        = "xla::ifrt::CustomCallProgram"
	TypeCustomCallCompileOptions = "xla::ifrt::CustomCallCompileOptions"
)

// Field numbers of xla.ifrt.CustomCallProgramProto
// (xla/python/ifrt/custom_call_program.proto, as embedded in jaxlib 0.10.2):
// type string = 1; name string = 2; serialized_program_text bytes = 3;
// devices DeviceListProto = 4; input_specs repeated ArraySpecProto = 5;
// output_specs repeated ArraySpecProto = 6; version_number int32 = 7.
// The message is small, so it is read field by field here rather than
// through generated code.
const (
	customCallType          protowire.Number = 1
	customCallName          protowire.Number = 2
	customCallProgramText   protowire.Number = 3
	customCallDevices       protowire.Number = 4
	customCallInputSpecs    protowire.Number = 5
	customCallOutputSpecs   protowire.Number = 6
	customCallVersionNumber protowire.Number = 7
)

// maxCustomCallSpecs bounds the specs a custom-call program may declare.
const maxCustomCallSpecs = 1 << 16

// CustomCallProgramFromBytes decodes a serialized CustomCallProgramProto.
func CustomCallProgramFromBytes(b []byte, lookup DeviceLookup) (*ifrt.CustomCallProgram, error) {
	p := &ifrt.CustomCallProgram{}
	var devices *proxypb.DeviceListProto
	var ins, outs []*proxypb.ArraySpecProto
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, badCustomCall("bad tag")
		}
		b = b[n:]
		if num == customCallVersionNumber {
			if typ != protowire.VarintType {
				return nil, badCustomCall("version_number is not a varint")
			}
			if _, n = protowire.ConsumeVarint(b); n < 0 {
				return nil, badCustomCall("bad version_number")
			}
			b = b[n:]
			continue
		}
		if num < customCallType || num > customCallOutputSpecs {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return nil, badCustomCall("bad field %d", num)
			}
			b = b[n:]
			continue
		}
		if typ != protowire.BytesType {
			return nil, badCustomCall("field %d is not length-delimited", num)
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, badCustomCall("field %d is truncated", num)
		}
		b = b[n:]
		switch num {
		case customCallType:
			p.Type = string(v)
		case customCallName:
			p.Name = string(v)
		case customCallProgramText:
			p.Program = append([]byte(nil), v...)
		case customCallDevices:
			devices = &proxypb.DeviceListProto{}
			if err := proto.Unmarshal(v, devices); err != nil {
				return nil, badCustomCall("devices: %v", err)
			}
		case customCallInputSpecs, customCallOutputSpecs:
			if len(ins)+len(outs) >= maxCustomCallSpecs {
				return nil, badCustomCall("more than %d array specs", maxCustomCallSpecs)
			}
			s := &proxypb.ArraySpecProto{}
			if err := proto.Unmarshal(v, s); err != nil {
				return nil, badCustomCall("array spec: %v", err)
			}
			if num == customCallInputSpecs {
				ins = append(ins, s)
			} else {
				outs = append(outs, s)
			}
		}
	}
	var err error
	if p.Devices, err = DeviceListFromProto(devices, lookup); err != nil {
		return nil, err
	}
	if p.InputSpecs, err = customCallSpecs(ins, lookup); err != nil {
		return nil, err
	}
	if p.OutputSpecs, err = customCallSpecs(outs, lookup); err != nil {
		return nil, err
	}
	return p, nil
}

func customCallSpecs(ps []*proxypb.ArraySpecProto, lookup DeviceLookup) ([]ifrt.ArraySpec, error) {
	out := make([]ifrt.ArraySpec, len(ps))
	for i, p := range ps {
		s, err := ArraySpecFromProto(p, lookup)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// CustomCallProgramToBytes encodes p as a CustomCallProgramProto.
func CustomCallProgramToBytes(p *ifrt.CustomCallProgram) ([]byte, error) {
	var b []byte
	str := func(num protowire.Number, v []byte) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
	}
	msg := func(num protowire.Number, m proto.Message) error {
		raw, err := proto.Marshal(m)
		if err != nil {
			return ifrt.Errorf(ifrt.Internal, "wire: encoding a custom-call program: %v", err)
		}
		str(num, raw)
		return nil
	}
	str(customCallType, []byte(p.Type))
	str(customCallName, []byte(p.Name))
	str(customCallProgramText, p.Program)
	if err := msg(customCallDevices, DeviceListToProto(p.Devices)); err != nil {
		return nil, err
	}
	for _, group := range []struct {
		num   protowire.Number
		specs []ifrt.ArraySpec
	}{{customCallInputSpecs, p.InputSpecs}, {customCallOutputSpecs, p.OutputSpecs}} {
		for _, s := range group.specs {
			sp, err := ArraySpecToProto(s)
			if err != nil {
				return nil, err
			}
			if err := msg(group.num, sp); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func badCustomCall(format string, args ...any) error {
	return ifrt.Errorf(ifrt.InvalidArgument, "wire: malformed CustomCallProgram: "+format, args...)
}
