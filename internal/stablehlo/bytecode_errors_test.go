package stablehlo

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/golden"
)

// readFuzzInput reads the []byte of a file in Go's fuzz corpus format.
func readFuzzInput(t *testing.T, path string) []byte {
	t.Helper()
	lines := strings.Split(string(golden.ReadFile(t, path)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s is not a fuzz input", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// TestParseBytecodeErrors checks the errors of bytecode that is malformed or
// that the interpreter cannot run: malformed input is InvalidArgument at a
// byte offset, valid programs with what the interpreter lacks are
// Unimplemented naming it, from Parse or from Unsupported as for text.
func TestParseBytecodeErrors(t *testing.T) {
	add := golden.ReadFile(t, goldenDir+"/add_f32.mlirbc")
	renamed := bytes.Replace(add, []byte("add_v1\x00"), []byte("zzz_v1\x00"), 1)
	newer := append([]byte(nil), add...)
	newer[4] = 7<<1 | 1 // format version 7
	for _, c := range []struct {
		name        string
		src         []byte
		parse       int // code of Parse's error, 0 for none
		unsupported string
		substr      string
	}{
		{"truncated", add[:100], InvalidArgument, "", "offset "},
		{"magic only", add[:4], InvalidArgument, "", "offset 4: "},
		{"newer format version", newer, Unimplemented, "", "bytecode version 7 is newer"},
		{"dynamic shape", golden.ReadFile(t, "testdata/bytecode/dynamic_batch.mlirbc"), Unimplemented, "", "dynamic dimensions are not supported"},
		{"block argument type differs from the function type", readFuzzInput(t, "testdata/fuzz/FuzzParseBytecode/8aa57979a08ec0fd"),
			InvalidArgument, "", "argument 0 has type tensor<12x12xui8>, the function type says tensor<3x4xui8>"},
		{"unknown VHLO op", renamed, 0, "op stablehlo.zzz is not supported", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse(c.src)
			if c.parse != 0 {
				var e *Error
				if !errors.As(err, &e) || e.Code() != c.parse || !strings.Contains(e.Msg, c.substr) {
					t.Fatalf("Parse error = %v, want code %d containing %q", err, c.parse, c.substr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var e *Error
			if err := m.Unsupported(); !errors.As(err, &e) || e.Code() != Unimplemented || !strings.Contains(e.Msg, c.unsupported) ||
				!strings.HasPrefix(e.Msg, "offset ") {
				t.Errorf("Unsupported() = %v, want Unimplemented \"offset N: ...%s...\"", err, c.unsupported)
			}
		})
	}
}
