package proxyserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/profiling"
)

func profileBackend(t testing.TB) ifrt.Client {
	c, err := gocpu.New(gocpu.Config{Devices: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestProfileStartStop: the first execution starts a trace, a second request
// cannot start another meanwhile, and the second execution writes the trace
// file under traceLocation; a third execution is refused.
func TestProfileStartStop(t *testing.T) {
	ctx := context.Background()
	backend := profileBackend(t)
	rec := &profiling.Recorder{}
	dir := t.TempDir()
	body := `{"traceLocation": "file://` + dir + `", "maxNumHosts": 1, "xprofTraceOptions": {"traceSessionName": "s1"}}`
	pe, err := profilePlugin(rec)(ctx, backend, json.RawMessage(body))
	if err != nil {
		t.Fatal(err)
	}
	defer pe.Close()
	out, err := pe.Execute(ctx, nil)
	if err != nil || len(out) != 1 || !out[0].Shape().Equal(ifrt.Shape{1}) {
		t.Fatalf("start: %v outputs, %v; want one (1,) token", len(out), err)
	}
	other, err := profilePlugin(rec)(ctx, backend, json.RawMessage(`{"traceLocation": "`+dir+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Execute(ctx, nil); ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("a second trace while one runs: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := pe.Execute(ctx, nil); err != nil {
		t.Fatalf("stop: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "plugins", "profile", "s1", "pathways.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var trace struct{ TraceEvents []any }
	if err := json.Unmarshal(data, &trace); err != nil || trace.TraceEvents == nil {
		t.Errorf("the trace file is not trace-event JSON: %v: %s", err, data)
	}
	if _, err := pe.Execute(ctx, nil); ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("a third execution: %v, want FAILED_PRECONDITION", err)
	}
	// Once stopped, another trace can start.
	if _, err := other.Execute(ctx, nil); err != nil {
		t.Errorf("a trace after the first stopped: %v", err)
	}
	other.Close()
	if rec.Tracing() {
		t.Errorf("releasing a started trace's executable left it running")
	}
}

func TestProfileRequestErrors(t *testing.T) {
	backend := profileBackend(t)
	for name, body := range map[string]string{
		"not JSON":             `[`,
		"no location":          `{"maxNumHosts": 1}`,
		"negative duration":    `{"traceLocation": "/tmp/x", "maxDurationSecs": -1}`,
		"session name a path":  `{"traceLocation": "/tmp/x", "xprofTraceOptions": {"traceSessionName": "../../etc"}}`,
		"location of a type":   `{"traceLocation": 7}`,
		"negative host count":  `{"traceLocation": "/tmp/x", "maxNumHosts": -1}`,
		"unknown device":       `{"traceLocation": "/tmp/x", "devices": {"deviceIds": [0, 99]}}`,
		"device ids of a type": `{"traceLocation": "/tmp/x", "devices": {"deviceIds": "0"}}`,
	} {
		if _, err := profilePlugin(&profiling.Recorder{})(context.Background(), backend, json.RawMessage(body)); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
}

// FuzzProfileRequest: any body compiles or fails with a code; never a panic.
func FuzzProfileRequest(f *testing.F) {
	f.Add(`{"traceLocation": "gs://b/p", "maxNumHosts": 1, "xprofTraceOptions": {"traceSessionName": "2026_01_01"}}`)
	f.Add(`{"traceLocation": "", "maxDurationSecs": 1e300}`)
	backend := profileBackend(f)
	handler := profilePlugin(&profiling.Recorder{})
	f.Fuzz(func(t *testing.T, body string) {
		pe, err := handler(context.Background(), backend, json.RawMessage(body))
		if err != nil {
			if ifrt.CodeOf(err) == ifrt.OK || !strings.Contains(err.Error(), "profileRequest") {
				t.Fatalf("error without a code or context: %v", err)
			}
			return
		}
		pe.Close()
	})
}
