package cluster

import (
	"math"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/profiling"
	"github.com/openpathways/pathways/worker/workerpb"
)

// Bounds on what a worker's trace may hold: more is a malformed trace.
const (
	maxTraceString = 1 << 10 // bytes of a name, category, thread, arg key or value
	maxTraceArgs   = 32      // args of one event
)

// decodeTraceChunk checks one chunk of a worker's trace, of which have
// events came before, and returns its events. A malformed chunk (an empty
// name, negative times, oversized strings, more than profiling.MaxEvents
// events in all) is INTERNAL: the worker broke the protocol.
func decodeTraceChunk(chunk *workerpb.TraceChunk, have int) ([]profiling.Event, error) {
	if have+len(chunk.GetEvents()) > profiling.MaxEvents || chunk.GetDropped() < 0 {
		return nil, ifrt.Errorf(ifrt.Internal, "the worker sent more than %d trace events, or a negative count of dropped ones", profiling.MaxEvents)
	}
	events := make([]profiling.Event, len(chunk.GetEvents()))
	for i, e := range chunk.GetEvents() {
		start, dur := e.GetStartNs(), e.GetDurationNs()
		if e.GetName() == "" || start < 0 || dur < 0 || start > math.MaxInt64-dur || len(e.GetArgs()) > maxTraceArgs ||
			len(e.GetName()) > maxTraceString || len(e.GetCategory()) > maxTraceString || len(e.GetThread()) > maxTraceString {
			return nil, ifrt.Errorf(ifrt.Internal, "the worker sent a malformed trace event %d: name %.40q, start %d ns, duration %d ns, %d args", have+i, e.GetName(), start, dur, len(e.GetArgs()))
		}
		for k, v := range e.GetArgs() {
			if len(k) > maxTraceString || len(v) > maxTraceString {
				return nil, ifrt.Errorf(ifrt.Internal, "the worker sent trace event %d with an argument over %d bytes", have+i, maxTraceString)
			}
		}
		events[i] = profiling.Event{
			Name: e.GetName(), Category: e.GetCategory(), Thread: e.GetThread(),
			Start: time.Duration(start), Duration: time.Duration(dur), Args: e.GetArgs(),
		}
	}
	return events, nil
}
