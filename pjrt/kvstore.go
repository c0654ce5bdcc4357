package pjrt

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// KeyValueStore is the key-value store a multi-process client uses to reach
// its peers: the CUDA plugin exchanges device topology and NCCL unique ids
// through it when "num_nodes" is above 1. Pass one to NewClient with
// WithKeyValueStore; the plugin calls it (PJRT's kv_get, kv_try_get and
// kv_put callbacks) from its own threads, during and after PJRT_Client_Create,
// until the client is closed.
//
// Implementations must be safe for concurrent use. The processes of one
// client share one key space; keeping clients of different plugins or jobs
// apart (a key prefix per client) is the store's business, as PJRT says.
//
// Errors reach the plugin with the code ifrt.CodeOf gives them (return an
// *ifrt.Error or a *Error, or wrap one of ifrt's Err<Code> sentinels), so
// TryGet's missing key must be NotFound and Get's timeout DeadlineExceeded. The context of every call ends
// when the client is closed.
type KeyValueStore interface {
	// Get returns key's value, waiting up to timeout for another process to
	// put it.
	Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error)
	// TryGet returns key's value, or NotFound at once if it is not there.
	TryGet(ctx context.Context, key string) ([]byte, error)
	// Put sets key to value.
	Put(ctx context.Context, key string, value []byte) error
}

// ClientOption is an option of NewClient besides the plugin's named create
// options.
type ClientOption func(*clientOptions)

type clientOptions struct {
	kv KeyValueStore
}

// WithKeyValueStore gives the client kv as its cross-process key-value store
// (the kv_* callbacks of PJRT_Client_Create). A nil kv means none.
func WithKeyValueStore(kv KeyValueStore) ClientOption {
	return func(o *clientOptions) { o.kv = kv }
}

// kvBridge is what the C callbacks reach through its id (kvstore_cgo.go): the store, and
// a context that ends when the client closes, so a Get blocked in a plugin
// thread returns before PJRT_Client_Destroy runs. calls counts callbacks for
// tests.
type kvBridge struct {
	store  KeyValueStore
	ctx    context.Context
	cancel context.CancelFunc
	// release retires the callbacks' id; set by the C layer.
	release func()

	mu    sync.Mutex
	calls map[string]int // "get", "try_get", "put"
}

func newKVBridge(store KeyValueStore) *kvBridge {
	ctx, cancel := context.WithCancel(context.Background())
	return &kvBridge{store: store, ctx: ctx, cancel: cancel, calls: map[string]int{}}
}

// close ends the store's calls in flight and, once the plugin is done with
// the callbacks (the client is destroyed), retires their id.
func (b *kvBridge) close() {
	b.cancel()
	if b.release != nil {
		b.release()
		b.release = nil
	}
}

func (b *kvBridge) count(op string) {
	b.mu.Lock()
	b.calls[op]++
	b.mu.Unlock()
}

// get serves kv_get (try false) and kv_try_get (try true).
func (b *kvBridge) get(key string, timeout time.Duration, try bool) ([]byte, error) {
	if try {
		b.count("try_get")
		return b.store.TryGet(b.ctx, key)
	}
	b.count("get")
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	v, err := b.store.Get(ctx, key, timeout)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && b.ctx.Err() == nil {
		return nil, errorf(ifrt.DeadlineExceeded, "key %q: not put within %v", key, timeout)
	}
	return v, err
}

func (b *kvBridge) put(key string, value []byte) error {
	b.count("put")
	return b.store.Put(b.ctx, key, value)
}

// callbackCode is the PJRT code an error from the store goes back with. A
// store error without a code is UNKNOWN; one after the client closed is
// CANCELLED.
func (b *kvBridge) callbackCode(err error) ifrt.Code {
	c := ifrt.CodeOf(err)
	if c == ifrt.OK {
		c = ifrt.Unknown
	}
	if b.ctx.Err() != nil && (c == ifrt.Unknown || c == ifrt.DeadlineExceeded) {
		c = ifrt.Canceled
	}
	return c
}

// KeyValueCalls reports how many times the plugin called c's key-value store,
// by callback: "get", "try_get" and "put". It is nil for a client without
// one.
func (c *Client) KeyValueCalls() map[string]int {
	b := c.st.kv
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int, len(b.calls))
	for k, v := range b.calls {
		out[k] = v
	}
	return out
}
