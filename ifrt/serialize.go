package ifrt

import "context"

// ExecutableSerializer is an optional interface of a Client that can save a
// compiled executable's bytes and load them again without compiling, as a
// compilation cache needs.
type ExecutableSerializer interface {
	// CompilerVersion identifies the compiler build: bytes serialized under
	// one version load only under the same.
	CompilerVersion() string
	// SerializeExecutable returns the compiled form of exe, which this client
	// compiled.
	SerializeExecutable(exe LoadedExecutable) ([]byte, error)
	// LoadExecutable loads serialized bytes of the same program compiled with
	// the same options, as Compile(program, opts) would return it.
	LoadExecutable(ctx context.Context, serialized []byte, program Program, opts *CompileOptions) (LoadedExecutable, error)
}
