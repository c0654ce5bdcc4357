package rm_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/rm"
)

// TestHandlerPanicIsInternal: a panic in an RM handler (here in the log
// handler its RegisterWorker calls for a refused registration) killed the
// process. It now fails that call with INTERNAL, logged with its stack, and
// the RM goes on.
func TestHandlerPanicIsInternal(t *testing.T) {
	logs := &panickyLog{panicOn: "registration refused"}
	n := &network{}
	startRM(t, n, rm.Config{InstanceType: "cpu:2", InstanceCount: 1, Logger: slog.New(logs)})
	c := rawClient(t, n)
	ctx := testContext(t)
	_, err := c.RegisterWorker(ctx, registerReq(7, 0, "w:1", "a", 2)) // no slice 7: refused
	if !errors.Is(rpc.FromStatus(err), ifrt.ErrInternal) {
		t.Fatalf("RegisterWorker whose handler panicked = %v, want INTERNAL", err)
	}
	if got := logs.text(); !strings.Contains(got, "rpc handler panicked") || !strings.Contains(got, "goroutine") {
		t.Errorf("the panic was not logged with its stack:\n%s", got)
	}
	if _, err := c.RegisterWorker(ctx, registerReq(0, 0, "w:1", "a", 2)); err != nil {
		t.Errorf("RegisterWorker after the panic: %v", err)
	}
}

// panickyLog is a slog handler that panics on records with message panicOn and
// keeps the others.
type panickyLog struct {
	panicOn string
	mu      sync.Mutex
	b       strings.Builder
}

func (l *panickyLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *panickyLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.panicOn {
		panic("test: a broken log handler")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		l.b.WriteString(" " + a.String())
		return true
	})
	l.b.WriteString("\n")
	return nil
}

func (l *panickyLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *panickyLog) WithGroup(string) slog.Handler      { return l }

func (l *panickyLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
