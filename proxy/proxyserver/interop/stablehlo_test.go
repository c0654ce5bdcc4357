package interop_test

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// compileRecorder is an interop backend that remembers the producer of every
// MLIR bytecode module compiled through it: for a StableHLO portable artifact,
// the StableHLO version it was written for, e.g. "StableHLO_v1.13.0".
type compileRecorder struct {
	ifrt.Client
	mu        sync.Mutex
	producers []string
}

func (r *compileRecorder) Compile(ctx context.Context, p ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if m, ok := p.(*ifrt.MLIRProgram); ok && m.IsBytecode() {
		producer := bytecodeProducer(m.Module)
		r.mu.Lock()
		if !slices.Contains(r.producers, producer) {
			r.producers = append(r.producers, producer)
		}
		r.mu.Unlock()
	}
	return r.Client.Compile(ctx, p, opts)
}

// Producers returns the distinct producers compiled so far.
func (r *compileRecorder) Producers() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.producers)
}

// bytecodeProducer reads the producer string of MLIR bytecode: after the magic
// "ML\xEFR", the bytecode version (an MLIR varint, whose first byte's trailing
// zeros count the bytes that follow), then the NUL-terminated producer.
func bytecodeProducer(b []byte) string {
	b = b[4:]
	if len(b) == 0 {
		return "truncated bytecode"
	}
	n := bits.TrailingZeros8(b[0]) + 1 // 9 when b[0] is 0
	if len(b) < n {
		return "truncated bytecode"
	}
	b = b[n:]
	end := bytes.IndexByte(b, 0)
	if end < 0 {
		return "truncated bytecode"
	}
	return string(b[:end])
}

var stablehloProducer = regexp.MustCompile(`^StableHLO_v(\d+)\.(\d+)\.(\d+)$`)

// checkStableHLOVersions checks that every portable artifact JAX sent is
// within the backend's supported StableHLO range, where the backend reports one
// (a PJRT plugin does), and logs both.
func checkStableHLOVersions(t *testing.T, s *interopServer) {
	t.Helper()
	producers := s.recorder.Producers()
	if len(producers) == 0 {
		t.Error("JAX compiled no bytecode through the server")
	}
	cur, ok1 := s.backend.Attributes().Int64s("stablehlo_current_version")
	min, ok2 := s.backend.Attributes().Int64s("stablehlo_minimum_version")
	t.Logf("JAX's portable artifacts: %v; the backend supports StableHLO %v to %v", producers, min, cur)
	if !ok1 || !ok2 {
		return
	}
	for _, p := range producers {
		m := stablehloProducer.FindStringSubmatch(p)
		if m == nil {
			t.Errorf("bytecode producer %q is not a StableHLO portable artifact", p)
			continue
		}
		v := make([]int64, 3)
		for i := range v {
			v[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		if slices.Compare(v, min) < 0 || slices.Compare(v, cur) > 0 {
			t.Errorf("JAX sent a %s artifact, outside the backend's StableHLO range %s to %s", p, fmt.Sprint(min), fmt.Sprint(cur))
		}
	}
}
