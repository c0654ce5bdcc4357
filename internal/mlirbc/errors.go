package mlirbc

import "fmt"

// Error codes use the gRPC/absl numbering, as internal/stablehlo's do.
const (
	// InvalidArgument: the input is not well-formed MLIR bytecode.
	InvalidArgument = 3
	// Unimplemented: well-formed bytecode this reader does not understand,
	// such as a newer format version or an unknown dialect encoding.
	Unimplemented = 12
	// Internal: a bug in the reader (a recovered panic).
	Internal = 13
)

// Error is the error Read returns. Offset is the byte offset in the input
// where the problem was found.
type Error struct {
	Offset int
	Msg    string
	code   int
}

func (e *Error) Error() string { return fmt.Sprintf("mlirbc: %d: %s", e.Offset, e.Msg) }

// Code returns the gRPC status code: InvalidArgument, Unimplemented or Internal.
func (e *Error) Code() int { return e.code }

// failure is the panic value the decoding functions use; Read recovers it.
type failure struct{ err *Error }

func fail(off int, code int, format string, args ...any) {
	panic(failure{&Error{Offset: off, Msg: fmt.Sprintf(format, args...), code: code}})
}
