package pjrtifrt

import (
	"fmt"
	"testing"

	"github.com/openpathways/pathways/ifrt"
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
