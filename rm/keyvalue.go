package rm

import (
	"context"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm/rmpb"
)

// The coordination key-value store: small values, scoped by a launch group
// (the processes of one multi-process runtime), with a blocking get. Backends
// exchange through it what their runtimes need before they can talk to each
// other (PJRT's kv_put / kv_get / kv_try_get: topology, NCCL unique ids).
// It keeps nothing across restarts of the RM.

// Limits of the store, so that no client can exhaust the RM.
const (
	maxKVGroups     = 1 << 12
	maxKVKeys       = 1 << 12 // per group
	maxKVKeyBytes   = 1 << 10
	maxKVValueBytes = 1 << 20
	maxKVGroupBytes = 64 << 20
)

type kvGroup struct {
	values  map[string][]byte
	bytes   int
	waiting map[string]chan struct{} // closed when the key is put
}

type keyValueService struct {
	rmpb.UnimplementedKeyValueServer
	s *Server

	mu     sync.Mutex
	groups map[string]*kvGroup
}

func newKeyValueService(s *Server) *keyValueService {
	return &keyValueService{s: s, groups: map[string]*kvGroup{}}
}

func checkKey(group, key string) error {
	if group == "" || key == "" || len(group) > maxKVKeyBytes || len(key) > maxKVKeyBytes {
		return ifrt.Errorf(ifrt.InvalidArgument, "rm: key-value group and key must be 1 to %d bytes", maxKVKeyBytes)
	}
	return nil
}

// groupLocked returns group, made when create is set and it is new.
func (kv *keyValueService) groupLocked(name string, create bool) (*kvGroup, error) {
	g := kv.groups[name]
	if g == nil && create {
		if len(kv.groups) >= maxKVGroups {
			return nil, ifrt.Errorf(ifrt.ResourceExhausted, "rm: %d key-value groups; delete some", maxKVGroups)
		}
		g = &kvGroup{values: map[string][]byte{}, waiting: map[string]chan struct{}{}}
		kv.groups[name] = g
	}
	return g, nil
}

func (kv *keyValueService) Put(ctx context.Context, req *rmpb.KeyValuePutRequest) (*rmpb.KeyValuePutResponse, error) {
	if err := kv.put(req.GetGroup(), req.GetKey(), req.GetValue(), req.GetIfAbsent()); err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.KeyValuePutResponse{}, nil
}

