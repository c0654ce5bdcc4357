package worker

import (
	"bytes"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/internal/xlapb"
)

// TestCanonicalOptions: JAX 0.10.2 wrote these compile options for the same
// jit program in two runs; they differ only in the order of map entries that
// our schema does not know, and must make the same cache key.
func TestCanonicalOptions(t *testing.T) {
	a, err := os.ReadFile("testdata/jax_compile_options_a.pb")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/jax_compile_options_b.pb")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("the two runs' options are the same bytes; the test needs them to differ")
	}
	if !bytes.Equal(canonicalOptions(a), canonicalOptions(b)) {
		t.Error("the canonical forms differ")
	}
	if bytes.Equal(canonicalOptions(a), canonicalOptions(a[:len(a)/2])) {
		t.Error("other options have the same canonical form")
	}
	if got := canonicalOptions([]byte("\xff\xff")); !bytes.Equal(got, []byte("\xff\xff")) {
		t.Errorf("unparseable options became %q", got)
	}
}

func FuzzCanonicalOptions(f *testing.F) {
	if a, err := os.ReadFile("testdata/jax_compile_options_a.pb"); err == nil {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		once := canonicalOptions(data)
		if twice := canonicalOptions(once); !bytes.Equal(once, twice) && proto.Unmarshal(data, &xlapb.CompileOptionsProto{}) == nil {
			t.Fatalf("canonicalOptions is not idempotent on %x", data)
		}
	})
}
