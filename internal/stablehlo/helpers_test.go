package stablehlo

import (
	"context"
	"errors"
	"testing"
	"time"
)

const defaultTestTimeout = 30 * time.Second

// mustParse parses src or fails the test.
func mustParse(t testing.TB, src string) *Module {
	t.Helper()
	m, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return m
}

// literal builds a tensor from an MLIR dense literal, e.g.
// literal(t, "tensor<2xf32>", "[1.0, 2.0]").
func literal(t testing.TB, typ, lit string) *Tensor {
	t.Helper()
	m := mustParse(t, "func.func @main() -> "+typ+" {\n  %0 = stablehlo.constant dense<"+lit+"> : "+typ+"\n  return %0 : "+typ+"\n}")
	out, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("literal %s %s: %v", typ, lit, err)
	}
	return out[0]
}

func runMain(t testing.TB, m *Module, args ...*Tensor) ([]*Tensor, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	defer cancel()
	return m.Run(ctx, args)
}

func errorCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return -1
}

func contextWithShortTimeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 50*time.Millisecond)
}
