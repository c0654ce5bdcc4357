package worker

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/openpathways/pathways/storage"
)

// Removing what suspensions saved (docs/storage.md, "Suspend and resume").
// A worker that took its own arrays back deletes its host's directory of
// that suspension at once: nothing else reads it. When the resume lost
// arrays, the directory stays (what could be read was; the rest can be
// looked at), as does the directory of a worker that left: its
// replacement's clients read their arrays back from it when they next use
// them. Both go when the slice is next suspended: each worker then deletes
// its host's directories of the earlier suspensions, whose arrays no
// client can ask for any more (it reads back only from the latest).

// sliceRoot is where the suspensions of slice i are saved.
func (sp *suspender) sliceRoot(i int) string {
	return strings.TrimSuffix(sp.w.cfg.ScratchLocation, "/") + fmt.Sprintf("/suspend/slice-%d", i)
}

// removeRestored deletes the objects under loc once this process read them
// all back (err == nil).
func (sp *suspender) removeRestored(ctx context.Context, loc *storage.Location, err error) {
	if loc == nil {
		return
	}
	if err != nil {
		sp.w.log.Warn("the suspended arrays stay where they were saved: some could not be read back", "location", loc.String())
		return
	}
	names, err := loc.List(ctx, "")
	if err == nil {
		err = removeObjects(ctx, loc, names)
	}
	if err != nil {
		sp.w.log.Warn("removing the suspended arrays read back", "location", loc.String(), "error", err)
	}
}

// removeEarlier deletes this host's objects of slice i's suspensions before
// gen.
func (sp *suspender) removeEarlier(ctx context.Context, i int, gen uint64) {
	loc, err := sp.w.store.location(ctx, sp.sliceRoot(i))
	if err != nil {
		return
	}
	host := fmt.Sprintf("host-%d", sp.w.assignment().Host)
	names, err := loc.List(ctx, "")
	var old []string
	for _, n := range names {
		parts := strings.SplitN(n, "/", 3)
		if len(parts) < 3 || parts[1] != host || !strings.HasPrefix(parts[0], "gen-") {
			continue
		}
		if g, perr := strconv.ParseUint(strings.TrimPrefix(parts[0], "gen-"), 10, 64); perr == nil && g < gen {
			old = append(old, n)
		}
	}
	if err == nil {
		err = removeObjects(ctx, loc, old)
	}
	if err != nil {
		sp.w.log.Warn("removing the arrays of earlier suspensions", "location", loc.String(), "error", err)
	}
}

func removeObjects(ctx context.Context, loc *storage.Location, names []string) error {
	return storage.Parallel(ctx, len(names), func(ctx context.Context, i int) error {
		return loc.Delete(ctx, names[i])
	})
}
