package profiling

import (
	"context"
	"time"
)

// Selection says which hosts of a cluster take a trace, as a profileRequest
// does: every host by default; with DeviceIDs, the hosts that own those
// devices; with MaxNumHosts > 0, at most that many of them, the first in
// (slice, host) order.
type Selection struct {
	MaxNumHosts int
	DeviceIDs   []int
	// MaxDuration, when positive, stops recording after that long.
	MaxDuration time.Duration
}

// Hosts is a backend whose hosts take traces of their own: the cluster
// client, whose workers serve the Profiler service.
type Hosts interface {
	// StartHostTraces starts a trace on each selected host. It fails with
	// INVALID_ARGUMENT for a device id the backend lacks, and with the code
	// of the first host that could not start (no host is left tracing then).
	StartHostTraces(ctx context.Context, sel Selection) (HostTraces, error)
}

// HostTraces are traces running on several hosts.
type HostTraces interface {
	// Stop stops every host's trace and returns what each recorded, a host
	// that failed with its error (HostTrace.Err) and whatever it sent
	// before; the error joins the hosts' errors.
	Stop(ctx context.Context) ([]HostTrace, error)
	// Abandon ends the traces without collecting them.
	Abandon()
}
