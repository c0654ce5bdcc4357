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
	// the shardings the program expects and produces). Parameters is nil when the
	// backend cannot tell (a PJRT backend given a module it cannot read); then
	// DonatableParameters is unknown too, and callers learn what an execution
	// donated from its arguments' IsDeleted.
	Parameters() []ArgumentInfo
	Outputs() []ArgumentInfo
	// DonatableParameters lists the parameter indices the program may donate.
	DonatableParameters() []int

	// Execute runs the program with one array per parameter. Donated arguments are
	// deleted by the call.
	Execute(ctx context.Context, args []Array, opts *ExecuteOptions) (*ExecuteResult, error)

	// Delete releases the executable; afterwards Execute fails with
	// ErrExecutableDeleted.
	Delete() *Future
	IsDeleted() bool
	As(target any) bool

	isExecutable()
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
}
