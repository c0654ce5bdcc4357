package rm

import "github.com/openpathways/pathways/internal/rpc"

// Security is how the members of a cluster — the resource manager, the workers
// and the cluster clients (package cluster, the proxy server over a cluster) —
// authenticate each other. Give every member the same one:
//
//   - Token: a shared secret sent with every call and required on every call
//     (except the standard health service, which orchestrators probe). A
//     worker without it cannot register; a process without it cannot read or
//     place arrays on the workers. On a plaintext network it keeps out
//     processes that lack it, not eavesdroppers.
//   - Certificate and CAs: mutual TLS. Every connection is encrypted, and both
//     ends must present a certificate that CAs signed. ServerName, if set, is
//     the name every member's certificate carries (one certificate for the
//     whole cluster); otherwise each certificate must name the host it is
//     dialled by.
//
// The zero value authenticates nothing: anyone who reaches a member's port is
// trusted. See docs/security.md.
type Security = rpc.Auth

// SecurityFiles names where LoadSecurity reads a member's credentials from.
type SecurityFiles = rpc.AuthFiles

// LoadSecurity reads the token and the certificate files f names, with
// INVALID_ARGUMENT errors naming a file that is missing or malformed.
func LoadSecurity(f SecurityFiles) (Security, error) { return rpc.LoadAuth(f) }
