package cluster

import (
	"maps"
	"slices"

	"github.com/openpathways/pathways/rm"
)

// SliceHealth follows the slices through the RM's watch events and says
// which are down in the sense of --num_elastic_instances: not every host is
// live, and the slice is ACTIVE. A slice that is suspending, suspended or
// resuming is not down, whoever has left it: a preempted worker leaves once
// it saved its arrays, and the slice comes back with its replacement. The
// client's elastic policy (WithElasticSlices) and the proxy server's health
// service both ask it. The zero value is ready; it is not safe for
// concurrent use.
type SliceHealth struct {
	up, suspended map[int]bool
}

// Observe applies one watch event.
func (h *SliceHealth) Observe(ev rm.Event) {
	if h.up == nil {
		h.up, h.suspended = map[int]bool{}, map[int]bool{}
	}
	switch ev.Type {
	case rm.EventSnapshot:
		clear(h.up)
		clear(h.suspended)
		for _, s := range ev.Cluster.Slices {
			h.up[s.Index], h.suspended[s.Index] = s.Up, s.State != rm.SliceActive
		}
	case rm.EventSliceUp:
		h.up[ev.Slice] = true
	case rm.EventSliceDown:
		h.up[ev.Slice] = false
	case rm.EventSliceState:
		if ev.SliceInfo != nil {
			h.suspended[ev.Slice] = ev.SliceInfo.State != rm.SliceActive
		}
	}
}

// Suspended reports whether slice i is not ACTIVE, as last observed.
func (h *SliceHealth) Suspended(i int) bool { return h.suspended[i] }

// Down returns the slices that are down, in order.
func (h *SliceHealth) Down() []int {
	var down []int
	for _, i := range slices.Sorted(maps.Keys(h.up)) {
		if !h.up[i] && !h.suspended[i] {
			down = append(down, i)
		}
	}
	return down
}
