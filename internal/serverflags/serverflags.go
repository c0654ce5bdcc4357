// Package serverflags declares the flags that the server and proxy_server
// binaries share beyond Pathways' own: where to listen, the cluster's
// credentials (with their environment variables, see envconfig), keepalive, the
// drain deadline on SIGTERM, logging (--log_level, --log_format; see
// internal/logging) and the limits of an IFRT Proxy server. Values are
// checked when the binary turns them into Config fields. Parse and Main are
// what the binaries share around their own flags: parsing with one usage
// error, and the process's signals and exit codes.
package serverflags

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/openpathways/pathways/internal/envconfig"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
)

// DefaultDrainTimeout bounds the graceful part of a shutdown.
const DefaultDrainTimeout = 25 * time.Second

// Common are the flags of every binary.
type Common struct {
	ListenAddress     string
	TokenFile         string
	TLSCert           string
	TLSKey            string
	TLSCA             string
	TLSServerName     string
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration
	DrainTimeout      time.Duration
	Log               logging.Flags
}

// Register declares the flags on fs.
func (c *Common) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.ListenAddress, "listen_address", "", "the host or IP address to listen on, e.g. 127.0.0.1 or a private interface's address (default: every interface); the port is --server_port")
	fs.StringVar(&c.TokenFile, "cluster_token_file", "", "a file holding the cluster token that the resource manager, the workers and the proxy server require of each other (also $"+envconfig.ClusterTokenFile+", or the token itself in $"+envconfig.ClusterToken+")")
	fs.StringVar(&c.TLSCert, "tls_cert", "", "PEM certificate of this member, for mutual TLS between the resource manager, the workers and the proxy server (also $"+envconfig.TLSCert+"); needs --tls_key and --tls_ca")
	fs.StringVar(&c.TLSKey, "tls_key", "", "PEM private key of --tls_cert (also $"+envconfig.TLSKey+")")
	fs.StringVar(&c.TLSCA, "tls_ca", "", "PEM certificates of the CA that signs the members' certificates (also $"+envconfig.TLSCA+")")
	fs.StringVar(&c.TLSServerName, "tls_server_name", "", "the name every member's certificate carries, if they share one (also $"+envconfig.TLSServerName+"); default: the host each member is dialled by")
	fs.DurationVar(&c.KeepaliveInterval, "keepalive_interval", rpc.DefaultKeepaliveInterval, "how often idle connections are pinged (and, in a cluster client, each worker asked whether it answers)")
	fs.DurationVar(&c.KeepaliveTimeout, "keepalive_timeout", rpc.DefaultKeepaliveTimeout, "how long a ping may go unanswered before the peer is dropped: a frozen or vanished peer is noticed after about keepalive_interval + keepalive_timeout")
	fs.DurationVar(&c.DrainTimeout, "drain_timeout", DefaultDrainTimeout, "on SIGTERM, how long to finish the requests, transfers and executions in progress before closing")
	c.Log.Register(fs)
}

// Check rejects values that cannot work.
func (c *Common) Check() error {
	if h, p, err := net.SplitHostPort(c.ListenAddress); err == nil && p != "" {
		return fmt.Errorf("--listen_address=%q: give the host (%q) only; the port is --server_port", c.ListenAddress, h)
	}
	if c.KeepaliveInterval <= 0 || c.KeepaliveTimeout <= 0 {
		return fmt.Errorf("--keepalive_interval and --keepalive_timeout must be positive")
	}
	if c.DrainTimeout < 0 {
		return fmt.Errorf("--drain_timeout=%v must not be negative", c.DrainTimeout)
	}
	return nil
}

// Listen listens on --listen_address at port.
func (c *Common) Listen(port int) (net.Listener, error) {
	host := strings.TrimSuffix(strings.TrimPrefix(c.ListenAddress, "["), "]")
	return net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
}

// Security is the cluster's credentials from the flags, or else from the
// environment.
func (c *Common) Security(env envconfig.Lookup) (rm.Security, error) {
	or := func(flag, name string) string {
		if flag != "" {
			return flag
		}
		return env.String(name)
	}
	f := rm.SecurityFiles{
		TokenFile:  or(c.TokenFile, envconfig.ClusterTokenFile),
		CertFile:   or(c.TLSCert, envconfig.TLSCert),
		KeyFile:    or(c.TLSKey, envconfig.TLSKey),
		CAFile:     or(c.TLSCA, envconfig.TLSCA),
		ServerName: or(c.TLSServerName, envconfig.TLSServerName),
	}
	if f.TokenFile == "" {
		f.Token = env.String(envconfig.ClusterToken)
	}
	return rm.LoadSecurity(f)
}

