package profiling

import (
	"encoding/json"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// HostTrace is what one host recorded, named for the trace's reader.
type HostTrace struct {
	// Process names the host's row group: "proxy-server", "worker slice 0
	// host 1 (10.0.0.7:29005)".
	Process string
	// Start is when the host's trace began, on the host's clock.
	Start   time.Time
	Events  []Event
	Dropped int
	// Err is why the host's trace is missing or incomplete; nil when whole.
	Err error
}

// traceEvent is one entry of the trace-event format's traceEvents list:
// "X" a complete event (ts and dur in microseconds), "M" metadata naming a
// process or thread.
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Phase string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   float64        `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Args  map[string]any `json:"args,omitempty"`
}

// hostSummary describes one host in the file's otherData.
type hostSummary struct {
	Process string `json:"process"`
	PID     int    `json:"pid"`
	Events  int    `json:"events"`
	Dropped int    `json:"dropped_events,omitempty"`
	Error   string `json:"error,omitempty"`
	Code    string `json:"code,omitempty"`
}

// Encode writes hosts as one trace-event JSON document: host i is process
// i+1, each of its threads a thread of that process, and every timestamp is
// counted from the earliest host's start (the hosts' clocks are taken as
// agreeing). otherData lists the hosts with their event counts and errors.
func Encode(hosts []HostTrace) ([]byte, error) {
	var origin time.Time
	for _, h := range hosts {
		if origin.IsZero() || (!h.Start.IsZero() && h.Start.Before(origin)) {
			origin = h.Start
		}
	}
	events := []traceEvent{}
	summary := make([]hostSummary, len(hosts))
	for i, h := range hosts {
		pid := i + 1
		events = append(events,
			traceEvent{Name: "process_name", Phase: "M", PID: pid, Args: map[string]any{"name": h.Process}},
			traceEvent{Name: "process_sort_index", Phase: "M", PID: pid, Args: map[string]any{"sort_index": pid}})
		summary[i] = hostSummary{Process: h.Process, PID: pid, Events: len(h.Events), Dropped: h.Dropped}
		if h.Err != nil {
			summary[i].Error, summary[i].Code = h.Err.Error(), ifrt.CodeOf(h.Err).String()
		}
		offset := h.Start.Sub(origin)
		if h.Start.IsZero() {
			offset = 0
		}
		threads := map[string]int{}
		for _, e := range h.Events {
			tid, ok := threads[e.Thread]
			if !ok {
				tid = len(threads) + 1
				threads[e.Thread] = tid
				events = append(events, traceEvent{Name: "thread_name", Phase: "M", PID: pid, TID: tid, Args: map[string]any{"name": e.Thread}})
			}
			var args map[string]any
			if len(e.Args) > 0 {
				args = make(map[string]any, len(e.Args))
				for k, v := range e.Args {
					args[k] = v
				}
			}
			events = append(events, traceEvent{
				Name: e.Name, Cat: e.Category, Phase: "X", PID: pid, TID: tid, Args: args,
				TS: micros(offset + e.Start), Dur: micros(e.Duration),
			})
		}
	}
	return json.Marshal(map[string]any{
		"traceEvents":     events,
		"displayTimeUnit": "ms",
		"otherData": map[string]any{
			"producer": "OpenPathways",
			"start":    origin.UTC().Format(time.RFC3339Nano),
			"hosts":    summary,
		},
	})
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
