package stablehlo

import (
	"slices"
	"strconv"
	"strings"
)

// Shardy propagation.
//
// JAX lowers with Shardy: @main's arguments carry #sdy.sharding attributes
// over a named mesh and XLA's sdy pipeline propagates them to every value
// before partitioning. What XLA then reports for an output JAX left
// unplaced is what that propagation gave the returned value, cut back to
// the mesh axes that divide each dimension evenly. shardyResults replays
// that propagation with Shardy's own rules (openxla/shardy,
// sdy/transforms/propagation):
//
//   - each op maps the dimensions of its operands and results onto factors
//     (op_sharding_rule_registry.cc): dot_general's batch and free
//     dimensions are factors its result shares, a contracted dimension one
//     it does not; reduce's kept dimensions are shared, reduced ones not;
//     a reshape splits its dimensions into common factors;
//   - per factor, the compatible major axes of the tensors that have it
//     (one a prefix of the other) are written to the tensors that can take
//     them; where two factors want one axis, the factor whose source tensor
//     is larger wins, then (elementwise ops) the more sharded one, then the
//     earlier tensor (aggressive_factor_propagation.cc);
//   - ops are visited in program order, and again whenever a value they
//     read or write changes, until nothing changes, once per step of the
//     op-priority schedule (op_priority_propagation.cc): elementwise ops,
//     reshape and transpose whose operands have a single use; those ops
//     whatever their uses; every op along its pass-through factors
//     (broadcast_in_dim only backward); along all factors (broadcast still
//     only backward); everything.
//
// Two things differ from Shardy, each as XLA does it: no axis is split into
// sub-axes (a dimension that would need one stays less sharded), and an
// output keeps the longest prefix of whole axes that divides each of its
// dimensions. Checked on some 2,300 programs (TestResultShardingsFollow-
// XLAPropagation has a sample) against XLA in JAX 0.10.2 and 0.12.0.1, on
// 2x4, 4x2, 8 and 2x2x2 meshes.

// sdyDir is a propagation direction.
type sdyDir uint8

const (
	dirNone sdyDir = iota
	dirForward
	dirBackward
	dirBoth
)

type sdyFactorKind uint8

const (
	factorPassThrough sdyFactorKind = iota
	factorReduction
	factorNeedReplication
	factorPermutation
)

// sdyTensor is a value's sharding: per dimension, mesh axis indices from
// major to minor and whether the dimension is closed (can take no more
// axes). set is false while the value has no sharding at all.
type sdyTensor struct {
	dims   [][]int
	closed []bool
	set    bool
}

func (t sdyTensor) clone() sdyTensor {
	c := sdyTensor{dims: make([][]int, len(t.dims)), closed: slices.Clone(t.closed), set: t.set}
	for i, d := range t.dims {
		c.dims[i] = slices.Clone(d)
	}
	return c
}

func (t sdyTensor) equal(o sdyTensor) bool {
	if len(t.dims) != len(o.dims) {
		return false
	}
	for i := range t.dims {
		if !slices.Equal(t.dims[i], o.dims[i]) || t.closed[i] != o.closed[i] {
			return false
		}
	}
	return true
}

func (t sdyTensor) empty() bool {
	for _, d := range t.dims {
		if len(d) > 0 {
			return false
		}
	}
	return true
}

// sdyRule is an op's sharding rule: factor sizes and kinds, and for each
// operand and result, each dimension's factors from major to minor.
type sdyRule struct {
	sizes    []int64
	kinds    []sdyFactorKind
	blocked  []bool
	operands [][][]int
	results  [][][]int
}

func newSdyRule(operands, results [][]int64) *sdyRule {
	r := &sdyRule{}
	mk := func(shapes [][]int64) [][][]int {
		out := make([][][]int, len(shapes))
		for i, s := range shapes {
			out[i] = make([][]int, len(s))
		}
		return out
	}
	r.operands, r.results = mk(operands), mk(results)
	return r
}

// factor adds a factor of the given size, mapped to dimension
// operandDims[k] of operand k and resultDims[k] of result k (-1: none).
func (r *sdyRule) factor(size int64, kind sdyFactorKind, blocked bool, operandDims, resultDims []int) {
	f := len(r.sizes)
	r.sizes = append(r.sizes, size)
	r.kinds = append(r.kinds, kind)
	r.blocked = append(r.blocked, blocked)
	mapDims := func(tensors [][][]int, dims []int) {
		for k, d := range dims {
			if d < 0 || k >= len(tensors) {
				continue
			}
			if size == 1 && len(tensors[k][d]) > 0 {
				continue
			}
			tensors[k][d] = append(tensors[k][d], f)
		}
	}
	mapDims(r.operands, operandDims)
	mapDims(r.results, resultDims)
}

