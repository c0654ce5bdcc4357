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

// heartbeatsPerTimeout is how many heartbeats a worker sends per timeout, so
// that a few late or lost ones do not make it lost.
const heartbeatsPerTimeout = 4

// Config configures a Server. The zero value of each field means its default;
// InstanceType and InstanceCount have none and are required.
type Config struct {
	// InstanceType is the shape of every slice, "<kind>:<topology>", as the
	// --instance_type flag: tpuv4:2x2x1, tpuv5:2x2x2, tpuv5e:4x4,
	// tpuv5e1t:2x4, tpuv6e:2x2, tpuv6e1t:2x4, tpu7x:2x2x1, or cpu:<N> (one
	// host with N CPU devices per slice). See ParseInstanceType.
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

	// ServerOptions are passed to the grpc.Server that Serve creates
	// (credentials, keepalive, interceptors). Unused with Register.
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
	if c.HeartbeatTimeout < 0 {
		return InstanceType{}, ifrt.Errorf(ifrt.InvalidArgument, "rm: Config.HeartbeatTimeout is negative (%v)", c.HeartbeatTimeout)
	}
	return it, nil
}

func (c *Config) heartbeatTimeout() time.Duration {
	if c.HeartbeatTimeout == 0 {
		return DefaultHeartbeatTimeout
	}
	return c.HeartbeatTimeout
}

func (c *Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.Default()
	}
	return c.Logger
}
