package pjrtifrt

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// FuzzParseProcess: "process=<index>/<count>" parses to numbers that print
// back to an equivalent option, or fails with InvalidArgument; never panics.
func FuzzParseProcess(f *testing.F) {
	for _, s := range []string{"0/2", "1/2", "3/2", "-1/2", "1", "a/b", "/", "", "0/0", "1/2/3", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := parseProcess(s)
		if err != nil {
			if ifrt.CodeOf(err) != ifrt.InvalidArgument {
				t.Fatalf("parseProcess(%q) = %v, want InvalidArgument", s, err)
			}
			return
		}
		i2, n2, err := parseProcess(fmt.Sprintf("%d/%d", i, n))
		if err != nil || i2 != i || n2 != n {
			t.Fatalf("parseProcess(%q) = %d/%d, which does not parse back (%d/%d, %v)", s, i, n, i2, n2, err)
		}
		// Validation decides the range, never a panic.
		_ = Process{Index: i, Count: n}.validate()
	})
}

// notFoundStore misses every key with an ifrt-coded error.
type notFoundStore struct{ pjrt.MemoryKeyValueStore }

func (s *notFoundStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	return nil, ifrt.Errorf(ifrt.NotFound, "no key %s", key)
}

// TestCodedStore: the plugin sees a store's ifrt codes as PJRT codes.
func TestCodedStore(t *testing.T) {
	s := codedStore{&notFoundStore{}}
	_, err := s.TryGet(context.Background(), "k")
	if pjrt.CodeOf(err) != pjrt.NotFound || !strings.Contains(err.Error(), "no key k") {
		t.Errorf("TryGet = %v, want NOT_FOUND with the store's message", err)
	}
	if _, err := s.Get(context.Background(), "k", time.Millisecond); pjrt.CodeOf(err) != pjrt.DeadlineExceeded {
		t.Errorf("Get = %v, want the MemoryKeyValueStore's DEADLINE_EXCEEDED unchanged", err)
	}
}
