package stablehlo

// Cost is an estimate of what one run of a program computes, counted the
// way XLA's HloCostAnalysis counts an unfused program: Flops are one per
// element of an elementwise op, 2·K per output element of a dot or
// convolution over K products, one per reduced input element;
// Transcendentals are the elements of exp, log, tanh, sqrt, power and
// their kin (which count there instead of in Flops); BytesAccessed sums
// every op's operands and results. Loop bodies and called functions count
// once per appearance (XLA does not know trip counts either); of a case's
// branches the costliest counts.
type Cost struct {
	Flops, Transcendentals, BytesAccessed float64
}

func (c *Cost) add(o Cost) {
	c.Flops += o.Flops
	c.Transcendentals += o.Transcendentals
	c.BytesAccessed += o.BytesAccessed
}

// Cost estimates one run of the module's @main.
func (m *Module) Cost() Cost {
	return m.regionCost(m.main.body, map[string]bool{})
}

// regionCost sums the costs of r's ops; calling names the functions being
// counted, so that a call cycle (invalid anyway) cannot recurse for ever.
func (m *Module) regionCost(r *region, calling map[string]bool) Cost {
	var c Cost
	for _, op := range r.ops {
		c.add(m.opCost(op, calling))
	}
	return c
}

func (m *Module) opCost(op *operation, calling map[string]bool) Cost {
	var c Cost
	name := trimDialect(op.Name)
	if name == "constant" {
		return c
	}
	for _, t := range op.operandTyps {
		c.BytesAccessed += bytesOf(t)
	}
	out := 0.0
	for _, t := range op.resultTypes {
		c.BytesAccessed += bytesOf(t)
		out += float64(t.NumElements())
	}
	in := 0.0
	if len(op.operandTyps) > 0 {
		in = float64(op.operandTyps[0].NumElements())
	}
	switch {
	case name == "func.call" || name == "call" || name == "composite":
		if f := m.funcs[op.callee]; f != nil && !calling[op.callee] {
			calling[op.callee] = true
			c.add(m.regionCost(f.body, calling))
			delete(calling, op.callee)
		}
	case name == "case" || name == "if":
		var most Cost
		for _, r := range op.regions {
			if b := m.regionCost(r, calling); b.Flops+b.Transcendentals > most.Flops+most.Transcendentals {
				most = b
			}
		}
		c.add(most)
	case name == "while":
		for _, r := range op.regions {
			c.add(m.regionCost(r, calling))
		}
	case name == "dot_general" || name == "dot":
		c.Flops += 2 * out * contracted(op)
	case name == "convolution" && len(op.operandTyps) == 2 && len(op.resultTypes) == 1:
		// Each output element sums a window of the kernel over its input
		// features: the kernel's size over its output features.
		k := op.operandTyps[1]
		if of := outputFeatures(op, k); of > 0 {
			c.Flops += 2 * out * float64(k.NumElements()) / float64(of)
		}
	case name == "reduce" || name == "reduce_window" || name == "all_reduce" || name == "reduce_scatter":
		c.Flops += in
	case isTranscendental(name):
		c.Transcendentals += out
	case isElementwise(name):
		c.Flops += out
	}
	return c
}

// contracted is the number of products summed into each output element of
// a dot: the product of the lhs contracting dimensions (the last one for
// stablehlo.dot).
func contracted(op *operation) float64 {
	if len(op.operandTyps) == 0 {
		return 0
	}
	lhs := op.operandTyps[0].Shape
	dims := []int64{int64(len(lhs) - 1)}
	if op.attrs["dot_dimension_numbers"] != nil || op.attrs["contracting_dims"] != nil {
		d, err := dotDimensions(op)
		if err != nil {
			return 0
		}
		dims = d.lhsContract
	}
	k := 1.0
	for _, d := range dims {
		if d >= 0 && int(d) < len(lhs) {
			k *= float64(lhs[d])
		}
	}
	return k
}

// outputFeatures is the size of the kernel's output-feature dimension, or 0
// when the dimension numbers do not say.
func outputFeatures(op *operation, k TensorType) int64 {
	a := op.attr("dimension_numbers", "dim_numbers")
	if a == nil {
		return 0
	}
	d, err := parseConvDims(a.Raw)
	if err != nil || d.kOut < 0 || d.kOut >= len(k.Shape) {
		return 0
	}
	return k.Shape[d.kOut]
}

func bytesOf(t TensorType) float64 {
	return float64(t.NumElements()) * float64(t.Elem.ByteSize())
}

// transcendentalKinds are the ops XLA counts as transcendentals.
var transcendentalKinds = map[string]bool{
	"exponential": true, "exponential_minus_one": true, "log": true, "log_plus_one": true, "logistic": true,
	"sqrt": true, "rsqrt": true, "cbrt": true, "tanh": true, "sine": true, "cosine": true, "tan": true,
	"power": true, "atan2": true, "chlo.erf": true, "chlo.erf_inv": true, "chlo.erfc": true, "chlo.lgamma": true,
	"chlo.digamma": true, "chlo.sinh": true, "chlo.cosh": true, "chlo.asin": true, "chlo.acos": true,
	"chlo.atan": true, "chlo.asinh": true, "chlo.acosh": true, "chlo.atanh": true, "chlo.tan": true,
}

func isTranscendental(name string) bool { return transcendentalKinds[name] }
