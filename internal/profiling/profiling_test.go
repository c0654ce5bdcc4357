package profiling

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
)

func TestRecorder(t *testing.T) {
	var rec Recorder
	rec.Record("session 1", "before", "request", time.Now(), nil) // no trace: dropped
	tr, err := rec.Start(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Start(0); ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("a second Start: %v, want FAILED_PRECONDITION", err)
	}
	rec.Record("session 1", "old", "request", tr.Began().Add(-time.Second), nil) // began before the trace
	rec.Record("session 1", "during", "request", time.Now(), map[string]string{"code": "OK"})
	events, dropped := tr.Stop()
	rec.Record("session 1", "after", "request", time.Now(), nil)
	if len(events) != 1 || events[0].Name != "during" || events[0].Args["code"] != "OK" || dropped != 0 {
		t.Errorf("events %+v, dropped %d; want the one recorded during the trace", events, dropped)
	}
	if rec.Tracing() {
		t.Error("still tracing after Stop")
	}
	if _, err := rec.Start(time.Nanosecond); err != nil {
		t.Errorf("Start after Stop: %v", err)
	}
	var none *Recorder
	none.Record("x", "y", "z", time.Now(), nil) // a nil recorder records nothing
}

// TestEncode: one process per host in order, threads named, and times on
// the earliest host's time line.
func TestEncode(t *testing.T) {
	origin := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	data, err := Encode([]HostTrace{
		{Process: "proxy-server", Start: origin, Events: []Event{{Name: "a", Thread: "session 1", Start: time.Millisecond, Duration: 2 * time.Microsecond}}},
		{Process: "worker slice 0 host 0", Start: origin.Add(time.Second), Dropped: 3, Events: []Event{
			{Name: "b", Category: "gang", Thread: "gang", Start: 5 * time.Microsecond, Args: map[string]string{"code": "OK"}},
			{Name: "c", Thread: "session 9", Start: 0},
		}},
		{Process: "worker slice 1 host 0", Err: ifrt.Errorf(ifrt.Unavailable, "gone")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []traceEvent
		OtherData   struct {
			Start string
			Hosts []hostSummary
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var complete []traceEvent
	names := map[[2]int]string{}
	for _, e := range f.TraceEvents {
		switch {
		case e.Phase == "X":
			complete = append(complete, e)
		case e.Name == "process_name":
			names[[2]int{e.PID, 0}] = e.Args["name"].(string)
		case e.Name == "thread_name":
			names[[2]int{e.PID, e.TID}] = e.Args["name"].(string)
		}
	}
	want := []traceEvent{
		{Name: "a", Phase: "X", TS: 1000, Dur: 2, PID: 1, TID: 1},
		{Name: "b", Cat: "gang", Phase: "X", TS: 1e6 + 5, PID: 2, TID: 1, Args: map[string]any{"code": "OK"}},
		{Name: "c", Phase: "X", TS: 1e6, PID: 2, TID: 2},
	}
	if diff := cmp.Diff(want, complete); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	wantNames := map[[2]int]string{
		{1, 0}: "proxy-server", {1, 1}: "session 1",
		{2, 0}: "worker slice 0 host 0", {2, 1}: "gang", {2, 2}: "session 9",
		{3, 0}: "worker slice 1 host 0",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("process and thread names (-want +got):\n%s", diff)
	}
	wantHosts := []hostSummary{
		{Process: "proxy-server", PID: 1, Events: 1},
		{Process: "worker slice 0 host 0", PID: 2, Events: 2, Dropped: 3},
		{Process: "worker slice 1 host 0", PID: 3, Error: "gone", Code: "UNAVAILABLE"},
	}
	if diff := cmp.Diff(wantHosts, f.OtherData.Hosts); diff != "" || f.OtherData.Start != "2026-01-02T03:04:05Z" {
		t.Errorf("otherData start %s, hosts (-want +got):\n%s", f.OtherData.Start, diff)
	}
}
