package cluster

import (
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// WithElasticSlices sets how many slices may be lost at once while the client
// keeps working, as Pathways' --num_elastic_slices (--num_elastic_instances)
// does for a proxy server's session.
//
// While at most k slices are down, operations on their devices and data fail
// with DATA_LOSS (what pathwaysutils.elastic looks for) and the rest of the
// cluster keeps working; a slice whose workers come back works again. When more
// than k slices are down at the same time, the session has failed: from then on
// every operation of the client fails with UNAVAILABLE, saying how many slices
// were lost and how many may be, even after the slices return (Pathways ends the
// job; a new client, or a restarted proxy server, starts over). Err and Failed
// report it.
//
// A slice counts as lost when the resource manager reports it down after it was
// up while this client watched; slices that have not come up yet (see
// WithoutWaitingForSlices) do not count, nor do suspended ones (SuspendSlice:
// their workers may leave). k = 0 tolerates no loss. Without this
// option (or with k < 0) any number of slices may be lost.
func WithElasticSlices(k int) Option {
	return optionFunc(func(o *options) { o.elasticSlices = k })
}

// Err returns why the client's session failed, or nil: more slices lost than
// WithElasticSlices allows, or the watch of the resource manager ended for
// good (it refused the client), after which the client could not see workers
// come and go. The failure is sticky: every later operation fails with it.
func (c *Client) Err() error { return c.failure.get() }

// Failed is closed when the client's session fails (see Err).
func (c *Client) Failed() <-chan struct{} { return c.failure.failed }

// elasticPolicy tracks which slices are down and fails the session when more of
// them than the limit are down at once. A nil policy tolerates everything.
type elasticPolicy struct {
	limit int
	log   *slog.Logger

	mu            sync.Mutex
	rmIncarnation string       // of the RM run the last snapshot came from
	wasUp         map[int]bool // slices seen up since the client connected
	down          map[int]bool // slices lost (down after being up)
	fail          *failure     // the client's
	health        SliceHealth  // says which slices are suspended (their workers may leave)
}

func newElasticPolicy(limit int, log *slog.Logger, fail *failure) *elasticPolicy {
	if limit < 0 {
		return nil
	}
	return &elasticPolicy{limit: limit, log: log, wasUp: map[int]bool{}, down: map[int]bool{}, fail: fail}
}

// observe applies one event of the RM's watch. A snapshot (the first event,
// and again whenever the watch reconnects) marks slices up and, when it comes
// from the same run of the RM, down; a restarted RM has not heard from every
// worker yet, so its first snapshots only mark slices up, and later losses come
// as slice-down events.
func (p *elasticPolicy) observe(ev rm.Event) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.health.Observe(ev)
	switch ev.Type {
	case rm.EventSnapshot:
		sameRM := p.rmIncarnation == "" || p.rmIncarnation == ev.Cluster.RMIncarnation
		p.rmIncarnation = ev.Cluster.RMIncarnation
		for _, s := range ev.Cluster.Slices {
			if s.Up {
				p.upLocked(s.Index)
			} else if sameRM {
				p.downLocked(s.Index)
			}
		}
	case rm.EventSliceUp:
		p.upLocked(ev.Slice)
	case rm.EventSliceDown:
		p.downLocked(ev.Slice)
	}
}

// downLocked records that a slice is down, and fails the session when that
// makes too many.
func (p *elasticPolicy) downLocked(slice int) {
	if !p.wasUp[slice] || p.down[slice] || p.health.Suspended(slice) {
		return
	}
	p.down[slice] = true
	lost := p.lostLocked()
	if len(lost) <= p.limit {
		p.log.Warn("slice lost; the session goes on", "slice", slice, "lost_slices", lost, "num_elastic_slices", p.limit)
		return
	}
	if p.fail.set(ifrt.Errorf(ifrt.Unavailable, "cluster: %d slices lost (%v), at most %d may be (--num_elastic_instances); the session has failed",
		len(lost), lost, p.limit)) {
		p.log.Error("too many slices lost; the session has failed", "lost_slices", lost, "num_elastic_slices", p.limit)
	}
}

func (p *elasticPolicy) upLocked(slice int) {
	p.wasUp[slice] = true
	if p.down[slice] {
		delete(p.down, slice)
		p.log.Info("lost slice is back", "slice", slice, "lost_slices", p.lostLocked())
	}
}

func (p *elasticPolicy) lostLocked() []int {
	return slices.Sorted(maps.Keys(p.down))
}
