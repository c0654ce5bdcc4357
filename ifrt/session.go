package ifrt

import "context"

// Client sessions. A server that serves several client sessions from one
// Client (the IFRT proxy server, a worker's server) puts each session's key
// in the contexts of the calls it makes for that session, and tells the
// Client when the session ends; a backend that keeps state per client session
// (colocated Python objects in a sidecar) keys it by SessionKey and frees it
// in EndSession.

type sessionKeyType struct{}

// WithSessionKey returns ctx carrying key as the client session its calls
// serve.
func WithSessionKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, sessionKeyType{}, key)
}

// SessionKey is the client session ctx's calls serve, or "" when they serve
// none in particular.
func SessionKey(ctx context.Context) string {
	key, _ := ctx.Value(sessionKeyType{}).(string)
	return key
}

// SessionEnder is a Client that keeps state per client session, found by a
// type assertion or Client.As. EndSession frees what the session of key holds;
// the caller makes no more calls with that key.
type SessionEnder interface {
	EndSession(key string)
}

// EndSession tells c, or the Client it reaches through As, that the session
// of key ended; it does nothing for Clients that keep no per-session state.
func EndSession(c Client, key string) {
	e, ok := c.(SessionEnder)
	if !ok && !c.As(&e) {
		return
	}
	e.EndSession(key)
}
