package proxyserver_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// recordingPersister is gocpu with ifrt.Persister: it records what it is asked
// to store and read, and waits for the context to end for an array named
// "slow". The real one is the cluster client (TestInteropOrbax).
type recordingPersister struct {
	ifrt.Client
	mu    sync.Mutex
	calls []string
}

func (p *recordingPersister) WriteArrays(ctx context.Context, location string, names []string, arrays []ifrt.Array) error {
	return p.record(ctx, fmt.Sprintf("write %s %v %d", location, names, len(arrays)), names)
}

func (p *recordingPersister) ReadArrays(ctx context.Context, location string, names []string, specs []ifrt.ArraySpec) ([]ifrt.Array, error) {
	if err := p.record(ctx, fmt.Sprintf("read %s %v %v%v", location, names, specs[0].DType, specs[0].Shape), names); err != nil {
		return nil, err
	}
	var out []ifrt.Array
	for _, s := range specs {
		n, _ := s.Shape.ByteSize(s.DType)
		a, err := p.MakeArrayFromHostBuffer(ctx, make([]byte, n), s, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (p *recordingPersister) record(ctx context.Context, call string, names []string) error {
	p.mu.Lock()
	p.calls = append(p.calls, call)
	p.mu.Unlock()
	if names[0] == "slow" {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func replicatedB64(t testing.TB) string {
	raw, err := proto.Marshal(&xlapb.OpSharding{Type: xlapb.OpSharding_REPLICATED})
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// persistenceEntry is one array of a persistence program as pathwaysutils
// writes it; shape is the write form ([dims]) or the read form.
func persistenceEntry(t testing.TB, name, shape, timeout string) string {
	return fmt.Sprintf(`{"b64_location": %q, "b64_name": %q, "b64_hlo_sharding_string": %q, "shape": %s, "devices": {"device_ids": [0, 1]}, "timeout": %s}`,
		b64("file:///ckpt/1"), b64(name), replicatedB64(t), shape, timeout)
}

func TestPersistencePrograms(t *testing.T) {
	rec := &recordingPersister{}
	h := newHarness(t, func(c *proxyserver.Config) {
		rec.Client = c.Backend
		c.Backend = rec
	})
	s := h.session(t)
	hour := `{"seconds": 3600, "nanos": 0}`
	readShape := `{"xla_primitive_type_str": "BF16", "dimensions": [2, 3]}`
	for what, program := range map[string]string{
		"bad base64 location": `{"persistenceWriteRequest": {"b64_location": "%%%", "b64_name": "eA==", "shape": [1]}}`,
		"no name":             `{"persistenceWriteRequest": {"b64_location": "eA==", "shape": [1]}}`,
		"negative timeout":    `{"persistenceWriteRequest": ` + persistenceEntry(t, "w", "[2]", `{"seconds": -1}`) + `}`,
		"unknown dtype":       `{"persistenceReadRequest": ` + persistenceEntry(t, "w", `{"xla_primitive_type_str": "F7", "dimensions": [2]}`, hour) + `}`,
		"negative dimension":  `{"persistenceReadRequest": ` + persistenceEntry(t, "w", `{"xla_primitive_type_str": "F32", "dimensions": [-2]}`, hour) + `}`,
		"bad sharding":        strings.Replace(`{"persistenceWriteRequest": `+persistenceEntry(t, "w", "[2]", hour)+`}`, replicatedB64(t), "AAAA", 1),
		"no list":             `{"bulk_persistence_write_request": {"reads": []}}`,
		"empty list":          `{"bulk_persistence_read_request": {"read_requests": []}}`,
	} {
		wantErr(t, what, compilePlugin(t, s, program), ifrt.ErrInvalidArgument, "Bad PluginProgram")
	}

	// A bulk read makes the arrays the request describes.
	bulk := fmt.Sprintf(`{"bulk_persistence_read_request": {"read_requests": [%s, %s]}}`,
		persistenceEntry(t, "a", readShape, hour), persistenceEntry(t, "b", readShape, hour))
	exe := mustOK(t, compilePlugin(t, s, bulk)).GetCompileResponse().GetLoadedExecutableHandle()
	resp := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &proxypb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: exe, ExecuteOptions: &proxypb.ExecuteOptionsProto{FillStatus: true},
	}}})).GetLoadedExecutableExecuteResponse()
	if len(resp.GetOutputs()) != 2 {
		t.Fatalf("the bulk read made %d arrays, want 2", len(resp.GetOutputs()))
	}
	if want := "read file:///ckpt/1 [a b] bf16[2,3]"; len(rec.calls) != 1 || rec.calls[0] != want {
		t.Errorf("calls %q, want [%q]", rec.calls, want)
	}

	// The request's timeout bounds the backend's work.
	slow := `{"persistenceReadRequest": ` + persistenceEntry(t, "slow", readShape, `{"seconds": 0, "nanos": 1000000}`) + `}`
	exe = mustOK(t, compilePlugin(t, s, slow)).GetCompileResponse().GetLoadedExecutableHandle()
	resp2 := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &proxypb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: exe, ExecuteOptions: &proxypb.ExecuteOptionsProto{FillStatus: true},
	}}})
	wantErr(t, "a read past its timeout", resp2, ifrt.ErrDeadlineExceeded, "")
}

func TestPersistenceNeedsAPersister(t *testing.T) {
	s := newHarness(t, nil).session(t)
	wantErr(t, "persistence on gocpu", compilePlugin(t, s, `{"persistenceWriteRequest": `+persistenceEntry(t, "w", "[2]", `{}`)+`}`), ifrt.ErrUnimplemented, "cannot store arrays")
}

func FuzzPersistenceProgram(f *testing.F) {
	rec := &recordingPersister{}
	h := newHarness(f, func(c *proxyserver.Config) {
		rec.Client = c.Backend
		c.Backend = rec
	})
	hour := `{"seconds": 3600}`
	f.Add(`{"persistenceWriteRequest": ` + persistenceEntry(f, "w", "[2]", hour) + `}`)
	f.Add(`{"bulk_persistence_read_request": {"read_requests": [` + persistenceEntry(f, "a", `{"xla_primitive_type_str": "S32", "dimensions": [2, 3]}`, hour) + `]}}`)
	f.Fuzz(func(t *testing.T, program string) {
		s := h.session(t)
		defer s.close()
		resp := compilePlugin(t, s, program)
		if err := status(resp); err != nil && ifrt.CodeOf(err) == ifrt.Unknown {
			t.Fatalf("an uncoded error: %v", err)
		}
	})
}