// pointwise adds one factor per dimension of shape, shared by every
// operand and result of that rank (scalars take none).
func (r *sdyRule) pointwise(shape []int64, kindOf func(d int) sdyFactorKind) {
	for d, size := range shape {
		f := len(r.sizes)
		r.sizes = append(r.sizes, size)
		r.kinds = append(r.kinds, kindOf(d))
		r.blocked = append(r.blocked, false)
		for _, ts := range [][][][]int{r.operands, r.results} {
			for _, t := range ts {
				if len(t) > d {
					t[d] = append(t[d], f)
				}
			}
		}
	}
}

type sdyNode struct {
	name     string // op name without the stablehlo. prefix
	op       *operation
	operands []int
	results  []int
	rule     *sdyRule
	ewise    bool // elementwise for Shardy (sharding constraints included)
	passOp   bool // elementwise, reshape or transpose
	dynamic  bool // dynamic_slice
	bcast    bool // broadcast_in_dim
}

type sdyValue struct {
	shape    []int64
	t        sdyTensor
	constant bool // computed from constants only: Shardy gives each use its own copy
	def      *sdyNode
	uses     []*sdyNode // one entry per operand use, in program order
	returned int
}

type sdyEngine struct {
	meshName string
	axisSize []int64
	vals     map[int]*sdyValue
	nodes    []*sdyNode
	rets     []int
	funcRes  []sdyTensor
	budget   int
	funcs    map[string]*Func
	fresh    int // the last fresh value id handed out (negative)
}

// emptyMesh reports whether mesh name has no axes: JAX puts scalars and
// PRNG keys on one, and a sharding over it is replicated.
func (p *parser) emptyMesh(name string) bool { return strings.TrimSpace(p.meshes[name]) == "<[]>" }

