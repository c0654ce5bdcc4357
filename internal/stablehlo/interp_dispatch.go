package stablehlo

import "strings"

var evalTable = map[string]evalFunc{
	"constant":                evalConstant,
	"iota":                    evalIota,
	"compare":                 evalCompare,
	"select":                  evalSelect,
	"clamp":                   evalClamp,
	"fma":                     evalFma,
	"convert":                 evalConvert,
	"bitcast_convert":         evalBitcastConvert,
	"is_finite":               evalIsFinite,
	"broadcast_in_dim":        evalBroadcastInDim,
	"reshape":                 evalReshape,
	"transpose":               evalTranspose,
	"slice":                   evalSlice,
	"dynamic_slice":           evalDynamicSlice,
	"dynamic_update_slice":    evalDynamicUpdateSlice,
	"concatenate":             evalConcatenate,
	"pad":                     evalPad,
	"reverse":                 evalReverse,
	"dot_general":             evalDotGeneral,
	"dot":                     evalDot,
	"reduce":                  evalReduce,
	"reduce_window":           evalReduceWindow,
	"gather":                  evalGather,
	"scatter":                 evalScatter,
	"sort":                    evalSort,
	"while":                   evalWhile,
	"case":                    evalCase,
	"if":                      evalIf,
	"optimization_barrier":    evalIdentity,
	"custom_call":             evalCustomCall,
	"rng_bit_generator":       evalRngBitGenerator,
	"rng":                     evalRng,
	"func.call":               evalCall,
	"composite":               evalCall, // runs its decomposition
	"sdy.sharding_constraint": evalIdentity,
	"sdy.reshard":             evalIdentity,
	"chlo.top_k":              evalTopK,
	"convolution":             evalConvolution,
	"triangular_solve":        evalTriangularSolve,
	"map":                     evalMap,
	"get_dimension_size":      evalGetDimensionSize,
	"select_and_scatter":      evalSelectAndScatter,
	"reduce_precision":        evalReducePrecision,
	"sdy.manual_computation":  evalManualComputation,
	"all_reduce":              evalAllReduce,
	"all_gather":              evalAllGather,
	"reduce_scatter":          evalReduceScatter,
	"all_to_all":              evalAllToAll,
	"collective_permute":      evalCollectivePermute,
	"collective_broadcast":    evalCollectiveBroadcast,
	"partition_id":            evalPartitionID,
	"replica_id":              evalReplicaID,
	"real":                    evalReal,
	"imag":                    evalImag,
	"complex":                 evalComplex,
	"fft":                     evalFFT,
}

func init() {
	for name, kind := range binaryOps {
		evalTable[name] = evalBinary(kind)
	}
	for name, kind := range unaryOps {
		evalTable[name] = evalUnary(kind)
	}
}

// otherElementwiseOps are the elementwise ops besides those of the unary
// and binary tables.
var otherElementwiseOps = map[string]bool{"compare": true, "select": true, "convert": true, "clamp": true, "fma": true, "is_finite": true}

// isElementwise reports whether the op named name (without "stablehlo.")
// is elementwise: it applies to whole arrays as it does to scalars.
func isElementwise(name string) bool {
	_, binary := binaryOps[name]
	_, unary := unaryOps[name]
	return binary || unary || otherElementwiseOps[name]
}

// lookupEval returns the evaluator for op, or nil when it is unsupported.
func lookupEval(op *operation) evalFunc {
	name := op.Name
	if strings.HasPrefix(name, "stablehlo.") {
		name = name[len("stablehlo."):]
	} else if strings.HasPrefix(name, "mhlo.") {
		return nil
	}
	if op.Name == "stablehlo.custom_call" {
		switch {
		case isFullToShard(op):
			return evalFullToShard
		case isShardToFull(op):
			return evalShardToFull
		case !supportedCustomCall(op.callee):
			return nil
		}
	}
	return evalTable[name]
}

// unsupportedOp is the UNIMPLEMENTED error for an op the interpreter does
// not run: a custom call names its target and, for LAPACK, the JAX
// functions that emit it.
func unsupportedOp(op *operation) *Error {
	if op.Name != "stablehlo.custom_call" || op.callee == "" {
		return unimplementedf("%s: op %s is not supported by the interpreter", op.at(), op.Name)
	}
	msg := op.at() + ": custom_call @" + op.callee + " is not supported by the interpreter"
	if name, ok := strings.CutPrefix(op.callee, "lapack_"); ok && len(name) > 1 {
		routine, _, _ := strings.Cut(name[1:], "_")
		if name[0] == 'c' || name[0] == 'z' {
			msg += " (LAPACK " + routine + " of complex matrices)"
		}
		// PJRT plugins have no LAPACK kernels of their own: jaxlib's live in
		// its in-process CPU client, and pjrtifrt lends plugins only the
		// interpreter's.
		return unimplementedf("%s; no OpenPathways backend runs it, only JAX's own CPU client", msg)
	}
	return unimplementedf("%s; a worker on a PJRT plugin (--backend=pjrt:<plugin.so>) runs it", msg)
}
