package stablehlo

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
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

// runCountingBytes runs m on args, failing the test on an error, and
// returns the results and how many bytes the process allocated meanwhile.
func runCountingBytes(t testing.TB, m *Module, args ...*Tensor) ([]*Tensor, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := runMain(t, m, args...)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return out, after.TotalAlloc - before.TotalAlloc
}

// f32Rows returns an f32[rows, cols] tensor whose row k holds value(k).
func f32Rows(rows, cols int, value func(k int) float32) *Tensor {
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{int64(rows), int64(cols)}}, Data: make([]byte, rows*cols*4)}
	for e := range rows * cols {
		binary.LittleEndian.PutUint32(x.Data[4*e:], math.Float32bits(value(e/cols)))
	}
	return x
}

// f32At returns element e of an f32 tensor.
func f32At(x *Tensor, e int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*e:]))
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
