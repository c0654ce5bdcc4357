package ifrt

import "context"

// LoadedExecutable is a compiled program, loaded on its devices and ready to run.
// It is safe for concurrent use; Delete releases it.
type LoadedExecutable interface {
	Name() string
	// Fingerprint identifies the compiled program; empty if the backend has none.
	Fingerprint() string
	Devices() DeviceList
	// Parameters and Outputs describe the arguments and results (global shapes and
	// the shardings the program expects and produces). A backend that cannot read
	// the program may know only the parameters' shardings (DType invalid, Shape
	// nil) or nothing (Parameters nil); then DonatableParameters is unknown too
	// (see ParametersKnown); ExecuteResult.Donated still says what an
	// execution donated.
	Parameters() []ArgumentInfo
	Outputs() []ArgumentInfo
	// DonatableParameters lists the parameter indices the program may donate.
	DonatableParameters() []int

	// Execute runs the program with one array per parameter. Donated arguments are
	// deleted by the call and listed in ExecuteResult.Donated.
	Execute(ctx context.Context, args []Array, opts *ExecuteOptions) (*ExecuteResult, error)

	// Delete releases the executable; afterwards Execute fails with
	// ErrExecutableDeleted.
	Delete() *Future
	IsDeleted() bool
	As(target any) bool

	isExecutable()
}

// ParametersKnown reports whether e describes its parameters fully: each one's
// dtype and shape, and so which of them it may donate.
func ParametersKnown(e LoadedExecutable) bool {
	params := e.Parameters()
	for _, p := range params {
		if !p.DType.Valid() {
			return false
		}
	}
	return len(params) > 0
}

// ArgumentInfo describes one parameter or output of an executable.
type ArgumentInfo struct {
	DType DType
	Shape Shape // global shape
	// OpSharding is the program's sharding annotation; nil when unsharded (single
	// device) or unknown.
	OpSharding *OpSharding
	MemoryKind MemoryKind
	Layout     *Layout
}

// ExecuteOptions are the options of Execute; nil means defaults.
type ExecuteOptions struct {
	// NonDonatableInputs lists argument indices that must not be donated even if the
	// program allows it.
	NonDonatableInputs []int
	// FillStatus asks for ExecuteResult.Status.
	FillStatus bool
	LaunchID   int32
}

// ExecuteResult is what Execute returns.
type ExecuteResult struct {
	Outputs []Array
	// Status resolves when the execution finishes (set only with FillStatus).
	Status *Future
	// Donated lists, in order, the indices of the arguments the execution
	// donated: they are deleted, and IsDeleted says so without asking
	// anyone. Nil when it donated none.
	Donated []int
}

// CheckArguments checks args against what e says of its parameters: their
// number when known, and each one's dtype and shape when known. Mismatches are
// InvalidArgument errors prefixed with the backend's name.
func CheckArguments(backend string, e LoadedExecutable, args []Array) error {
	params := e.Parameters()
	if params == nil {
		return nil
	}
	if len(args) != len(params) {
		return Errorf(InvalidArgument, "%s: %s takes %d arguments, got %d", backend, e.Name(), len(params), len(args))
	}
	for i, a := range args {
		p := params[i]
		if a == nil {
			return Errorf(InvalidArgument, "%s: argument %d of %s is nil", backend, i, e.Name())
		}
		if p.DType.Valid() && (a.DType() != p.DType || !a.Shape().Equal(p.Shape)) {
			return Errorf(InvalidArgument, "%s: argument %d is %v%v, %s wants %v%v", backend, i, a.DType(), a.Shape(), e.Name(), p.DType, p.Shape)
		}
	}
	return nil
}

// ProgramTexter is implemented by executables that can show their program to
// a person: the compiler's optimized program where the backend has it, else
// the program as given.
type ProgramTexter interface {
	ProgramText() (string, error)
}

// CostAnalyzer is implemented by executables whose backend estimates what a
// run costs (for example "flops" and "bytes accessed"); the keys differ by
// backend.
type CostAnalyzer interface {
	CostAnalysis() (Attributes, error)
}

// MemoryAnalyzer is implemented by executables whose backend estimates the
// memory one device needs to run them (JAX's compiled.memory_analysis()).
type MemoryAnalyzer interface {
	CompiledMemoryStats() (CompiledMemoryStats, error)
}

// CompiledMemoryStats is what one device of an executable holds while it
// runs, in bytes, as XLA's CompiledMemoryStats counts it: the device's shards
// of the arguments and of the outputs, the part of the outputs that reuses
// donated arguments (Alias), the program's own temporary buffers (Temp), its
// code, and at most how much is live at once (Peak; 0 when unknown). The
// Host fields count what lives in host memory spaces.
type CompiledMemoryStats struct {
	GeneratedCodeSizeInBytes int64
	ArgumentSizeInBytes      int64
	OutputSizeInBytes        int64
	AliasSizeInBytes         int64
	TempSizeInBytes          int64
	PeakMemoryInBytes        int64

	HostGeneratedCodeSizeInBytes int64
	HostArgumentSizeInBytes      int64
	HostOutputSizeInBytes        int64
	HostAliasSizeInBytes         int64
	HostTempSizeInBytes          int64
}
