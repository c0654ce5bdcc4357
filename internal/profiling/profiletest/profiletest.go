// Package profiletest reads the trace files that profiling.Encode writes, for
// tests: the events, the processes' names, and the one file a profileRequest
// wrote under a trace location. Its functions fail the test on error.
package profiletest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openpathways/pathways/storage"
)

// File is the part of a trace file tests read.
type File struct {
	TraceEvents []Event `json:"traceEvents"`
	OtherData   struct {
		Hosts []struct {
			Process string `json:"process"`
			Code    string `json:"code"`
		} `json:"hosts"`
	} `json:"otherData"`
}

// Event is one entry of traceEvents.
type Event struct {
	Name  string         `json:"name"`
	Phase string         `json:"ph"`
	PID   int            `json:"pid"`
	Dur   float64        `json:"dur"`
	Args  map[string]any `json:"args"`
}

// Decode parses a trace file.
func Decode(t testing.TB, data []byte) File {
	t.Helper()
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("the trace is not trace-event JSON: %v", err)
	}
	return f
}

// Processes maps each pid to its process's name.
func (f File) Processes() map[int]string {
	processes := map[int]string{}
	for _, e := range f.TraceEvents {
		if e.Phase == "M" && e.Name == "process_name" {
			processes[e.PID], _ = e.Args["name"].(string)
		}
	}
	return processes
}

// Get reads the one trace file under location's plugins/profile and returns
// its name with it.
func Get(t testing.TB, ctx context.Context, location string) (string, File) {
	t.Helper()
	loc, err := storage.Open(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	names, err := loc.List(ctx, "plugins/profile")
	if err != nil || len(names) != 1 || !strings.HasSuffix(names[0], "/pathways.trace.json") {
		t.Fatalf("trace files under %s/plugins/profile: %v (%v), want one pathways.trace.json", location, names, err)
	}
	data, err := loc.Get(ctx, names[0])
	if err != nil {
		t.Fatal(err)
	}
	return names[0], Decode(t, data)
}
