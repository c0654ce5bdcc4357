package rm_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
)

// TestWatchLogsLossAndReturnOfTheRM: the proxy logged nothing when it lost or
// regained the RM (issue 11, defect 8).
func TestWatchLogsLossAndReturnOfTheRM(t *testing.T) {
	var n network
	cfg := rm.Config{InstanceType: "cpu:2", InstanceCount: 1}
	first := startRM(t, &n, cfg)
	logs := &testenv.SyncBuffer{}
	c, err := rm.NewClient("passthrough:///rm", rm.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		rm.WithDialOptions(n.dialOption()), rm.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	events := watch(t, c)
	waitFor(ctx, t, events, rm.EventSnapshot)
	first.Close()
	waitLog(t, logs, "level=WARN msg=\"lost the resource manager")
	startRM(t, &n, cfg)
	waitFor(ctx, t, events, rm.EventSnapshot)
	waitLog(t, logs, "level=INFO msg=\"the resource manager is back\"")
}

func waitLog(t *testing.T, logs *testenv.SyncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(defaultTestTimeout)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line %q in:\n%s", want, logs.String())
		}
		time.Sleep(time.Millisecond)
	}
}
