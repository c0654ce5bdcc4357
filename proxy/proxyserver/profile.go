package proxyserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// profile records what the servers of the process do while a trace is being
// taken (see profile_plugin.go): every IFRT Proxy request, and every compile
// and execution on a backend, as Chrome trace events ("X", complete events
// with a start and a duration in microseconds), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Process ids stand for servers
// (the proxy server, each worker), thread ids for sessions.
type profile struct {
	start    time.Time
	deadline time.Time // zero: until stopped

	mu       sync.Mutex
	events   []traceEvent
	servers  map[*Server]int
	sessions map[uint64]int
}

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

// maxProfileEvents bounds a trace's memory: a long trace keeps its first
// events and says how many it dropped.
const maxProfileEvents = 1 << 20

// activeProfile is the trace being taken in this process, if any: one at a
// time, as Pathways allows.
var activeProfile atomic.Pointer[profile]

func newProfile(maxDuration time.Duration) *profile {
	p := &profile{start: time.Now(), events: []traceEvent{}, servers: map[*Server]int{}, sessions: map[uint64]int{}}
	if maxDuration > 0 {
		p.deadline = p.start.Add(maxDuration)
	}
	return p
}

// record adds an event of s's session that began at start and ended now, if
// a trace is being taken.
func record(s *session, name, cat string, start time.Time, args map[string]any) {
	p := activeProfile.Load()
	if p == nil || start.Before(p.start) || (!p.deadline.IsZero() && start.After(p.deadline)) {
		return
	}
	end := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.events) >= maxProfileEvents {
		return
	}
	pid, ok := p.servers[s.srv]
	if !ok {
		pid = len(p.servers) + 1
		p.servers[s.srv] = pid
		p.events = append(p.events, traceEvent{Name: "process_name", Phase: "M", PID: pid,
			Args: map[string]any{"name": fmt.Sprintf("%s %d", component(s.srv.cfg), pid)}})
	}
	tid, ok := p.sessions[s.id]
	if !ok {
		tid = len(p.sessions) + 1
		p.sessions[s.id] = tid
		p.events = append(p.events, traceEvent{Name: "thread_name", Phase: "M", PID: pid, TID: tid,
			Args: map[string]any{"name": "session " + strconv.FormatUint(s.id, 10)}})
	}
	p.events = append(p.events, traceEvent{
		Name: name, Cat: cat, Phase: "X", PID: pid, TID: tid, Args: args,
		TS: float64(start.Sub(p.start).Nanoseconds()) / 1e3, Dur: float64(end.Sub(start).Nanoseconds()) / 1e3,
	})
}

// encode returns the trace as Chrome trace-event JSON.
func (p *profile) encode() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	host, _ := os.Hostname()
	return json.Marshal(map[string]any{
		"traceEvents":     p.events,
		"displayTimeUnit": "ms",
		"otherData": map[string]any{
			"producer": "OpenPathways", "host": host, "start": p.start.UTC().Format(time.RFC3339Nano),
			"dropped_events": len(p.events) >= maxProfileEvents,
		},
	})
}
