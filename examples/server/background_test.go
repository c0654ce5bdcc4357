package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// background is a server that run runs until Stop.
type background struct {
	name string
	out  *testenv.LineWriter
	done chan error
	stop context.CancelFunc
}

// startServer runs the server with args and env in the background and
// returns it once it printed its first stdout line, the ready line, which it
// returns too. A run that ends first fails the test.
func startServer(ctx context.Context, t *testing.T, name string, args []string, env func(string) string) (*background, string) {
	t.Helper()
	ctx, stop := context.WithCancel(ctx)
	b := &background{name: name, out: testenv.NewLineWriter(4), done: make(chan error, 1), stop: stop}
	go func() { b.done <- run(ctx, args, env, b.out, io.Discard) }()
	select {
	case line := <-b.out.C:
		return b, line
	case err := <-b.done:
		stop()
		t.Fatalf("%s run: %v", name, err)
		return nil, ""
	}
}

// startRM runs a resource manager of cpu:2 on a free port of every address
// with the variables of env (name, value, ...) and returns it with its
// loopback address.
func startRM(ctx context.Context, t *testing.T, env ...string) (*background, string) {
	t.Helper()
	rm, line := startServer(ctx, t, "RM", []string{"--node_type=resource_manager", "--server_port=0", "--instance_type=cpu:2"}, envOf(env...))
	_, port, _ := strings.Cut(line, "]:")
	if !strings.HasPrefix(line, "resource manager ready on ") || port == "" {
		rm.Stop(t)
		t.Fatalf("ready line %q", line)
	}
	return rm, "127.0.0.1:" + port
}

// Stop cancels the server's run (as SIGTERM does) and reports an error it
// ends with as a test error.
func (b *background) Stop(t *testing.T) {
	t.Helper()
	b.stop()
	if err := <-b.done; err != nil {
		t.Errorf("%s after cancel: %v", b.name, err)
	}
}
