package gcs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
	"github.com/openpathways/pathways/storage/storagetest"
)

func TestEmulator(t *testing.T) {
	gcstest.Start(t, "scratch")
	loc, err := storage.Open(context.Background(), "gs://scratch/run/1")
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	storagetest.Run(t, loc)
}

func TestMissingBucket(t *testing.T) {
	gcstest.Start(t, "scratch")
	ctx := context.Background()
	loc, err := storage.Open(ctx, "gs://no-such-bucket/p")
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	err = loc.Put(ctx, "obj", []byte("x"))
	if c := ifrt.CodeOf(err); c != ifrt.NotFound && c != ifrt.FailedPrecondition {
		t.Fatalf("Put into a missing bucket: %v (%v); want NOT_FOUND or FAILED_PRECONDITION", err, c)
	}
	if !strings.Contains(err.Error(), "gs://no-such-bucket/p/obj") {
		t.Errorf("the error %q does not name the object", err)
	}
	if _, err := loc.Get(ctx, "obj"); !errors.Is(err, ifrt.ErrNotFound) {
		t.Errorf("Get from a missing bucket: %v; want NOT_FOUND", err)
	}
}

// TestDenied checks the codes of the errors the service answers with; the
// emulator does not check permissions, so they are made here.
func TestDenied(t *testing.T) {
	for status, want := range map[int]ifrt.Code{403: ifrt.PermissionDenied, 401: ifrt.Unauthenticated, 429: ifrt.ResourceExhausted, 503: ifrt.Unavailable, 412: ifrt.FailedPrecondition} {
		err := gcs.ObjectError("b", "dir/obj", &googleapi.Error{Code: status, Message: "denied"})
		if ifrt.CodeOf(err) != want || !strings.Contains(err.Error(), "gs://b/dir/obj") {
			t.Errorf("HTTP %d became %v (%v); want %v naming gs://b/dir/obj", status, err, ifrt.CodeOf(err), want)
		}
	}
}
