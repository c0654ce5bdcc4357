package stablehlo

import (
	"strconv"
	"strings"
)

// Manual partitioning (shard_map). Inside a manual region each partition
// computes on its own block of the region's operands; the region's results
// are blocks of global values. JAX writes the region in one of two ways:
//
//   - Shardy: sdy.manual_computation(operands) in_shardings=[...]
//     out_shardings=[...] manual_axes={...} with the body as its region;
//   - GSPMD: custom_call @SPMDFullToShardShape on a value annotated by
//     custom_call @Sharding (entering), the body (usually a func.call), and
//     custom_call @SPMDShardToFullShape (leaving), whose mhlo.sharding
//     places the result.
//
// A Shardy region over some of the mesh axes (the others left to the
// automatic partitioner) is cut only along its manual axes: each partition
// runs the body on the whole extent of the automatic axes, as every
// partition of an automatic axis would together. GSPMD regions must be
// manual over every axis.

// manualInfo is what Parse resolves for an op that enters or leaves a
// manual region.
type manualInfo struct {
	in, out         []*HloSharding // sdy.manual_computation, over its manual axes
	inText, outText []string       // the same as HLO sharding strings
	sharding        *HloSharding   // FullToShard: its operand's; ShardToFull: its result's
	err             error
}

func isFullToShard(op *operation) bool {
	return op.Name == "stablehlo.custom_call" && op.callee == "SPMDFullToShardShape"
}

func isShardToFull(op *operation) bool {
	return op.Name == "stablehlo.custom_call" && op.callee == "SPMDShardToFullShape"
}

// resolveManual fills op.manual; defs maps the slots defined so far in op's
// region to their ops.
func (p *parser) resolveManual(op *operation, defs map[int]*operation) {
	var info manualInfo
	switch {
	case op.Name == "sdy.manual_computation":
		info.inText, info.outText, info.err = p.manualComputationShardings(op)
		info.in, info.err = parseShardings(info.inText, info.err)
		info.out, info.err = parseShardings(info.outText, info.err)
	case isFullToShard(op):
		if len(op.operands) != 1 {
			info.err = invalidf("SPMDFullToShardShape takes one operand")
			break
		}
		def := defs[op.operands[0]]
		if def == nil || def.Name != "stablehlo.custom_call" || def.callee != "Sharding" {
			info.err = unimplementedf("SPMDFullToShardShape's operand must come from custom_call @Sharding")
			break
		}
		if !isFullyManual(op) {
			info.err = unimplementedf("partially manual GSPMD regions (sharding %s) are not supported; JAX's default partitioner, Shardy, runs them", stringAttr(op, "mhlo.sharding"))
			break
		}
		info.sharding, info.err = ParseHloSharding(stringAttr(def, "mhlo.sharding"))
	case isShardToFull(op):
		info.sharding, info.err = ParseHloSharding(stringAttr(op, "mhlo.sharding"))
	default:
		return
	}
	op.manual = &info
}

func stringAttr(op *operation, name string) string {
	if a := op.attrs[name]; a != nil && a.Kind == AttrString {
		return a.Str
	}
	return ""
}

func isFullyManual(op *operation) bool {
	return strings.TrimSpace(stringAttr(op, "mhlo.sharding")) == "{manual}"
}

