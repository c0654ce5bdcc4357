package rpc_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// serve starts a grpc.Server with rpc.ServerOptions (the IFRT Proxy service,
// unimplemented, and the health service) on a loopback port.
func serve(t *testing.T, auth rpc.Auth) string {
	t.Helper()
	gs := grpc.NewServer(rpc.ServerOptions(rpc.ServerConfig{Auth: auth})...)
	proxypb.RegisterGrpcIfrtServiceServer(gs, proxypb.UnimplementedGrpcIfrtServiceServer{})
	grpc_health_v1.RegisterHealthServer(gs, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return lis.Addr().String()
}

func dial(t *testing.T, addr string, auth rpc.Auth) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, rpc.DialOptions(auth, rpc.Keepalive{})...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func ctxT(t *testing.T) context.Context { return testenv.Context(t, 20*time.Second) }

// rawCodec sends a []byte as it is: bytes no real client would send.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

// garbage is not a protobuf message: a field with wire type 7, which does not exist.
var garbage = []byte{0x0f, 0xff, 0xff}

func TestGarbageRequestsAreInvalidArgument(t *testing.T) {
	conn := dial(t, serve(t, rpc.Auth{}), rpc.Auth{})
	ctx := ctxT(t)
	in := garbage
	err := conn.Invoke(ctx, proxypb.GrpcIfrtService_GetVersion_FullMethodName, &in, new([]byte), grpc.ForceCodecV2(rawCodec{}))
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("unary call with garbage: %v, want INVALID_ARGUMENT", err)
	}
	// A stream's message is checked as the handler receives it.
	st, err := conn.NewStream(ctx, &grpc_health_v1.Health_ServiceDesc.Streams[0], grpc_health_v1.Health_Watch_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SendMsg(&in); err != nil {
		t.Fatal(err)
	}
	st.CloseSend()
	if err := st.RecvMsg(new([]byte)); status.Code(err) != codes.InvalidArgument {
		t.Errorf("stream with garbage: %v, want INVALID_ARGUMENT", err)
	}
	// A valid request still reaches the handler.
	if _, err := proxypb.NewGrpcIfrtServiceClient(conn).GetVersion(ctx, &proxypb.GrpcGetVersionRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("valid request: %v, want the handler's UNIMPLEMENTED", err)
	}
}

func TestTokenIsRequired(t *testing.T) {
	addr := serve(t, rpc.Auth{Token: "s3cret"})
	ctx := ctxT(t)
	call := func(a rpc.Auth) error {
		_, err := proxypb.NewGrpcIfrtServiceClient(dial(t, addr, a)).GetVersion(ctx, &proxypb.GrpcGetVersionRequest{})
		return err
	}
	for _, a := range []rpc.Auth{{}, {Token: "guess"}} {
		if err := call(a); status.Code(err) != codes.Unauthenticated {
			t.Errorf("token %q: %v, want UNAUTHENTICATED", a.Token, err)
		}
	}
	if err := call(rpc.Auth{Token: "s3cret"}); status.Code(err) != codes.Unimplemented {
		t.Errorf("right token: %v, want the handler's UNIMPLEMENTED", err)
	}
	// Streams are checked too, and the health service is open to probes.
	st, err := proxypb.NewGrpcIfrtServiceClient(dial(t, addr, rpc.Auth{})).IfrtSession(ctx)
	if err == nil {
		_, err = st.Recv()
	}
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("stream without token: %v, want UNAUTHENTICATED", err)
	}
	if _, err := grpc_health_v1.NewHealthClient(dial(t, addr, rpc.Auth{})).Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil {
		t.Errorf("health check without token: %v", err)
	}
}

func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	issue(t, dir, "member", ca, caKey)
	member, err := rpc.LoadAuth(rpc.AuthFiles{
		CertFile: filepath.Join(dir, "member.pem"), KeyFile: filepath.Join(dir, "member.key"), CAFile: filepath.Join(dir, "ca.pem"),
		ServerName: "pathways-member",
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, member)
	ctx := ctxT(t)
	if _, err := proxypb.NewGrpcIfrtServiceClient(dial(t, addr, member)).GetVersion(ctx, &proxypb.GrpcGetVersionRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("member with its certificate: %v, want the handler's UNIMPLEMENTED", err)
	}
	// A certificate from another CA, or none, does not get in.
	other, otherKey := newCA(t)
	writePEM(t, filepath.Join(dir, "other.pem"), "CERTIFICATE", other.Raw)
	issue(t, dir, "rogue", other, otherKey)
	rogue, err := rpc.LoadAuth(rpc.AuthFiles{
		CertFile: filepath.Join(dir, "rogue.pem"), KeyFile: filepath.Join(dir, "rogue.key"), CAFile: filepath.Join(dir, "ca.pem"),
		ServerName: "pathways-member",
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]rpc.Auth{"rogue certificate": rogue, "plaintext": {}} {
		if _, err := proxypb.NewGrpcIfrtServiceClient(dial(t, addr, a)).GetVersion(ctx, &proxypb.GrpcGetVersionRequest{}); status.Code(err) != codes.Unavailable {
			t.Errorf("%s: %v, want UNAVAILABLE (no connection)", name, err)
		}
	}
}

func TestLoadAuthErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]rpc.AuthFiles{
		"missing token file": {TokenFile: filepath.Join(dir, "none")},
		"empty token file":   {TokenFile: empty},
		"token twice":        {Token: "a", TokenFile: empty},
		"cert without key":   {CertFile: empty, CAFile: empty},
		"cert not PEM":       {CertFile: empty, KeyFile: empty, CAFile: empty},
	} {
		if _, err := rpc.LoadAuth(f); ifrt.CodeOf(err) != ifrt.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte(" abc \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if a, err := rpc.LoadAuth(rpc.AuthFiles{TokenFile: tok}); err != nil || a.Token != "abc" {
		t.Errorf("LoadAuth(token file) = %+v, %v; want token abc", a, err)
	}
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

// issue writes name.pem and name.key: a certificate for "pathways-member",
// usable by servers and clients, signed by ca.
func issue(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "pathways-member"}, DNSNames: []string{"pathways-member"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, name+".pem"), "CERTIFICATE", der)
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, name+".key"), "PRIVATE KEY", kb)
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
