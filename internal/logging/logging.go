// Package logging is the one logging convention of the module's packages and
// binaries, on log/slog:
//
//   - every server and client logs with a "component" attribute (Component):
//     "rm", "rm-client", "worker", "proxy-server", "cluster-client"; a logger
//     handed down to a part keeps one component, the innermost;
//   - shared keys: ErrorKey for errors, SessionKey for an IFRT Proxy session's
//     id (a string, unique in the process), JAXSessionKey on a worker's lines
//     for the id of the JAX session (the proxy server's session) a request
//     serves;
//   - quiet by default: the binaries log at Info and above unless
//     --log_level says otherwise, and requests are logged at Debug only;
//   - the binaries take --log_level and --log_format=text|json (Flags).
//
// Loggers are safe for concurrent use, as slog's are.
package logging

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Shared attribute keys.
const (
	ComponentKey  = "component"
	ErrorKey      = "error"
	SessionKey    = "session"
	JAXSessionKey = "jax_session"
)

// Component returns log with its component set to name, replacing the one
// it had (slog's With would add a second).
func Component(log *slog.Logger, name string) *slog.Logger {
	h := log.Handler()
	if c, ok := h.(componentHandler); ok {
		h = c.inner
	}
	return slog.New(componentHandler{inner: h, component: slog.String(ComponentKey, name)})
}

// componentHandler adds the component to every record, after the attributes
// of the loggers it was derived from.
type componentHandler struct {
	inner     slog.Handler
	component slog.Attr
}

func (h componentHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h componentHandler) Handle(ctx context.Context, r slog.Record) error {
	r.AddAttrs(h.component)
	return h.inner.Handle(ctx, r)
}

func (h componentHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return componentHandler{inner: h.inner.WithAttrs(attrs), component: h.component}
}

func (h componentHandler) WithGroup(name string) slog.Handler {
	return componentHandler{inner: h.inner.WithGroup(name), component: h.component}
}

// Flags are the logging flags of every binary.
type Flags struct {
	Level  slog.Level
	Format string
}

// Register declares --log_level and --log_format on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	f.Level = slog.LevelInfo
	fs.TextVar(&f.Level, "log_level", slog.LevelInfo, "the least severe log lines written: debug (every request), info, warn or error")
	fs.StringVar(&f.Format, "log_format", "text", "how log lines are written: text (key=value) or json (one object a line)")
}

// New returns the logger the flags ask for, writing to w.
func (f *Flags) New(w io.Writer) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: f.Level}
	switch f.Format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log_format=%q: want text or json", f.Format)
}
