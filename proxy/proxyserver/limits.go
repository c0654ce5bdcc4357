package proxyserver

import (
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Defaults of the Limits fields left zero.
const (
	DefaultMaxSessions         = 64
	DefaultMaxInflightUploads  = 1024
	DefaultMaxInflightRequests = 4096
	// fallbackHostMemory stands in for the machine's memory where it cannot be
	// read.
	fallbackHostMemory = 16 << 30
)

// NoLimit, as the value of a Limits field, turns that limit off.
const NoLimit = -1

// Limits bound what clients can make the server hold, so that no request or
// client can exhaust its memory. A request over a byte or session limit fails
// with RESOURCE_EXHAUSTED naming the limit (as its flag spells it) and the
// session goes on; past a count of calls in progress (MaxInflightUploads,
// MaxInflightRequests) the next one waits instead. Zero fields take the
// defaults; NoLimit turns a limit off.
type Limits struct {
	// MaxSessions bounds the sessions open at once (max_sessions). Default
	// DefaultMaxSessions.
	MaxSessions int
	// MaxSessionHostBufferBytes bounds the host-buffer bytes one session holds:
	// buffers being received (counted at their announced size, before any byte
	// arrives), stored, or made by CopyToHostBuffer and not yet deleted
	// (max_session_host_buffer_bytes). Default half of HostMemory.
	MaxSessionHostBufferBytes int64
	// MaxHostBufferBytes bounds the host-buffer bytes of all sessions together,
	// including the arrays that MakeArraysFromHostBufferShards assembles from
	// them (max_host_buffer_bytes). Default HostMemory.
	MaxHostBufferBytes int64
	// MaxSessionLiveBytes bounds the bytes (dense size) of the arrays one session
	// holds on the backend (max_session_live_bytes). A request that would make
	// more fails before it allocates; executions' outputs are counted when they
	// exist. Default no limit: the backend's memory bounds it.
	MaxSessionLiveBytes int64
	// MaxInflightUploads bounds one session's HostBufferStore calls taken at
	// once (max_inflight_uploads); a call past it waits, holding no bytes, until
	// one ends. Default DefaultMaxInflightUploads.
	MaxInflightUploads int
	// MaxInflightRequests bounds one session's requests in progress; beyond it
	// the server reads no more of the session's requests until one finishes,
	// so a client that never reads its responses holds a bounded amount of
	// memory. Default DefaultMaxInflightRequests.
	MaxInflightRequests int
}

func (l Limits) validate() error {
	for _, v := range []int64{int64(l.MaxSessions), l.MaxSessionHostBufferBytes, l.MaxHostBufferBytes, l.MaxSessionLiveBytes, int64(l.MaxInflightUploads), int64(l.MaxInflightRequests)} {
		if v < NoLimit {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxyserver: Config.Limits fields must be positive, 0 (default) or NoLimit")
		}
	}
	return nil
}

func (l Limits) withDefaults() Limits {
	mem := HostMemory()
	if l.MaxSessions == 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	if l.MaxSessionHostBufferBytes == 0 {
		l.MaxSessionHostBufferBytes = mem / 2
	}
	if l.MaxHostBufferBytes == 0 {
		l.MaxHostBufferBytes = mem
	}
	if l.MaxSessionLiveBytes == 0 {
		l.MaxSessionLiveBytes = NoLimit
	}
	if l.MaxInflightUploads == 0 {
		l.MaxInflightUploads = DefaultMaxInflightUploads
	}
	if l.MaxInflightRequests == 0 {
		l.MaxInflightRequests = DefaultMaxInflightRequests
	}
	return l
}

// DefaultHostBufferBytes is the default of MaxSessionHostBufferBytes on this
// machine: half its memory (MaxHostBufferBytes defaults to all of it).
func DefaultHostBufferBytes() int64 { return HostMemory() / 2 }

// budget is a count (bytes, calls) bounded by a limit and shared by concurrent
// users, who reserve before they allocate and release when they are done.
type budget struct {
	name  string // the limit's flag name
	what  string // what is counted, for errors: "bytes of host buffers"
	limit int64  // NoLimit: unbounded

	mu   sync.Mutex
	used int64
}

func newBudget(name, what string, limit int64) *budget {
	return &budget{name: name, what: what, limit: limit}
}

// reserve counts n more, or fails with RESOURCE_EXHAUSTED if that would pass
// the limit.
func (b *budget) reserve(n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit != NoLimit && (n > b.limit || b.used > b.limit-n) {
		return ifrt.Errorf(ifrt.ResourceExhausted, "proxyserver: %d more %s would pass the %s limit of %d (%d in use)", n, b.what, b.name, b.limit, b.used)
	}
	b.used += n
	return nil
}

// add counts n more whatever the limit, for what exists already.
func (b *budget) add(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// reservation is n reserved from each of a chain of budgets (a session's and
// the server's); release returns them once.
type reservation struct {
	once    sync.Once
	n       int64
	budgets []*budget
}

// reserveAll reserves n from every budget, or from none.
func reserveAll(n int64, budgets ...*budget) (*reservation, error) {
	for i, b := range budgets {
		if err := b.reserve(n); err != nil {
			for _, done := range budgets[:i] {
				done.release(n)
			}
			return nil, err
		}
	}
	return &reservation{n: n, budgets: budgets}, nil
}

func (r *reservation) release() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		for _, b := range r.budgets {
			b.release(r.n)
		}
	})
}
