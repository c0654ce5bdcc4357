package mlirbc

// Module is a decoded bytecode file: the operations of its top-level block
// (for a StableHLO artifact, one builtin.module) and what the header says.
type Module struct {
	Version  uint64 // bytecode format version, 0..MaxVersion
	Producer string // e.g. "StableHLO_v1.13.7" or "MLIR21.0.0git"
	Dialects []Dialect
	Ops      []*Operation
	// NumValues is the number of values in the module; Value.ID is below it.
	NumValues int
}

// Dialect is an entry of the dialect section.
type Dialect struct {
	Name string
	// Version is the dialect's encoded version, or nil. Shardy's is three
	// varints (major, minor, patch); see SdyVersion.
	Version []byte
}

// Operation is one op. Its attributes are split as in MLIR: Props holds the
// inherent attributes the op stores as properties (bytecode version 5 and
// later), Attrs the discardable ones (and, in older versions, all of them).
type Operation struct {
	Name string // "dialect.op"
	// Registered is false when the producer did not know the op (version 5
	// and later record this; older files say nothing and read as true).
	Registered bool
	Offset     int       // where the op starts in the input
	Loc        Attribute // a location attribute
	Attrs      []NamedAttr
	Props      []NamedAttr
	// RawProps holds the properties of a registered op whose property
	// layout this reader does not know (see Read's documentation).
	RawProps   []byte
	Results    []*Value
	Operands   []*Value
	Successors []*Block
	Regions    []*Region
	// Isolated reports that the op's regions are isolated from above.
	Isolated bool
}

// Attr returns the property or attribute called name, or nil.
func (op *Operation) Attr(name string) Attribute {
	for _, a := range op.Props {
		if a.Name == name {
			return a.Value
		}
	}
	for _, a := range op.Attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// Region is a list of blocks.
type Region struct{ Blocks []*Block }

// Block is a list of operations with arguments.
type Block struct {
	Args []*Value
	Ops  []*Operation
}

// Value is an SSA value: an op result (Owner set) or a block argument.
type Value struct {
	ID    int // 0, 1, ... in definition order; see Module.NumValues
	Type  Type
	Owner *Operation // nil for block arguments
	Index int        // result or argument number
	Loc   Attribute  // location of a block argument, or nil
}

// NamedAttr is one entry of an attribute dictionary or of an op's properties.
type NamedAttr struct {
	Name  string
	Value Attribute
}
