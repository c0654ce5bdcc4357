package rpc

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
)

// TokenMetadataKey carries the cluster token on every call between the members
// of a cluster (resource manager, workers, cluster clients).
const TokenMetadataKey = "openpathways-cluster-token"

// Auth is how the members of a cluster authenticate each other: a shared token
// sent with every call, mutual TLS, or both. The zero value authenticates
// nothing (plaintext, no token).
type Auth struct {
	// Token, if set, is sent with every call and required on every call served,
	// except the standard health service (which orchestrators probe).
	Token string
	// Certificate, if set, is this member's certificate and key: connections are
	// TLS, and both sides must present a certificate that CAs signed.
	Certificate *tls.Certificate
	// CAs verify the other members' certificates. Required with Certificate.
	CAs *x509.CertPool
	// ServerName is the name the members' certificates are checked against when
	// dialling; empty: the host of the address dialled.
	ServerName string
}

// Validate reports a certificate without CAs, or CAs without a certificate.
func (a Auth) Validate() error {
	if (a.Certificate == nil) != (a.CAs == nil) {
		return ifrt.Errorf(ifrt.InvalidArgument, "rpc: mutual TLS needs both a certificate (with its key) and the CAs that sign the cluster's certificates")
	}
	if strings.ContainsAny(a.Token, "\r\n") {
		return ifrt.Errorf(ifrt.InvalidArgument, "rpc: the cluster token must be one line")
	}
	return nil
}

// Enabled reports whether a carries any authentication.
func (a Auth) Enabled() bool { return a.Token != "" || a.Certificate != nil }

// ServerOptions returns the transport credentials (TLS when a has a
// certificate) and the interceptors that refuse calls without the token.
func (a Auth) ServerOptions() []grpc.ServerOption {
	var opts []grpc.ServerOption
	if a.Certificate != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{
			Certificates: []tls.Certificate{*a.Certificate},
			ClientCAs:    a.CAs,
			ClientAuth:   tls.RequireAndVerifyClientCert,
			MinVersion:   tls.VersionTLS12,
		})))
	}
	if a.Token != "" {
		check := tokenCheck(a.Token)
		opts = append(opts,
			grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				if err := check(ctx, info.FullMethod); err != nil {
					return nil, err
				}
				return h(ctx, req)
			}),
			grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				if err := check(ss.Context(), info.FullMethod); err != nil {
					return err
				}
				return h(srv, ss)
			}))
	}
	return opts
}

// DialOptions returns the transport credentials (TLS when a has a certificate,
// else plaintext) and the per-call token.
func (a Auth) DialOptions() []grpc.DialOption {
	creds := insecure.NewCredentials()
	if a.Certificate != nil {
		creds = credentials.NewTLS(&tls.Config{
			Certificates: []tls.Certificate{*a.Certificate},
			RootCAs:      a.CAs,
			ServerName:   a.ServerName,
			MinVersion:   tls.VersionTLS12,
		})
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if a.Token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds(a.Token)))
	}
	return opts
}

// healthPrefix is the method prefix of the standard health service, which is
// served without the token so that orchestrators can probe.
var healthPrefix = "/" + grpc_health_v1.Health_ServiceDesc.ServiceName + "/"

func tokenCheck(token string) func(ctx context.Context, method string) error {
	want := []byte(token)
	return func(ctx context.Context, method string) error {
		if strings.HasPrefix(method, healthPrefix) {
			return nil
		}
		md, _ := metadata.FromIncomingContext(ctx)
		for _, got := range md.Get(TokenMetadataKey) {
			if subtle.ConstantTimeCompare([]byte(got), want) == 1 {
				return nil
			}
		}
		return status.Errorf(codes.Unauthenticated, "%s needs the cluster token (--cluster_token_file or PATHWAYS_CLUSTER_TOKEN on every member of the cluster)", method)
	}
}

// tokenCreds sends the cluster token with every call. It does not require TLS:
// on a plaintext network the token keeps out processes that do not have it,
// not eavesdroppers (mutual TLS does that).
type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{TokenMetadataKey: string(t)}, nil
}

func (tokenCreds) RequireTransportSecurity() bool { return false }

// AuthFiles names where LoadAuth reads a member's credentials from. Empty fields
// are left out.
type AuthFiles struct {
	Token     string // the token itself
	TokenFile string // a file holding the token (surrounding space is trimmed)
	CertFile  string // PEM certificate chain of this member
	KeyFile   string // PEM private key of CertFile
	CAFile    string // PEM certificates of the CAs that sign the members' certificates
	// ServerName is Auth.ServerName.
	ServerName string
}

// LoadAuth reads the files f names into an Auth, with InvalidArgument errors
// naming the file that is missing or malformed.
func LoadAuth(f AuthFiles) (Auth, error) {
	a := Auth{Token: strings.TrimSpace(f.Token), ServerName: f.ServerName}
	if f.TokenFile != "" {
		if a.Token != "" {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: a cluster token is given both directly and in %s", f.TokenFile)
		}
		b, err := os.ReadFile(f.TokenFile)
		if err != nil {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: reading the cluster token: %v", err)
		}
		if a.Token = strings.TrimSpace(string(b)); a.Token == "" {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: the cluster token file %s is empty", f.TokenFile)
		}
	}
	if (f.CertFile == "") != (f.KeyFile == "") || (f.CertFile == "") != (f.CAFile == "") {
		return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: mutual TLS needs a certificate, its key and the CA file together (got certificate %q, key %q, CA %q)", f.CertFile, f.KeyFile, f.CAFile)
	}
	if f.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: loading the certificate %s and key %s: %v", f.CertFile, f.KeyFile, err)
		}
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: reading the CA file: %v", err)
		}
		cas := x509.NewCertPool()
		if !cas.AppendCertsFromPEM(pem) {
			return Auth{}, ifrt.Errorf(ifrt.InvalidArgument, "rpc: %s holds no PEM certificate", f.CAFile)
		}
		a.Certificate, a.CAs = &cert, cas
	}
	return a, a.Validate()
}