// shardyResults returns the HLO sharding XLA gives each result of a Shardy
// @main ("" for replicated), or ok false where the module is not one whose
// propagation is reproduced here.
func (p *parser) shardyResults() (out []string, ok bool) {
	defer func() {
		// A malformed module the rules above did not foresee must not stop
		// Parse: its results stay unplaced here, and running it reports the
		// problem.
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	m := p.mod
	f, r := m.main, m.main.body
	e := &sdyEngine{vals: map[int]*sdyValue{}, funcs: m.funcs}
	// The mesh: one named mesh for every sharding in @main.
	useMesh := func(raw string) bool {
		name, _, _, ok := splitSdySharding(raw)
		if ok && p.emptyMesh(name) {
			return true
		}
		if !ok || (e.meshName != "" && name != e.meshName) {
			return false
		}
		if e.meshName == "" {
			names, sizes, _, err := parseSdyMesh(p.meshes[name])
			if err != nil || len(names) == 0 {
				return false
			}
			e.meshName, e.axisSize = name, sizes
		}
		return true
	}
	attrsOf := func(vs []Value) bool {
		for _, v := range vs {
			if a := v.Attrs["sdy.sharding"]; a != nil {
				if !useMesh(a.Raw) {
					return false
				}
			} else if v.Sharding != "" {
				return false // GSPMD: XLA runs another propagation
			}
		}
		return true
	}
	if !attrsOf(f.params) || !attrsOf(f.results) || len(r.args) != len(f.params) || len(r.rets) != len(f.results) {
		return nil, false
	}
	for _, op := range r.ops {
		if op.Name == "sdy.sharding_constraint" {
			if a := op.attrs["sharding"]; a == nil || !useMesh(a.Raw) {
				return nil, false
			}
		}
	}
	if e.meshName == "" {
		return nil, false
	}
	meshNames, _, _, _ := parseSdyMesh(p.meshes[e.meshName])
	tensorOf := func(raw string, rank int) (sdyTensor, bool) {
		mesh, dims, closed, ok := splitSdySharding(raw)
		if !ok || len(dims) != rank || (mesh != e.meshName && rank != 0 && !p.emptyMesh(mesh)) {
			return sdyTensor{}, false
		}
		t := sdyTensor{dims: make([][]int, rank), closed: closed, set: true}
		for d, axes := range dims {
			for _, a := range axes {
				i := slices.Index(meshNames, a)
				if i < 0 {
					return sdyTensor{}, false
				}
				t.dims[d] = append(t.dims[d], i)
			}
		}
		return t, true
	}
	unset := func(rank int) sdyTensor {
		return sdyTensor{dims: make([][]int, rank), closed: make([]bool, rank)}
	}
	for i, s := range r.args {
		v := &sdyValue{shape: f.params[i].Type.Shape, t: unset(len(f.params[i].Type.Shape))}
		if a := f.params[i].Attrs["sdy.sharding"]; a != nil {
			if v.t, ok = tensorOf(a.Raw, len(v.shape)); !ok {
				return nil, false
			}
		}
		e.vals[s] = v
	}
	for _, res := range f.results {
		t := unset(len(res.Type.Shape))
		if a := res.Attrs["sdy.sharding"]; a != nil {
			if t, ok = tensorOf(a.Raw, len(res.Type.Shape)); !ok {
				return nil, false
			}
		}
		e.funcRes = append(e.funcRes, t)
	}
	// The graph, calls inlined as XLA inlines them before propagating (Parse
	// runs this before its own inlining and fusion).
	rets, ok := e.emit(r, map[int]int{}, tensorOf, 0)
	if !ok {
		return nil, false
	}
	for _, s := range rets {
		e.vals[s].returned++
	}
	e.rets = rets
	e.applyConstraints()
	e.budget = 64 * (len(e.nodes) + 16)
	for prio := 0; prio < 5; prio++ {
		if !e.run(prio) {
			return nil, false
		}
	}
	out = make([]string, len(f.results))
	for k, s := range r.rets {
		if i := slices.Index(r.args, s); i >= 0 {
			out[k] = f.params[i].Sharding // returned as is
			continue
		}
		t := e.funcRes[k]
		shape := f.results[k].Type.Shape
		var dims []string
		sharded := false
		for d, axes := range t.dims {
			// Only whole axes that divide the dimension evenly stay.
			left, quoted := shape[d], []string(nil)
			for _, a := range axes {
				if n := e.axisSize[a]; n > 1 && left%n != 0 {
					break
				}
				left /= e.axisSize[a]
				quoted = append(quoted, strconv.Quote(meshNames[a]))
			}
			sharded = sharded || len(quoted) > 0
			dims = append(dims, "{"+strings.Join(quoted, ", ")+"}")
		}
		if !sharded {
			continue
		}
		s, err := sdyToHloSharding("#sdy.sharding<@"+e.meshName+", ["+strings.Join(dims, ", ")+"]>", p.meshes, nil)
		if err != nil {
			return nil, false
		}
		out[k] = canonicalIota(s)
	}
	return out, true
}

// emit adds the ops of region r to the graph and returns the ids of the
// values it returns. ids maps r's slots to graph value ids: @main's slots
// are their own ids unless a call's result aliases what the callee
// returns; a called function's values get fresh negative ids.
func (e *sdyEngine) emit(r *region, ids map[int]int, tensorOf func(string, int) (sdyTensor, bool), depth int) ([]int, bool) {
	id := func(s int) int {
		if v, ok := ids[s]; ok {
			return v
		}
		if depth == 0 {
			return s
		}
		e.fresh--
		ids[s] = e.fresh
		return e.fresh
	}
	mapAll := func(slots []int) []int {
		out := make([]int, len(slots))
		for i, s := range slots {
			out[i] = id(s)
		}
		return out
	}
	for _, op := range r.ops {
		if op.Name == "func.call" && op.callee != "" {
			f := e.funcs[op.callee]
			if f == nil || f.body == nil || depth > 16 || len(f.body.args) != len(op.operands) || len(f.body.rets) != len(op.results) {
				return nil, false
			}
			inner := map[int]int{}
			for i, s := range f.body.args {
				inner[s] = id(op.operands[i])
			}
			got, ok := e.emit(f.body, inner, tensorOf, depth+1)
			if !ok {
				return nil, false
			}
			for i, s := range op.results {
				ids[s] = got[i]
			}
			continue
		}
		if op.attrs["sdy.sharding"] != nil || op.attrs["mhlo.sharding"] != nil {
			return nil, false // an op placed by hand
		}
		if flows, ok := e.emitDataFlow(op, id, ids, tensorOf, depth); flows {
			if !ok {
				return nil, false
			}
			continue
		}
		n := &sdyNode{name: trimDialect(op.Name), op: op, operands: mapAll(op.operands), results: mapAll(op.results)}
		if n.name == "chlo.square" && len(n.operands) == 1 && len(op.resultTypes) == 1 && op.resultTypes[0].Elem.isFloat() {
			// XLA expands it to x * x before propagating.
			n.name, n.operands = "multiply", []int{n.operands[0], n.operands[0]}
		}
		shapes := make([][]int64, len(op.resultTypes))
		for k, t := range op.resultTypes {
			shapes[k] = t.Shape
		}
		if len(shapes) != len(op.results) || !e.addNode(n, shapes) {
			return nil, false
		}
		if op.Name == "sdy.sharding_constraint" {
			t, ok := tensorOf(op.attrs["sharding"].Raw, len(shapes[0]))
			if !ok {
				return nil, false
			}
			e.vals[n.results[0]].t = t
		}
	}
	out := mapAll(r.rets)
	for _, s := range out {
		if e.vals[s] == nil {
			return nil, false
		}
	}
	return out, true
}

// addNode records n with its results' shapes and gives it a sharding rule;
// false for an op whose propagation is not reproduced here.
func (e *sdyEngine) addNode(n *sdyNode, resultShapes [][]int64) bool {
	operandShapes := make([][]int64, len(n.operands))
	constant := true
	for k, s := range n.operands {
		v := e.vals[s]
		if v == nil {
			return false
		}
		operandShapes[k] = v.shape
		constant = constant && v.constant
	}
	for k, s := range n.results {
		e.vals[s] = &sdyValue{shape: resultShapes[k], t: sdyTensor{dims: make([][]int, len(resultShapes[k])), closed: make([]bool, len(resultShapes[k]))}, def: n}
	}
	if len(n.regions()) > 0 && n.name != "reduce" {
		constant = false // a loop or the like: not a constant expression
	}
	switch n.name {
	case "constant", "iota":
		constant = true
	}
	if constant && n.name != "sdy.sharding_constraint" {
		for _, s := range n.results {
			e.vals[s].constant = true
		}
		return true
	}
	n.rule = e.ruleOf(n, operandShapes, resultShapes)
	if n.rule == nil {
		return false
	}
	for _, s := range n.operands {
		e.vals[s].uses = append(e.vals[s].uses, n)
	}
	e.nodes = append(e.nodes, n)
	return true
}

func (n *sdyNode) regions() []*region {
	if n.op == nil {
		return nil
	}
	return n.op.regions
}

// emitDataFlow adds a while, case or optimization_barrier, ops whose results
// Shardy ties to their sources by data-flow edges: result i takes what flows
// from operand i (while, barrier) and from what each region returns in
// place i (while's body, case's branches), and a loop's block arguments are
// its operands. Each edge becomes an elementwise node from its sources to
// the result. flows is false for other ops; ok false when the op's regions
// hold an op whose propagation is not reproduced here.
func (e *sdyEngine) emitDataFlow(op *operation, id func(int) int, ids map[int]int, tensorOf func(string, int) (sdyTensor, bool), depth int) (flows, ok bool) {
	name := trimDialect(op.Name)
	var sources [][]int // per result: its sources' graph ids
	switch name {
	case "optimization_barrier":
		if len(op.operands) != len(op.results) {
			return true, false
		}
		for _, s := range op.operands {
			sources = append(sources, []int{id(s)})
		}
	case "while":
		if len(op.regions) != 2 || len(op.operands) != len(op.results) {
			return true, false
		}
		for _, r := range op.regions {
			if len(r.args) != len(op.operands) {
				return true, false
			}
			for i, s := range r.args {
				ids[s] = id(op.operands[i])
			}
		}
		body := op.regions[1]
		if _, ok := e.emit(op.regions[0], ids, tensorOf, depth); !ok {
			return true, false
		}
		rets, ok := e.emit(body, ids, tensorOf, depth)
		if !ok || len(rets) != len(op.results) {
			return true, false
		}
		for i, s := range op.operands {
			sources = append(sources, []int{id(s), rets[i]})
		}
	case "case":
		sources = make([][]int, len(op.results))
		for _, r := range op.regions {
			rets, ok := e.emit(r, ids, tensorOf, depth)
			if !ok || len(rets) != len(op.results) {
				return true, false
			}
			for i, s := range rets {
				sources[i] = append(sources[i], s)
			}
		}
	default:
		return false, false
	}
	for i, res := range op.results {
		n := &sdyNode{name: "data_flow_edge", op: op, operands: sources[i], results: []int{id(res)}}
		if !e.addNode(n, [][]int64{op.resultTypes[i].Shape}) {
			return true, false
		}
	}
	return true, true
}
