package stablehlo

import (
	"context"
	"maps"
	"slices"
)

// LinalgTargets lists the LAPACK custom-call targets of JAX's CPU lowering
// that the interpreter implements (the table in docs/gocpu.md).
func LinalgTargets() []string {
	return slices.Sorted(maps.Keys(linalgCustomCalls))
}

// CallLinalg runs one of LinalgTargets outside a program, as a custom_call
// of that target with operands args, integer attributes attrs (its
// mhlo.backend_config) and result types results would run. Tensors are
// row-major whatever layout the call site asked for: a caller handing over
// XLA's buffers reorders them. It is safe for concurrent use.
func CallLinalg(ctx context.Context, target string, attrs map[string]int64, args []*Tensor, results []TensorType) ([]*Tensor, error) {
	eval := linalgCustomCalls[target]
	if eval == nil {
		return nil, unimplementedf("custom_call @%s is not a LAPACK target the interpreter implements", target)
	}
	config := &Attr{Kind: AttrDict, Dict: make(map[string]*Attr, len(attrs))}
	for k, v := range attrs {
		config.Dict[k] = &Attr{Kind: AttrInt, Int: v}
	}
	op := &operation{
		Name:        "stablehlo.custom_call",
		callee:      target,
		resultTypes: results,
		attrs:       map[string]*Attr{"mhlo.backend_config": config},
	}
	in := make([]*array, len(args))
	for i, a := range args {
		if !a.Type.supported() || int64(len(a.Data)) != a.Type.byteSize() {
			return nil, invalidf("@%s operand %d: %d bytes of %s", target, i, len(a.Data), a.Type)
		}
		op.operandTyps = append(op.operandTyps, a.Type)
		in[i] = decodeTensor(a)
	}
	for i, t := range results {
		if !t.supported() {
			return nil, invalidf("@%s result %d has type %s", target, i, t)
		}
	}
	out, err := eval(&evaluator{ctx: ctx}, op, in)
	if err != nil {
		return nil, err
	}
	if len(out) != len(results) {
		return nil, invalidf("@%s gives %d results, the call has %d", target, len(out), len(results))
	}
	res := make([]*Tensor, len(out))
	for i, a := range out {
		if !a.t.Equal(results[i]) {
			return nil, invalidf("@%s result %d is %s, the call has %s", target, i, a.t, results[i])
		}
		res[i] = encodeArray(a)
	}
	return res, nil
}
