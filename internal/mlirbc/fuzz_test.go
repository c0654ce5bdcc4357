package mlirbc

import (
	"errors"
	"os"
	"testing"
)

// FuzzRead feeds mutated bytecode to Read: it must never panic, report an
// internal failure or return an error other than *Error, and what it
// returns must be walkable and printable.
func FuzzRead(f *testing.F) {
	for _, path := range corpusFiles(f) {
		if data, err := os.ReadFile(path); err == nil && len(data) < 1<<14 {
			f.Add(data)
		}
	}
	f.Add(minimalFile().bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Code() != InvalidArgument && e.Code() != Unimplemented) {
				t.Fatalf("Read error %v is not an InvalidArgument or Unimplemented *Error", err)
			}
			if e.Offset < 0 || e.Offset > len(data) {
				t.Fatalf("error offset %d outside the %d-byte input", e.Offset, len(data))
			}
			return
		}
		for _, op := range m.Ops {
			walk(op, func(op *Operation) {
				_ = op.Loc.String()
				for _, a := range append(op.Props, op.Attrs...) {
					_ = a.Value.String()
				}
				for _, v := range append(op.Results, op.Operands...) {
					_ = v.Type.String()
				}
			})
		}
	})
}
