package logging_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/logging"
)

func TestComponentReplaces(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(slog.NewJSONHandler(&buf, nil))
	log := logging.Component(logging.Component(base, "proxy-server").With("session", "7"), "cluster-client")
	log.Info("hello", "k", 1)
	line := buf.String()
	if n := strings.Count(line, `"component"`); n != 1 {
		t.Fatalf("%d component keys in %s, want 1", n, line)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r["component"] != "cluster-client" || r["session"] != "7" || r["k"] != 1.0 {
		t.Errorf("record %v: want component cluster-client, session 7, k 1", r)
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		json      bool
		debugSeen bool
	}{
		{nil, false, false},
		{[]string{"--log_level=debug", "--log_format=json"}, true, true},
		{[]string{"--log_level=WARN"}, false, false},
	} {
		var f logging.Flags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		log, err := f.New(&buf)
		if err != nil {
			t.Fatal(err)
		}
		log.Debug("dbg")
		log.Warn("wrn")
		out := buf.String()
		if strings.Contains(out, "dbg") != tc.debugSeen || !strings.Contains(out, "wrn") {
			t.Errorf("%v: wrote %q", tc.args, out)
		}
		if strings.HasPrefix(out, "{") != tc.json {
			t.Errorf("%v: wrote %q, json=%v", tc.args, out, tc.json)
		}
	}
	var f logging.Flags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	f.Register(fs)
	if err := fs.Parse([]string{"--log_level=loud"}); err == nil {
		t.Errorf("--log_level=loud was accepted")
	}
	if err := fs.Parse([]string{"--log_format=xml"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.New(new(bytes.Buffer)); err == nil {
		t.Errorf("--log_format=xml was accepted")
	}
}
