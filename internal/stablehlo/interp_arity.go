package stablehlo

// arity gives the operand and result counts of ops whose evaluators index
// their operands directly; -1 means "any number". Checking them once after
// parsing keeps every evaluator free of count checks.
type arity struct{ minIn, maxIn, results int }

var opArity = map[string]arity{
	"constant": {0, 0, 1}, "iota": {0, 0, 1},
	"compare": {2, 2, 1}, "select": {3, 3, 1}, "clamp": {3, 3, 1}, "fma": {3, 3, 1},
	"convert": {1, 1, 1}, "bitcast_convert": {1, 1, 1}, "is_finite": {1, 1, 1},
	"broadcast_in_dim": {1, 1, 1}, "reshape": {1, 1, 1}, "transpose": {1, 1, 1},
	"slice": {1, 1, 1}, "dynamic_slice": {1, -1, 1}, "dynamic_update_slice": {2, -1, 1},
	"concatenate": {1, -1, 1}, "pad": {2, 2, 1}, "reverse": {1, 1, 1},
	"dot_general": {2, 2, 1}, "dot": {2, 2, 1},
	"gather": {2, 2, 1}, "case": {1, 1, -1}, "if": {1, 1, -1},
	"rng": {3, 3, 1}, "rng_bit_generator": {1, 1, 2}, "sort": {1, -1, -1}, "while": {0, -1, -1},
	"reduce": {2, -1, -1}, "reduce_window": {2, -1, -1}, "scatter": {3, -1, -1},
	"convolution": {2, 2, 1}, "triangular_solve": {2, 2, 1},
	"map": {1, -1, 1}, "get_dimension_size": {1, 1, 1}, "select_and_scatter": {3, 3, 1}, "reduce_precision": {1, 1, 1},
}

func init() {
	for name := range binaryOps {
		opArity[name] = arity{2, 2, 1}
	}
	for name := range unaryOps {
		opArity[name] = arity{1, 1, 1}
	}
}

// checkArity returns an InvalidArgument error when op has the wrong number
// of operands, results or regions for its kind.
func checkArity(op *operation) *Error {
	name := trimDialect(op.Name)
	a, ok := opArity[name]
	if !ok {
		return nil
	}
	n := len(op.operands)
	if n < a.minIn || (a.maxIn >= 0 && n > a.maxIn) {
		return invalidf("%s: %s: wrong number of operands (%d)", op.at(), op.Name, n)
	}
	if a.results >= 0 && len(op.resultTypes) != a.results {
		return invalidf("%s: %s: wrong number of results (%d)", op.at(), op.Name, len(op.resultTypes))
	}
	wantRegions := map[string]int{"reduce": 1, "reduce_window": 1, "scatter": 1, "sort": 1, "while": 2, "if": 2,
		"select_and_scatter": 2, "map": 1}[name]
	if wantRegions > 0 && len(op.regions) != wantRegions {
		return invalidf("%s: %s: needs %d regions, has %d", op.at(), op.Name, wantRegions, len(op.regions))
	}
	if name == "case" && len(op.regions) == 0 {
		return invalidf("%s: %s: needs at least one region", op.at(), op.Name)
	}
	if name == "while" && len(op.resultTypes) != n {
		return invalidf("%s: %s: %d operands but %d results", op.at(), op.Name, n, len(op.resultTypes))
	}
	return nil
}
