package pjrt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
)

// refusingStore is a MemoryKeyValueStore that refuses to put "fake/refused"
// and panics on "fake/panic", for the error paths.
type refusingStore struct{ MemoryKeyValueStore }

func (s *refusingStore) Put(ctx context.Context, key string, value []byte) error {
	if key == "fake/refused" {
		return ifrt.Errorf(ifrt.PermissionDenied, "no writes to %s", key) // an ifrt code reaches the plugin as it is
	}
	return s.MemoryKeyValueStore.Put(ctx, key, value)
}

func (s *refusingStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	if key == "fake/panic" {
		panic("store bug")
	}
	return s.MemoryKeyValueStore.TryGet(ctx, key)
}

// TestKeyValueCallbacks drives the kv_* callbacks the way XLA's plugins call
// them (testdata/fakeplugin.c with FAKE_KV: garbage struct_size, errors made
// through callback_error), during Client_Create and again in Client_Destroy.
func TestKeyValueCallbacks(t *testing.T) {
	p, err := Load(buildFakePlugin(t, 81, "PJRT_Client_AddressableMemories", "FAKE_KV"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.NewClient(ctx, nil); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Fatalf("NewClient without a store = %v, want the fake's INVALID_ARGUMENT (no callbacks passed)", err)
	}
	store := &refusingStore{}
	// What the other process of the client put before.
	if err := store.Put(ctx, "fake/peer", []byte("from the peer")); err != nil {
		t.Fatal(err)
	}
	c, err := p.NewClient(ctx, nil, WithKeyValueStore(store))
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(c.PlatformVersion(), ";"), ";")
	want := []string{
		"put=ok:",
		"try_get=ok:from the plugin",
		`try_get_missing=5:pjrt: NOT_FOUND: key "fake/missing" not found`,
		"get_peer=ok:from the peer",
		`get_timeout=4:pjrt: DEADLINE_EXCEEDED: key "fake/missing": not put within 1ms`,
		"put_refused=7:no writes to fake/refused",
		"try_get_panic=13:key-value store panicked: store bug",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the plugin saw (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"put": 2, "try_get": 3, "get": 2}, c.KeyValueCalls()); diff != "" {
		t.Errorf("KeyValueCalls (-want +got):\n%s", diff)
	}

	// Client_Destroy blocks in a Get without a time limit: Close must end it
	// (CANCELLED) and the callbacks must still work then.
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not return: the Get in Client_Destroy was not cancelled")
	}
	v, err := store.TryGet(ctx, "fake/destroyed")
	if err != nil {
		t.Fatalf("the plugin's put in Client_Destroy did not arrive: %v", err)
	}
	if want := "get_at_destroy=1:context canceled;"; string(v) != want {
		t.Errorf("Client_Destroy saw %q, want %q", v, want)
	}
	if c.KeyValueCalls()["put"] != 3 {
		t.Errorf("KeyValueCalls after Close = %v", c.KeyValueCalls())
	}

	// A plugin that calls the closed client's callbacks gets CANCELLED.
	c2, err := p.NewClient(ctx, nil, WithKeyValueStore(store))
	if err != nil {
		t.Fatalf("second NewClient: %v", err)
	}
	defer c2.Close()
	if stale := strings.Split(c2.PlatformVersion(), ";")[0]; stale != "stale_put=1:pjrt: CANCELLED: key-value store called after its client was closed" {
		t.Errorf("the closed client's put: %q", stale)
	}
	if _, err := store.TryGet(ctx, "fake/stale"); err == nil {
		t.Error("the closed client's put reached the store")
	}
}
