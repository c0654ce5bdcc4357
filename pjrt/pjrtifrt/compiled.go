package pjrtifrt

import (
	"maps"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/pjrt"
)

// optimizedModule returns the plugin's optimized program as an HLO module:
// "hlo", or "hlo_with_config" as the XLA CPU plugins give it.
func optimizedModule(x *pjrt.Executable) (*xlapb.HloModuleProto, error) {
	format, code, err := x.OptimizedProgram()
	if err != nil {
		return nil, fromPJRT(err)
	}
	m := &xlapb.HloModuleProto{}
	switch format {
	case "hlo":
		err = proto.Unmarshal(code, m)
	case "hlo_with_config":
		var wc xlapb.HloModuleProtoWithConfig
		err = proto.Unmarshal(code, &wc)
		m = wc.GetHloModule()
	default:
		return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: the plugin gives its optimized program as %q, not as an HLO module", format)
	}
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: the plugin's optimized program does not decode: %v", err)
	}
	return m, nil
}

// compiledSignature reads what the compiler made of a program it was given
// as bytecode, which pjrtifrt does not parse: each parameter's dtype and
// global shape and the parameters whose buffers the execution takes over
// (input/output aliases), from the plugin's optimized program. shardings are
// the parameters' shardings (nil: one device). ok is false when the plugin
// does not give its program as an HLO module, or the module does not fit.
func compiledSignature(x *pjrt.Executable, devices ifrt.DeviceList, shardings []*ifrt.OpSharding) (params []ifrt.ArgumentInfo, donatable []int, ok bool) {
	m, err := optimizedModule(x)
	if err != nil {
		return nil, nil, false
	}
	shapes := m.GetHostProgramShape().GetParameters()
	if len(shapes) == 0 || (shardings != nil && len(shardings) != len(shapes)) {
		return nil, nil, false
	}
	for i, sp := range shapes {
		dt, known := ifrt.DTypeFromPrimitiveType(int32(sp.GetElementType()))
		if !known || len(sp.GetTupleShapes()) > 0 {
			return nil, nil, false
		}
		info := ifrt.ArgumentInfo{DType: dt}
		var s ifrt.Sharding = ifrt.NewSingleDeviceSharding(devices[0], "")
		if shardings != nil && len(devices) > 1 {
			info.OpSharding = shardings[i]
			hs, err := ifrt.NewHloSharding(devices, "", *shardings[i])
			if err != nil {
				return nil, nil, false
			}
			s = hs
		}
		// The module is one partition's: scale its shapes back to the whole.
		if info.Shape, err = globalShape(sp.GetDimensions(), s); err != nil {
			return nil, nil, false
		}
		params = append(params, info)
	}
	for _, a := range m.GetInputOutputAlias().GetEntries() {
		if p := int(a.GetParameterNumber()); p >= 0 && p < len(params) && !slices.Contains(donatable, p) {
			donatable = append(donatable, p)
		}
	}
	slices.Sort(donatable)
	return params, donatable, true
}

// ProgramText prints the program as the compiler left it (its optimized HLO).
func (e *executable) ProgramText() (string, error) {
	m, err := optimizedModule(e.x)
	if err != nil {
		return "", err
	}
	return hloText(m), nil
}

// CostAnalysis returns the plugin's estimates for the program ("flops",
// "bytes accessed", ...). The XLA CPU plugins make none
// (PJRT_Executable_GetCostAnalysis is UNIMPLEMENTED), where jaxlib's own CPU
// client runs XLA's analysis itself; for them it returns the interpreter's
// estimate of the module (ifrtconv.CostAttributes).
func (e *executable) CostAnalysis() (ifrt.Attributes, error) {
	props, err := e.x.CostAnalysis()
	if err != nil {
		if ifrt.CodeOf(err) == ifrt.Unimplemented && e.estimate != nil {
			return maps.Clone(e.estimate), nil
		}
		return nil, fromPJRT(err)
	}
	return ifrt.Attributes(props), nil
}

// CompiledMemoryStats returns the compiler's account of the memory one
// device uses to run the program.
func (e *executable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	s, err := e.x.CompiledMemoryStats()
	if err != nil {
		return ifrt.CompiledMemoryStats{}, fromPJRT(err)
	}
	return s, nil
}
