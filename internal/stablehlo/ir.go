package stablehlo

import "strconv"

// Module is a parsed MLIR module. It is immutable after Parse and safe for
// concurrent use.
type Module struct {
	name          string
	attrs         map[string]*Attr
	funcs         map[string]*Func
	main          *Func
	unsupported   *Error // first op the interpreter cannot run, if any
	collectives   bool
	numPartitions int
	numReplicas   int
	paramPlacing  []string // see ProcessShardings
	resultPlacing []string
	// The placements of paramPlacing and resultPlacing over the partitions,
	// made once at parse (every run of the process reads them, none changes
	// them), or why they cannot be made.
	paramPls, resultPls []*placement
	placingErr          error
}

// Func is one func.func.
type Func struct {
	Name     string // symbol name without "@"
	Public   bool   // visibility; JAX makes only @main public
	params   []Value
	results  []Value
	body     *region
	numSlots int // SSA values in the function, regions included
	// threefry is set on functions that may run as native threefry2x32.
	threefry *nativeThreefry
}

// Value describes a function parameter or result.
type Value struct {
	Type TensorType
	// Sharding is the raw mhlo.sharding string, e.g. "{devices=[2,4]<=[8]}",
	// or one converted from an sdy.sharding attribute; "" when absent.
	Sharding string
	// DonorOrAlias is set by jax.buffer_donor = true or tf.aliasing_output.
	DonorOrAlias bool
	// Attrs holds every attribute of the argument or result, by name. It is
	// shared with the Module and must be treated as read-only.
	Attrs map[string]*Attr
}

// region is a single-block region: arguments, ops and the values its
// terminator returns.
type region struct {
	args     []int
	argTypes []TensorType
	ops      []*operation
	rets     []int
}

// eachOp calls f on every op of r and of its ops' regions, in order.
func eachOp(r *region, f func(*operation)) {
	for _, op := range r.ops {
		f(op)
		for _, sub := range op.regions {
			eachOp(sub, f)
		}
	}
}

// operation is one op. Operands and results are slots in the frame of the
// enclosing function.
type operation struct {
	Name        string
	operands    []int
	operandTyps []TensorType
	results     []int
	resultTypes []TensorType
	attrs       map[string]*Attr
	regions     []*region
	callee      string
	pos         int // byte offset in the source, for messages
	line, col   int // 1-based position in text; 0, 0 for bytecode
	eval        evalFunc
	lastUse     []bool          // per operand: no later op reads it (see markLastUses)
	resultLive  []bool          // per result: a later op or the region's return reads it
	branchMade  []bool          // case, if: per result, every branch made or owns it (see branchesMake)
	fused       *fusedProgram   // set on ops made by fuseRegion
	constant    *array          // small constants, decoded once by Parse (shared)
	collective  *collectiveInfo // process groups of a collective op
	manual      *manualInfo     // shardings of an op entering or leaving a manual region
}

// at says where op is, for messages: "line:col" in text, "offset N" in
// bytecode.
func (op *operation) at() string {
	if op.line == 0 {
		return "offset " + strconv.Itoa(op.pos)
	}
	return strconv.Itoa(op.line) + ":" + strconv.Itoa(op.col)
}

// NumPartitions returns mhlo.num_partitions (default 1).
func (m *Module) NumPartitions() int { return m.numPartitions }

// NumReplicas returns mhlo.num_replicas (default 1).
func (m *Module) NumReplicas() int { return m.numReplicas }

// Main returns the public entry function @main (nil only if Parse failed).
func (m *Module) Main() *Func { return m.main }

// Name returns the module's symbol name, e.g. "jit_f", or "".
func (m *Module) Name() string { return m.name }

// Func returns the function with the given name, or nil.
func (m *Module) Func(name string) *Func { return m.funcs[name] }

// UsesCollectives reports whether the module has cross-device communication
// or manual (shard_map) partitioning, which a single global run cannot do:
// such a module runs as one process per partition (RunProcess), and Run
// runs all of them at once.
func (m *Module) UsesCollectives() bool { return m.collectives }

// Unsupported returns an Unimplemented *Error naming the first op or type
// the interpreter cannot run, or nil when Run can execute every op.
func (m *Module) Unsupported() error {
	if m.unsupported == nil {
		return nil
	}
	return m.unsupported
}

// Params returns the type and attributes of each argument.
func (f *Func) Params() []Value { return f.params }

// Results returns the type and attributes of each result.
func (f *Func) Results() []Value { return f.results }
