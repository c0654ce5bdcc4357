package rpc

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// Keepalive defaults: an idle connection is pinged every DefaultKeepaliveInterval
// and dropped when a ping goes unanswered for DefaultKeepaliveTimeout, so that a
// peer that froze or vanished behind a dead network path is noticed within
// seconds rather than after TCP's hours.
const (
	DefaultKeepaliveInterval = 10 * time.Second
	DefaultKeepaliveTimeout  = 5 * time.Second
)

// minClientPing is the shortest ping interval grpc-go lets a client use; servers
// accept pings that often, so that no client of ours is cut off for pinging.
const minClientPing = 10 * time.Second

// Keepalive is how often a connection is pinged and how long a ping may go
// unanswered. Zero fields take the defaults.
type Keepalive struct {
	Interval time.Duration
	Timeout  time.Duration
}

// WithDefaults returns k with its zero fields set to the defaults.
func (k Keepalive) WithDefaults() Keepalive {
	if k.Interval <= 0 {
		k.Interval = DefaultKeepaliveInterval
	}
	if k.Timeout <= 0 {
		k.Timeout = DefaultKeepaliveTimeout
	}
	return k
}

// ServerOptions pings clients (a server may ping as often as every second)
// and lets them ping as often as grpc-go clients can. A connection that has not
// finished its HTTP/2 handshake after Interval+Timeout is closed (grpc-go
// waits 120s, and its Stop waits for such connections).
func (k Keepalive) ServerOptions() []grpc.ServerOption {
	k = k.WithDefaults()
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(k.Interval + k.Timeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: k.Interval, Timeout: k.Timeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: min(minClientPing, k.Interval) / 2, PermitWithoutStream: true}),
	}
}

// DialOptions pings the server, also while no call is open. grpc-go raises an
// interval under 10s to 10s.
func (k Keepalive) DialOptions() []grpc.DialOption {
	k = k.WithDefaults()
	return []grpc.DialOption{grpc.WithKeepaliveParams(keepalive.ClientParameters{
		Time: max(k.Interval, minClientPing), Timeout: k.Timeout, PermitWithoutStream: true,
	})}
}