// Logger makes the binary's logger (--log_level, --log_format) on w and, when
// sec holds no credentials, warns that whoever reaches the server can do
// exposed ("register workers and read or place arrays").
func (c *Common) Logger(w io.Writer, sec rm.Security, exposed string) (*slog.Logger, error) {
	log, err := c.Log.New(w)
	if err != nil {
		return nil, err
	}
	if !sec.Enabled() {
		log.Warn("the cluster is not authenticated: whoever reaches " + exposed + "; set --cluster_token_file or --tls_cert (see docs/security.md)")
	}
	return log, nil
}

// Keepalive returns the keepalive flags.
func (c *Common) Keepalive() (interval, timeout time.Duration) {
	return c.KeepaliveInterval, c.KeepaliveTimeout
}

// Limits are the flags of an IFRT Proxy server's limits (a proxy server's, or
// a worker's). Zero values leave proxyserver's defaults.
type Limits struct {
	MaxSessions               int
	MaxSessionHostBufferBytes Bytes
	MaxHostBufferBytes        Bytes
	MaxSessionLiveBytes       Bytes
	MaxInflightUploads        int
	MaxMessageBytes           Bytes
}

// Register declares the flags on fs.
func (l *Limits) Register(fs *flag.FlagSet) {
	half := fmt.Sprintf("%.1fGiB", float64(proxyserver.DefaultHostBufferBytes())/(1<<30))
	fs.IntVar(&l.MaxSessions, "max_sessions", proxyserver.DefaultMaxSessions, "sessions (clients) open at once; more are refused with RESOURCE_EXHAUSTED")
	fs.Var(&l.MaxSessionHostBufferBytes, "max_session_host_buffer_bytes", "host-buffer bytes one session may hold, in transit or waiting, e.g. 8GiB (default half the machine's memory, "+half+"; none: no limit)")
	fs.Var(&l.MaxHostBufferBytes, "max_host_buffer_bytes", "host-buffer bytes of all sessions together, with the arrays assembled from them (default the machine's memory; none: no limit)")
	fs.Var(&l.MaxSessionLiveBytes, "max_session_live_bytes", "bytes of arrays one session may hold (default: none for a proxy server, whose arrays are on the workers; half the machine's memory for a worker with CPU devices)")
	fs.IntVar(&l.MaxInflightUploads, "max_inflight_uploads", proxyserver.DefaultMaxInflightUploads, "host-buffer uploads one session may have taken at once; more wait")
	l.MaxMessageBytes = proxyserver.DefaultMaxRecvMsgSize
	fs.Var(&l.MaxMessageBytes, "max_message_bytes", "the largest gRPC message received (a compile request carries its whole program)")
}

// Check rejects values that cannot work.
func (l *Limits) Check() error {
	if l.MaxSessions <= 0 || l.MaxInflightUploads <= 0 {
		return fmt.Errorf("--max_sessions and --max_inflight_uploads must be positive")
	}
	if l.MaxMessageBytes <= 0 || l.MaxMessageBytes > 1<<31-1 {
		return fmt.Errorf("--max_message_bytes=%v: want 1 to 2GiB", l.MaxMessageBytes)
	}
	return nil
}

// Proxy returns the limits as proxyserver's.
func (l *Limits) Proxy() proxyserver.Limits {
	return proxyserver.Limits{
		MaxSessions:               l.MaxSessions,
		MaxSessionHostBufferBytes: int64(l.MaxSessionHostBufferBytes),
		MaxHostBufferBytes:        int64(l.MaxHostBufferBytes),
		MaxSessionLiveBytes:       int64(l.MaxSessionLiveBytes),
		MaxInflightUploads:        l.MaxInflightUploads,
	}
}

// Bytes is a flag for a size: a number of bytes with an optional unit (KiB,
// MiB, GiB, TiB), or "none" for no limit (proxyserver.NoLimit). 0 means the
// default.
type Bytes int64

var units = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}}

func (b *Bytes) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "none" {
		*b = proxyserver.NoLimit
		return nil
	}
	shift := uint(0)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = strings.TrimSpace(rest), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return fmt.Errorf("want a size such as 1024, 64MiB or 8GiB, or none")
	}
	*b = Bytes(n << shift)
	return nil
}

func (b Bytes) String() string {
	switch {
	case b == proxyserver.NoLimit:
		return "none"
	case b == 0:
		return "0"
	}
	for _, u := range units {
		if int64(b)%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", int64(b)>>u.shift, u.suffix)
		}
	}
	return strconv.FormatInt(int64(b), 10)
}
