package gcs_test

import (
	"context"
	"errors"
	"testing"

	gstorage "cloud.google.com/go/storage"
	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
)

func TestExpiryRules(t *testing.T) {
	other := gstorage.LifecycleRule{Action: gstorage.LifecycleAction{Type: gstorage.DeleteAction}, Condition: gstorage.LifecycleCondition{AgeInDays: 3, MatchesPrefix: []string{"logs/"}}}
	old := gstorage.LifecycleRule{Action: gstorage.LifecycleAction{Type: gstorage.DeleteAction}, Condition: gstorage.LifecycleCondition{AgeInDays: 90, MatchesPrefix: []string{"p/compilation_cache/"}}}
	got := gcs.WithExpiry([]gstorage.LifecycleRule{other, old}, "p/compilation_cache/", 30)
	want := []gstorage.LifecycleRule{other, {Action: gstorage.LifecycleAction{Type: gstorage.DeleteAction}, Condition: gstorage.LifecycleCondition{AgeInDays: 30, MatchesPrefix: []string{"p/compilation_cache/"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestExpireAfter sends the rule to the emulator (which accepts bucket updates
// but keeps no lifecycle, so only the request is checked); a directory
// cannot expire objects.
func TestExpireAfter(t *testing.T) {
	gcstest.Start(t, "scratch")
	ctx := context.Background()
	loc, err := storage.Open(ctx, "gs://scratch/p")
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	if err := loc.ExpireAfter(ctx, "compilation_cache", 30); err != nil {
		t.Fatalf("ExpireAfter: %v", err)
	}
	missing, _ := storage.Open(ctx, "gs://no-such-bucket/p")
	defer missing.Close()
	if err := missing.ExpireAfter(ctx, "compilation_cache", 30); !errors.Is(err, ifrt.ErrNotFound) {
		t.Errorf("ExpireAfter on a missing bucket: %v; want NOT_FOUND", err)
	}
	dir, _ := storage.Open(ctx, t.TempDir())
	if err := dir.ExpireAfter(ctx, "compilation_cache", 30); !errors.Is(err, ifrt.ErrUnimplemented) {
		t.Errorf("ExpireAfter on a directory: %v; want UNIMPLEMENTED", err)
	}
}
