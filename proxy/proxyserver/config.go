package proxyserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
)

// Defaults of the Config fields left zero.
const (
	// DefaultMaxRecvMsgSize bounds the gRPC messages a server that Serve starts
	// receives (max_message_bytes): 256 MiB. Upstream sets no limit, and
	// CompileRequests with large programs exceed grpc-go's 4 MiB default; every
	// message is held whole in memory while it is read.
	DefaultMaxRecvMsgSize = 256 << 20
	// DefaultMaxSendMsgSize bounds the messages it sends (those it builds
	// itself; host buffers go in chunks).
	DefaultMaxSendMsgSize = math.MaxInt32
	// DefaultMaxHostBufferSize bounds one host buffer (64 GiB).
	DefaultMaxHostBufferSize = 64 << 30
	// DefaultChunkSize is the size of the chunks HostBufferLookup streams,
	// upstream's 1 MiB.
	DefaultChunkSize = 1 << 20
)

// Config configures a Server. Only Backend is required.
type Config struct {
	// Backend serves every array and executable of every session. The server
	// does not close it. Required unless SessionBackend is set.
	Backend ifrt.Client

	// SessionBackend, if set, opens a backend of its own for each session
	// (called with the session's context and logger when it starts), which the server
	// closes when the session ends; Backend is then not used. A session
	// backend that can fail as a whole, as the Pathways cluster client does
	// when more slices are lost than it tolerates, ends its session with that
	// error when it does (it has the methods Failed() <-chan struct{} and Err()
	// error), so a failure ends the sessions it hit and the next session starts
	// afresh. An error from SessionBackend ends the session before it starts.
	SessionBackend func(ctx context.Context, log *slog.Logger) (ifrt.Client, error)

	// Logger receives the server's logs: the client's advertised version range
	// at Info once per connection, session starts and ends at Info, errors of
	// requests at Debug with every request. Default slog.Default().
	Logger *slog.Logger

	// PluginPrograms serves pathwaysutils-style plugin programs
	// (xla::ifrt::PluginProgram): JSON objects with one top-level key, which
	// selects the handler. A program with another key fails to compile with
	// "Bad PluginProgram". ReshardPluginKey and the persistence keys
	// (PersistenceWriteKey ...) are always served; an entry here
	// replaces the built-in handler of its key.
	PluginPrograms map[string]PluginHandler

	// ClusterClientsOnly says the server is a worker's, whose sessions come
	// from the Pathways cluster client (which marks its calls). A session
	// without the mark, such as a JAX client pointed at a worker's port by
	// mistake, is served but logged as a warning: it bypasses the resource
	// manager and the proxy server, and sees only this worker's devices.
	ClusterClientsOnly bool

	// MaxRecvMsgSize and MaxSendMsgSize are the gRPC message size limits of
	// the grpc.Server that Serve creates (not of one passed to Register); a
	// larger message fails its call with RESOURCE_EXHAUSTED. Defaults
	// DefaultMaxRecvMsgSize and DefaultMaxSendMsgSize.
	MaxRecvMsgSize int
	MaxSendMsgSize int

	// MaxHostBufferSize bounds the size of one host buffer, stored or
	// produced, and of one array made from host buffers. Default
	// DefaultMaxHostBufferSize.
	MaxHostBufferSize int64

	// Limits bound sessions and what each may hold. See Limits for the
	// defaults.
	Limits Limits

	// KeepaliveInterval is how often the server pings a client's idle
	// connection, and KeepaliveTimeout how long it waits for the answer before
	// it drops the connection, which ends the sessions on it and frees what
	// they held: a client that vanished behind a dead network path is noticed
	// after about their sum. Defaults 10s and 5s.
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration

	// ChunkSize is the size of the messages HostBufferLookup streams. Default
	// DefaultChunkSize.
	ChunkSize int

	// LargeTransferDirectory is the directory shared with the clients (a
	// memory-backed volume of the same pod, say) in which jaxlib writes large
	// host buffers for HostBufferReadFromDisk: the client sets
	// IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY to it and
	// IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_THRESHOLD_BYTES to the
	// smallest buffer sent that way. The server deletes each file once read.
	// One client per directory: jaxlib names the files after handles, which
	// every client numbers from 1. Default none: such requests fail with
	// UNIMPLEMENTED. See docs/dataplane.md.
	LargeTransferDirectory string

	// ServerOptions are added to the options of the grpc.Server that Serve
	// creates (interceptors, credentials, keepalive...). Default none.
	ServerOptions []grpc.ServerOption
}

// Validate reports a missing backend, negative sizes and empty plugin entries.
func (c Config) Validate() error {
	if c.Backend == nil && c.SessionBackend == nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "proxyserver: Config.Backend or Config.SessionBackend is required")
	}
	if c.MaxRecvMsgSize < 0 || c.MaxSendMsgSize < 0 || c.MaxHostBufferSize < 0 || c.ChunkSize < 0 || c.KeepaliveInterval < 0 || c.KeepaliveTimeout < 0 {
		return ifrt.Errorf(ifrt.InvalidArgument, "proxyserver: Config sizes and durations must not be negative")
	}
	if c.LargeTransferDirectory != "" {
		if info, err := os.Stat(c.LargeTransferDirectory); err != nil || !info.IsDir() {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxyserver: Config.LargeTransferDirectory %q is not a directory", c.LargeTransferDirectory)
		}
	}
	if err := c.Limits.validate(); err != nil {
		return err
	}
	for k, h := range c.PluginPrograms {
		if k == "" || h == nil {
			return ifrt.Errorf(ifrt.InvalidArgument, "proxyserver: plugin program %q has no handler or an empty key", k)
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxRecvMsgSize == 0 {
		c.MaxRecvMsgSize = DefaultMaxRecvMsgSize
	}
	if c.MaxSendMsgSize == 0 {
		c.MaxSendMsgSize = DefaultMaxSendMsgSize
	}
	c.Limits = c.Limits.withDefaults()
	if c.MaxHostBufferSize == 0 {
		c.MaxHostBufferSize = DefaultMaxHostBufferSize
	}
	if c.ChunkSize == 0 {
		c.ChunkSize = DefaultChunkSize
	}
	plugins := persistencePlugins()
	plugins[ReshardPluginKey] = reshardPlugin
	for k, h := range c.PluginPrograms {
		plugins[k] = h
	}
	c.PluginPrograms = plugins
	return c
}

// PluginHandler compiles the plugin programs of one top-level JSON key. body
// is the value under that key. A returned error fails the compile; its message
// is prefixed with "Bad PluginProgram", which pathwaysutils reports as a
// server that does not know the request.
type PluginHandler func(ctx context.Context, backend ifrt.Client, body json.RawMessage) (*PluginExecutable, error)

// PluginExecutable is a compiled plugin program.
type PluginExecutable struct {
	// Name is reported as the executable's name. Default the JSON key.
	Name string
	// Devices are the executable's devices; every array argument must have one
	// shard per device. Default the backend's addressable devices.
	Devices ifrt.DeviceList
	// Execute runs the program on its arguments and returns its outputs. The
	// execution's status (what pathwaysutils waits on) is its error. Required.
	Execute func(ctx context.Context, args []ifrt.Array) ([]ifrt.Array, error)
	// DonatesArguments says Execute consumes its arguments, so that requests
	// using them are ordered around it.
	DonatesArguments bool
	// Close, if set, is called once when the executable is released.
	Close func()
}
