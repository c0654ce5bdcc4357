package rm

import (
	"log/slog"
	"math"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
)

// DefaultHeartbeatTimeout is the heartbeat timeout when Config.HeartbeatTimeout
// is zero.
const DefaultHeartbeatTimeout = 5 * time.Second

// DefaultMaxWatchers bounds the Watch streams open at once when
// Config.MaxWatchers is zero.
const DefaultMaxWatchers = 1024

// heartbeatsPerTimeout is how many heartbeats a worker sends per timeout, so
// that a few late or lost ones do not make it lost.
const heartbeatsPerTimeout = 4

// Config configures a Server. The zero value of each field means its default;
// InstanceType and InstanceCount have none and are required.
type Config struct {
	// InstanceType is the shape of every slice, "<kind>:<topology>", as the
	// --instance_type flag: tpuv4:2x2x1, tpuv5:2x2x2, tpuv5e:4x4,
	// tpuv5e1t:2x4, tpuv6e:2x2, tpuv6e1t:2x4, tpu7x:2x2x1, cpu:<N> (one
	// host with N CPU devices per slice), or gpu:<N> (one host with N CUDA
	// GPUs per slice). See ParseInstanceType.
	InstanceType string

	// InstanceCount is the number of slices (--instance_count), at least 1.
	InstanceCount int

	// HeartbeatTimeout is how long a registered worker may go without a
	// heartbeat before it is declared lost. Workers are told to send one
	// every HeartbeatTimeout/4. A worker whose heartbeat stream breaks is
	// lost at once, whatever this value. Default DefaultHeartbeatTimeout (5s).
	HeartbeatTimeout time.Duration

	// Logger receives the server's logs; nil means slog.Default(). Routine
	// events (a worker joined) are logged at Debug, losses and slices going
	// up or down at Info or Warn.
	Logger *slog.Logger

	// Security authenticates the cluster's members: every call must carry its
	// credentials, so a worker without them cannot register. Default none.
	Security Security

	// MaxWatchers bounds the Watch streams open at once; more are refused with
	// RESOURCE_EXHAUSTED. Default DefaultMaxWatchers.
	MaxWatchers int

	// KeepaliveInterval and KeepaliveTimeout are how often the server pings its
	// clients' connections and how long an answer may take. Defaults 10s and
	// 5s.
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration

	// ServerOptions are added to the options of the grpc.Server that Serve
	// creates (interceptors, say). Unused with Register.
	ServerOptions []grpc.ServerOption
}

// Validate reports the first problem with c as an INVALID_ARGUMENT error.
func (c *Config) Validate() error {
	_, err := c.instanceType()
	return err
}

// instanceType validates c and parses its instance type.
func (c *Config) instanceType() (InstanceType, error) {
	if c.InstanceType == "" {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: Config.InstanceType is required, e.g. tpuv5e:4x4 or cpu:4")
	}
	it, err := ParseInstanceType(c.InstanceType)
	if err != nil {
		return InstanceType{}, err
	}
	if c.InstanceCount < 1 {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: Config.InstanceCount is %d; it must be at least 1", c.InstanceCount)
	}
	if int64(c.InstanceCount)*int64(it.DevicesPerSlice()) > math.MaxInt32 {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: %d slices of %s have more devices than int32 device ids can number", c.InstanceCount, c.InstanceType)
	}
	if c.HeartbeatTimeout < 0 || c.KeepaliveInterval < 0 || c.KeepaliveTimeout < 0 || c.MaxWatchers < 0 {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: Config durations and MaxWatchers must not be negative")
	}
	if err := c.Security.Validate(); err != nil {
		return InstanceType{}, err
	}
	return it, nil
}

func (c *Config) heartbeatTimeout() time.Duration {
	if c.HeartbeatTimeout == 0 {
		return DefaultHeartbeatTimeout
	}
	return c.HeartbeatTimeout
}

func (c *Config) maxWatchers() int {
	if c.MaxWatchers == 0 {
		return DefaultMaxWatchers
	}
	return c.MaxWatchers
}

func (c *Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.Default()
	}
	return c.Logger
}
