package backend

import "github.com/openpathways/pathways/ifrt"

// Checker runs, for one client, everything an operation checks before it
// touches data: that the client is open, that the arrays are its own and
// alive (Own), the operation's own conditions (CheckReshard and the others)
// and that the client can hold the arrays it is to make. Every backend runs
// them in this order, so that the same bad call fails with the same code
// everywhere, even when it is wrong in more than one way.
type Checker[A ifrt.Array] struct {
	// Name prefixes the errors ("gocpu").
	Name string
	// Open returns ErrClientClosed once the client is closed, else nil.
	Open func() error
	// Owns reports whether an array of the backend's type is this client's.
	Owns func(A) bool
	// Spec checks a spec for an array the client is to make: at least
	// ArraySpec.Validate, then the backend's own conditions (its devices,
	// memory kinds, layouts). Nil means Validate alone.
	Spec func(ifrt.ArraySpec) error
}

func (k Checker[A]) spec(s ifrt.ArraySpec) error {
	if k.Spec == nil {
		return s.Validate()
	}
	return k.Spec(s)
}

// Arrays checks that the client is open and xs are its own live arrays.
func (k Checker[A]) Arrays(xs []ifrt.Array) ([]A, error) {
	if err := k.Open(); err != nil {
		return nil, err
	}
	return Own(k.Name, xs, k.Owns)
}

// Array is Arrays for one array.
func (k Checker[A]) Array(x ifrt.Array) (A, error) {
	if err := k.Open(); err != nil {
		var zero A
		return zero, err
	}
	return OwnOne(k.Name, x, k.Owns)
}

// HostBuffer checks MakeArrayFromHostBuffer's arguments and returns data
// dense and row-major (a copy when opts has strides). The caller still calls
// opts.OnDoneWithHostBuffer, whatever happens.
func (k Checker[A]) HostBuffer(data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) ([]byte, error) {
	if err := k.Open(); err != nil {
		return nil, err
	}
	if err := k.spec(spec); err != nil {
		return nil, err
	}
	var strides []int64
	if opts != nil {
		strides = opts.ByteStrides
	}
	if err := ifrt.CheckHostBuffer(spec.DType, spec.Shape, strides, len(data)); err != nil {
		return nil, err
	}
	if ifrt.StridesAreDense(spec.Shape, spec.DType.HostByteSize(), strides) {
		return data, nil
	}
	n, _ := spec.Shape.ByteSize(spec.DType)
	dense := make([]byte, n)
	ifrt.CopyStridedToDense(dense, data, spec.DType, spec.Shape, strides)
	return dense, nil
}

// Assemble checks AssembleArray's arguments (see CheckAssemble) and returns
// the parts.
func (k Checker[A]) Assemble(spec ifrt.ArraySpec, parts []ifrt.Array) ([]A, error) {
	if err := k.Open(); err != nil {
		return nil, err
	}
	if err := k.spec(spec); err != nil {
		return nil, err
	}
	arrays, err := Own(k.Name, parts, k.Owns)
	if err != nil {
		return nil, err
	}
	if _, err := CheckAssemble(k.Name, spec, parts); err != nil {
		return nil, err
	}
	return arrays, nil
}

// Disassemble checks DisassembleArray's argument and returns it with the
// specs of its parts (see DisassembleSpecs).
func (k Checker[A]) Disassemble(x ifrt.Array) (A, []ifrt.ArraySpec, error) {
	a, err := k.Array(x)
	if err != nil {
		return a, nil, err
	}
	specs, err := DisassembleSpecs(a.Spec())
	return a, specs, err
}

// Copy checks CopyArrays's arguments and returns the arrays with the specs
// of their copies (see CheckCopy).
func (k Checker[A]) Copy(xs []ifrt.Array, devices ifrt.DeviceList, memoryKind *ifrt.MemoryKind) ([]A, []ifrt.ArraySpec, error) {
	arrays, err := k.Arrays(xs)
	if err != nil {
		return nil, nil, err
	}
	specs, err := CheckCopy(k.Name, xs, devices, memoryKind)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range specs {
		if err := k.spec(s); err != nil {
			return nil, nil, err
		}
	}
	return arrays, specs, nil
}

// Reshard checks Reshard's arguments (see CheckReshard) and returns the
// arrays.
func (k Checker[A]) Reshard(xs []ifrt.Array, specs []ifrt.ArraySpec) ([]A, error) {
	arrays, err := k.Arrays(xs)
	if err != nil {
		return nil, err
	}
	if err := CheckReshard(k.Name, xs, specs); err != nil {
		return nil, err
	}
	for _, s := range specs {
		if err := k.spec(s); err != nil {
			return nil, err
		}
	}
	return arrays, nil
}

// Remap checks Remap's arguments (see CheckRemap) and returns the arrays with
// where each output shard comes from.
func (k Checker[A]) Remap(plan ifrt.RemapPlan, xs []ifrt.Array) ([]A, [][]ifrt.ShardSource, error) {
	arrays, err := k.Arrays(xs)
	if err != nil {
		return nil, nil, err
	}
	sources, err := CheckRemap(plan, xs)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range plan.OutputSpecs {
		if err := k.spec(s); err != nil {
			return nil, nil, err
		}
	}
	return arrays, sources, nil
}

// FullyReplicated checks FullyReplicatedShard's argument and returns it with
// the spec of the result (see CheckFullyReplicated).
func (k Checker[A]) FullyReplicated(x ifrt.Array) (A, ifrt.ArraySpec, error) {
	a, err := k.Array(x)
	if err != nil {
		return a, ifrt.ArraySpec{}, err
	}
	spec, err := CheckFullyReplicated(k.Name, a)
	return a, spec, err
}

// Execute checks Execute's arguments (see CheckExecute) and returns them.
func (k Checker[A]) Execute(e ifrt.LoadedExecutable, args []ifrt.Array, opts *ifrt.ExecuteOptions) ([]A, error) {
	arrays, err := k.Arrays(args)
	if err != nil {
		return nil, err
	}
	if err := CheckExecute(k.Name, e, args, opts); err != nil {
		return nil, err
	}
	return arrays, nil
}

// CompileMLIR checks Compile's arguments for a backend that compiles MLIR
// (StableHLO) programs alone: another kind of program is UNIMPLEMENTED. It
// returns the program and opts, never nil.
func (k Checker[A]) CompileMLIR(program ifrt.Program, opts *ifrt.CompileOptions) (*ifrt.MLIRProgram, *ifrt.CompileOptions, error) {
	if err := k.Open(); err != nil {
		return nil, nil, err
	}
	if opts == nil {
		opts = &ifrt.CompileOptions{}
	}
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok || p == nil {
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "%s: cannot compile a %T; only MLIR (StableHLO, text or bytecode) programs are supported", k.Name, program)
	}
	return p, opts, nil
}

// CopyToHost checks CopyToHostBuffer's arguments: the client open, then dst
// of the size the strides need (ifrt.CheckHostBuffer). Whether the array is
// deleted is the backend's to tell when it takes its data.
func (k Checker[A]) CopyToHost(a A, dst []byte, byteStrides []int64) error {
	if err := k.Open(); err != nil {
		return err
	}
	return ifrt.CheckHostBuffer(a.DType(), a.Shape(), byteStrides, len(dst))
}
