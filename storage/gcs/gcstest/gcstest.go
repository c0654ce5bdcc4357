// Package gcstest runs the fake-gcs-server emulator in process, for tests of
// gs:// locations without credentials or a network.
package gcstest

import (
	"net/url"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// Start serves an emulator on loopback, with the given buckets created, until
// the test ends, and points the Cloud Storage client at it
// (STORAGE_EMULATOR_HOST, so the test must not be parallel). It returns the
// emulator's host:port, for processes the test starts.
func Start(t testing.TB, buckets ...string) string {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Port: 0, NoListener: false})
	if err != nil {
		t.Fatalf("starting fake-gcs-server: %v", err)
	}
	t.Cleanup(srv.Stop)
	for _, b := range buckets {
		srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", u.Host)
	return u.Host
}