func (kv *keyValueService) put(group, key string, value []byte, ifAbsent bool) error {
	if err := checkKey(group, key); err != nil {
		return err
	}
	if len(value) > maxKVValueBytes {
		return ifrt.Errorf(ifrt.ResourceExhausted, "rm: a key-value value of %d bytes; at most %d", len(value), maxKVValueBytes)
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	g, err := kv.groupLocked(group, true)
	if err != nil {
		return err
	}
	old, exists := g.values[key]
	if exists && ifAbsent {
		return ifrt.Errorf(ifrt.AlreadyExists, "rm: key %q of group %q is set", key, group)
	}
	if !exists && len(g.values) >= maxKVKeys {
		return ifrt.Errorf(ifrt.ResourceExhausted, "rm: group %q has %d keys", group, maxKVKeys)
	}
	if n := g.bytes - len(old) + len(value); n > maxKVGroupBytes {
		return ifrt.Errorf(ifrt.ResourceExhausted, "rm: group %q would hold %d bytes; at most %d", group, n, maxKVGroupBytes)
	}
	g.bytes += len(value) - len(old)
	g.values[key] = append([]byte(nil), value...)
	if w, ok := g.waiting[key]; ok {
		close(w)
		delete(g.waiting, key)
	}
	return nil
}

func (kv *keyValueService) Get(ctx context.Context, req *rmpb.KeyValueGetRequest) (*rmpb.KeyValueGetResponse, error) {
	v, err := kv.get(ctx, req.GetGroup(), req.GetKey(), req.GetWait())
	if err != nil {
		return nil, rpc.ToStatus(err)
	}
	return &rmpb.KeyValueGetResponse{Value: v}, nil
}

func (kv *keyValueService) get(ctx context.Context, group, key string, wait bool) ([]byte, error) {
	if err := checkKey(group, key); err != nil {
		return nil, err
	}
	for {
		kv.mu.Lock()
		g, err := kv.groupLocked(group, wait)
		if err != nil {
			kv.mu.Unlock()
			return nil, err
		}
		if g != nil {
			if v, ok := g.values[key]; ok {
				kv.mu.Unlock()
				return v, nil
			}
		}
		if !wait {
			kv.mu.Unlock()
			return nil, ifrt.Errorf(ifrt.NotFound, "rm: key %q of group %q is not set", key, group)
		}
		w := g.waiting[key]
		if w == nil {
			w = make(chan struct{})
			g.waiting[key] = w
		}
		kv.mu.Unlock()
		select {
		case <-w:
		case <-kv.s.quit:
			return nil, errShuttingDown()
		case <-ctx.Done():
			return nil, ifrt.Errorf(ifrt.DeadlineExceeded, "rm: key %q of group %q was not set in time: %v", key, group, ctx.Err())
		}
	}
}

func (kv *keyValueService) DeleteGroup(ctx context.Context, req *rmpb.KeyValueDeleteGroupRequest) (*rmpb.KeyValueDeleteGroupResponse, error) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if g := kv.groups[req.GetGroup()]; g != nil {
		// Waiters see the group gone and wait on a new one.
		for _, w := range g.waiting {
			close(w)
		}
		delete(kv.groups, req.GetGroup())
	}
	return &rmpb.KeyValueDeleteGroupResponse{}, nil
}

// KeyValueStore is one launch group of the resource manager's coordination
// store: the processes of one multi-process runtime share it. It satisfies
// pjrt.KeyValueStore (PJRT's kv_get, kv_try_get and kv_put callbacks). Its
// methods are safe for concurrent use; errors carry ifrt codes (NOT_FOUND,
// DEADLINE_EXCEEDED, ...).
type KeyValueStore struct {
	c     *Client
	group string
}

// KeyValue returns the store of launch group group.
func (c *Client) KeyValue(group string) *KeyValueStore { return &KeyValueStore{c: c, group: group} }

// Get returns key's value, waiting up to timeout (none when 0: until ctx
// ends) for another process to put it; DEADLINE_EXCEEDED when it is not put
// in time.
func (s *KeyValueStore) Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	resp, err := rmpb.NewKeyValueClient(s.c.conn).Get(ctx, &rmpb.KeyValueGetRequest{Group: s.group, Key: key, Wait: true})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ifrt.Errorf(ifrt.DeadlineExceeded, "rm: key %q of group %q was not set in time: %v", key, s.group, ctx.Err())
		}
		return nil, rpc.CallError(ctx, "rm: ", err)
	}
	return resp.GetValue(), nil
}

// TryGet returns key's value, or NOT_FOUND at once.
func (s *KeyValueStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	resp, err := rmpb.NewKeyValueClient(s.c.conn).Get(ctx, &rmpb.KeyValueGetRequest{Group: s.group, Key: key})
	if err != nil {
		return nil, rpc.CallError(ctx, "rm: ", err)
	}
	return resp.GetValue(), nil
}

// Put sets key to value.
func (s *KeyValueStore) Put(ctx context.Context, key string, value []byte) error {
	_, err := rmpb.NewKeyValueClient(s.c.conn).Put(ctx, &rmpb.KeyValuePutRequest{Group: s.group, Key: key, Value: value})
	return rpc.CallError(ctx, "rm: ", err)
}

// Delete drops the group and its keys.
func (s *KeyValueStore) Delete(ctx context.Context) error {
	_, err := rmpb.NewKeyValueClient(s.c.conn).DeleteGroup(ctx, &rmpb.KeyValueDeleteGroupRequest{Group: s.group})
	return rpc.CallError(ctx, "rm: ", err)
}
