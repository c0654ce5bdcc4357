package mlirbc

// arena hands out the many small objects of a module from shared chunks,
// which keeps Read from allocating several times per op. Chunks grow from
// small to arenaChunk, so small files stay small. Slices it returns have
// their length as capacity, so appends never spill into a neighbour.
type arena struct {
	ops   []Operation
	vals  []Value
	ptrs  []*Value
	named []NamedAttr
	grow  [4]int // the last chunk size of each kind
}

const arenaChunk = 256

// chunk returns the size of the next chunk of kind k that holds n.
func (a *arena) chunk(k, n int) int {
	a.grow[k] = min(arenaChunk, max(16, 2*a.grow[k]))
	return max(a.grow[k], n)
}

func (a *arena) newOp() *Operation {
	if len(a.ops) == 0 {
		a.ops = make([]Operation, a.chunk(0, 1))
	}
	op := &a.ops[0]
	a.ops = a.ops[1:]
	return op
}

func (a *arena) values(n int) []Value {
	if len(a.vals) < n {
		a.vals = make([]Value, a.chunk(1, n))
	}
	v := a.vals[:n:n]
	a.vals = a.vals[n:]
	return v
}

func (a *arena) valuePtrs(n int) []*Value {
	if len(a.ptrs) < n {
		a.ptrs = make([]*Value, a.chunk(2, n))
	}
	v := a.ptrs[:n:n]
	a.ptrs = a.ptrs[n:]
	return v
}

// namedAttrs returns an empty slice with room for n entries.
func (a *arena) namedAttrs(n int) []NamedAttr {
	if len(a.named) < n {
		a.named = make([]NamedAttr, a.chunk(3, n))
	}
	v := a.named[:0:n]
	a.named = a.named[n:]
	return v
}
