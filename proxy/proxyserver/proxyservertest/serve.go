// Package proxyservertest serves a proxy server for a test: OverGocpu makes one
// over a fresh gocpu backend, Serve serves it on a loopback TCP port until the
// test ends, then shuts it down and checks how its Serve ended. EchoPlugin is
// a plugin program for tests of Config.PluginPrograms.
//
// Cleanups run last-registered first, so what the caller registers before
// calling Serve (closing the backend, printing the server's log) runs after
// the server has shut down.
package proxyservertest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// shutdownWait is how long the test's end waits for the sessions to close.
const shutdownWait = 5 * time.Second

// Serve serves srv on a loopback TCP port and returns its address
// ("127.0.0.1:port"). When the test ends it shuts srv down and reports as a
// test error a Serve that ended other than by the shutdown.
func Serve(t testing.TB, srv *proxyserver.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		srv.Shutdown(ctx)
		// ErrServerClosed: Serve had not started when Shutdown ran.
		if err := <-done; err != nil && !errors.Is(err, proxyserver.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return lis.Addr().String()
}

// OverGocpu returns a proxy server over a fresh gocpu backend of n devices,
// made with cfg (its Backend set; a nil Logger discards). The backend closes
// when the test ends, after a server that Serve serves has shut down.
func OverGocpu(t testing.TB, devices int, cfg proxyserver.Config) (*proxyserver.Server, *gocpu.Client) {
	t.Helper()
	backend, err := gocpu.New(gocpu.Config{Devices: devices})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	cfg.Backend = backend
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	srv, err := proxyserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, backend
}