// manualComputationShardings converts in_shardings and out_shardings to HLO
// sharding strings over the manual axes.
func (p *parser) manualComputationShardings(op *operation) (in, out []string, err error) {
	axes, err := readManualAxes(op.attrs["manual_axes"])
	if err != nil {
		return nil, nil, err
	}
	keep := func(a string) bool { return axes[a] }
	convert := func(name string, want int) ([]string, error) {
		texts, ok := shardingTexts(op.attrs[name])
		if !ok || len(texts) != want {
			return nil, invalidf("%s must list %d shardings", name, want)
		}
		out := make([]string, len(texts))
		for i, t := range texts {
			s, err := sdyToHloSharding("#sdy.sharding"+t, p.meshes, keep)
			if err != nil {
				return nil, unimplementedf("%s[%d] %s: %v", name, i, t, err)
			}
			out[i] = s
		}
		return out, nil
	}
	if in, err = convert("in_shardings", len(op.operands)); err != nil {
		return nil, nil, err
	}
	if out, err = convert("out_shardings", len(op.results)); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// parseShardings parses HLO sharding strings, unless err is already set.
func parseShardings(texts []string, err error) ([]*HloSharding, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*HloSharding, len(texts))
	for i, t := range texts {
		if out[i], err = ParseHloSharding(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shardingTexts returns the "<@mesh, [...]>" items of a list of Shardy
// shardings: a list in text, #sdy.sharding_per_value<[...]> from bytecode.
func shardingTexts(a *Attr) ([]string, bool) {
	if a == nil {
		return nil, false
	}
	if a.Kind == AttrDialect && a.Str == "sdy.sharding_per_value" && len(a.List) == 1 {
		a = a.List[0]
	}
	if a.Kind != AttrList {
		return nil, false
	}
	out := make([]string, len(a.List))
	for i, e := range a.List {
		if !strings.HasPrefix(e.Raw, "<") {
			return nil, false
		}
		out[i] = e.Raw
	}
	return out, true
}

// readManualAxes reads manual_axes: {"x", "y"} in text (a dictionary of unit
// attributes), #sdy<manual_axes{"x", "y"}> from bytecode.
func readManualAxes(a *Attr) (map[string]bool, error) {
	axes := map[string]bool{}
	switch {
	case a == nil:
	case a.Kind == AttrDict:
		for k := range a.Dict {
			axes[k] = true
		}
	case a.Kind == AttrDialect && strings.HasPrefix(a.Raw, "#sdy<manual_axes{") && strings.HasSuffix(a.Raw, "}>"):
		body := strings.TrimSuffix(strings.TrimPrefix(a.Raw, "#sdy<manual_axes{"), "}>")
		for _, q := range strings.Split(body, ",") {
			if q = strings.TrimSpace(q); q == "" {
				continue
			}
			name, err := strconv.Unquote(q)
			if err != nil {
				return nil, invalidf("bad manual axis %s", q)
			}
			axes[name] = true
		}
	default:
		return nil, invalidf("manual_axes must be a set of axis names")
	}
	return axes, nil
}

// enterManual returns this partition's block of each operand, as sharding
// i places it; block supplies it.
func (ev *evaluator) enterManual(op *operation, shardings []*HloSharding, block func(i int, pl *placement) (*array, error)) ([]*array, error) {
	if ev.proc == nil {
		return nil, unimplementedf("%s needs a per-process run (RunProcess)", op.Name)
	}
	out := make([]*array, len(shardings))
	for i, s := range shardings {
		pl, err := placementOf(s, op.operandTyps[i].Shape, ev.mod.numPartitions)
		if err != nil {
			return nil, err
		}
		if out[i], err = block(i, pl); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cutFrom supplies blocks by cutting them out of the global operands.
func (ev *evaluator) cutFrom(in []*array) func(i int, pl *placement) (*array, error) {
	return func(i int, pl *placement) (*array, error) {
		start, limit := pl.block(ev.proc.Partition)
		return sliceBlock(in[i], start, limit), nil
	}
}

// leaveManual places the blocks a manual region returns: the results are
// the global values they are blocks of, as sharding j places them.
func (ev *evaluator) leaveManual(op *operation, shardings []*HloSharding, blocks []*array) ([]*shardedValue, error) {
	P := ev.mod.numPartitions
	out := make([]*shardedValue, len(blocks))
	for j, b := range blocks {
		t := op.resultTypes[j]
		pl, err := placementOf(shardings[j], t.Shape, P)
		if err != nil {
			return nil, err
		}
		if want := pl.localType(t, ev.proc.Partition); !b.t.Equal(want) {
			return nil, invalidf("result %d: the manual region returns %s for a block of %s, which is %s", j, b.t, t, want)
		}
		b.markShared()
		out[j] = &shardedValue{local: b, pl: pl, t: t}
	}
	return out, nil
}

// runManualComputation runs an sdy.manual_computation's body on this
// partition's blocks.
func (ev *evaluator) runManualComputation(op *operation, block func(i int, pl *placement) (*array, error)) ([]*shardedValue, error) {
	info := op.manual
	if info == nil || info.err != nil {
		return nil, manualErr(op)
	}
	if len(op.regions) != 1 {
		return nil, invalidf("sdy.manual_computation needs one region")
	}
	blocks, err := ev.enterManual(op, info.in, block)
	if err != nil {
		return nil, err
	}
	body := op.regions[0]
	for i, b := range blocks {
		if i >= len(body.argTypes) || !b.t.Equal(body.argTypes[i]) {
			return nil, invalidf("operand %d: this partition's block is %s, the body takes %v", i, b.t, body.argTypes)
		}
	}
	res, err := ev.runRegion(body, blocks)
	if err != nil {
		return nil, err
	}
	return ev.leaveManual(op, info.out, res)
}

func manualErr(op *operation) error {
	if op.manual == nil {
		return internalf("%s was not resolved", op.Name)
	}
	return op.manual.err
}

// evalManualComputation runs a manual region met inside a global
// computation (a called function, a loop body): cut the operands, run the
// body, assemble the results.
func evalManualComputation(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	vals, err := ev.runManualComputation(op, ev.cutFrom(in))
	if err != nil {
		return nil, err
	}
	out := make([]*array, len(vals))
	for j, v := range vals {
		if out[j], err = ev.assemble(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evalFullToShard cuts this partition's block of the operand (GSPMD).
func evalFullToShard(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if op.manual == nil || op.manual.err != nil {
		return nil, manualErr(op)
	}
	blocks, err := ev.enterManual(op, []*HloSharding{op.manual.sharding}, ev.cutFrom(in))
	if err != nil {
		return nil, err
	}
	return blocks, nil
}

// evalShardToFull assembles the global value of this partition's block
// (GSPMD).
func evalShardToFull(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	v, err := ev.shardToFull(op, in[0])
	if err != nil {
		return nil, err
	}
	g, err := ev.assemble(v)
	if err != nil {
		return nil, err
	}
	return []*array{g}, nil
}

func (ev *evaluator) shardToFull(op *operation, block *array) (*shardedValue, error) {
	if op.manual == nil || op.manual.err != nil {
		return nil, manualErr(op)
	}
	if ev.proc == nil {
		return nil, unimplementedf("%s needs a per-process run (RunProcess)", op.Name)
	}
	vals, err := ev.leaveManual(op, []*HloSharding{op.manual.sharding}, []*array{block})
	if err != nil {
		return nil, err
	}
	return vals[0], nil
}
