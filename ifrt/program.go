package ifrt

import "bytes"

// Program is something a Client compiles: an MLIR module or a plugin program.
type Program interface{ isProgram() }

// MLIRProgram is a StableHLO module, as MLIR text or as bytecode (a portable artifact
// such as JAX serializes).
type MLIRProgram struct {
	Module []byte
}

func (*MLIRProgram) isProgram() {}

// mlirBytecodeMagic starts every MLIR bytecode file: "ML\xEFR".
var mlirBytecodeMagic = []byte{0x4D, 0x4C, 0xEF, 0x52}

// IsBytecode reports whether the module is MLIR bytecode rather than text.
func (p *MLIRProgram) IsBytecode() bool { return bytes.HasPrefix(p.Module, mlirBytecodeMagic) }

// PluginProgram is a program for a server-side handler rather than a compiler, such
// as pathwaysutils' JSON requests. Backends that do not know it answer Unimplemented.
type PluginProgram struct {
	Data []byte
}

func (*PluginProgram) isProgram() {}

// CompileOptions are the options of Client.Compile.
type CompileOptions struct {
	// Devices the executable runs on; nil means the backend's default (usually its
	// first addressable device).
	Devices DeviceList
	// XLA is a serialized xla.CompileOptionsProto; opaque to ifrt. Backends that
	// compile with XLA pass it on; others may read what they understand.
	XLA []byte
}
