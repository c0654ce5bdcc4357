package main

import (
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/serverflags"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"google.golang.org/grpc"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParse(t *testing.T) {
	c, err := parse([]string{"--node_type=resource_manager", "--instance_type=tpuv5e:4x4", "--instance_count=2", "--gcs_scratch_location=gs://bucket/p", "--enable_gcs_olm=false"}, envOf("TPU_SKIP_MDS_QUERY", "true"), io.Discard)
	if err != nil || !c.isRM() || c.port != 29001 || c.instanceCount != 2 || !c.skipMDS || c.scratch.Bucket != "bucket" {
		t.Errorf("RM: %+v, %v", c, err)
	}
	c, err = parse([]string{"--resource_manager_address=head:29001", "--backend=pjrt:/x.so"}, envOf("MEGASCALE_SLICE_ID", "1", "MEGASCALE_NUM_SLICES", "2", "HOST_ADDRESS", "10.0.0.7"), io.Discard)
	if err != nil || c.isRM() || c.port != 29005 || c.megascale.SliceID != 1 || c.hostAddress != "10.0.0.7" || c.host != -1 {
		t.Errorf("worker: %+v, %v", c, err)
	}
	c, err = parse([]string{"--server_port=29001", "--resource_manager_address=head:29001", "--gcs_scratch_location=/tmp/s"}, envOf("TPU_WORKER_ID", "3"), io.Discard)
	if err != nil || c.port != 29001 || c.backend != "gocpu" || c.host != 3 {
		t.Errorf("worker as in the Cloud docs: %+v, %v", c, err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--node_type=resource_manager", "--instance_type=cpu:4", "--resource_manager_address=h:1"}, nil, "worker flag"},
		{[]string{"--node_type=resource_manager"}, nil, "needs --instance_type"},
		{[]string{"--node_type=resource_manager", "--instance_type=tpuv9:4x4"}, nil, "instance type"},
		{[]string{"--node_type=resource_manager", "--instance_type=cpu:4", "--instance_count=0"}, nil, "at least 1"},
		{[]string{"--node_type=resource_manager", "--instance_type=cpu:4", "--backend=gocpu"}, nil, "worker flag"},
		{[]string{"--node_type=proxy"}, nil, "--node_type"},
		{[]string{}, nil, "needs --resource_manager_address"},
		{[]string{"--resource_manager_address=nohost"}, nil, "host:port"},
		{[]string{"--resource_manager_address=h:1", "--instance_count=2"}, nil, "resource manager flag"},
		{[]string{"--resource_manager_address=h:1", "--backend=cuda"}, nil, "--backend"},
		{[]string{"--resource_manager_address=h:1", "--backend=pjrt:"}, nil, "--backend"},
		{[]string{"--resource_manager_address=h:1", "--gcs_scratch_location=s3://b/x"}, nil, "not supported"},
		{[]string{"--resource_manager_address=h:1", "--enable_gcs_olm"}, nil, "gs://"},
		{[]string{"--resource_manager_address=h:1", "--server_port=70000"}, nil, "not a port"},
		{[]string{"--resource_manager_address=h:1"}, []string{"MEGASCALE_SLICE_ID", "2", "MEGASCALE_NUM_SLICES", "2"}, "MEGASCALE_SLICE_ID"},
		{[]string{"--resource_manager_address=h:1"}, []string{"TPU_SKIP_MDS_QUERY", "maybe"}, "TPU_SKIP_MDS_QUERY"},
		{[]string{"--resource_manager_address=h:1"}, []string{"TPU_WORKER_ID", "x"}, "TPU_WORKER_ID"},
		{[]string{"--resource_manager_address=h:1", "extra"}, nil, "unexpected"},
	} {
		_, err := parse(tc.args, envOf(tc.env...), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want an error saying %q", tc.args, tc.env, err, tc.want)
		}
	}
	if _, err := parse([]string{"--no_such_flag"}, envOf(), io.Discard); err != serverflags.ErrUsage {
		t.Errorf("unknown flag: %v, want serverflags.ErrUsage", err)
	}
}

func TestAdvertised(t *testing.T) {
	lis := fakeAddr("[::]:29005")
	for host, want := range map[string]string{"10.0.0.7": "10.0.0.7:29005", "10.0.0.7:1234": "10.0.0.7:1234", "::1": "[::1]:29005"} {
		if got, err := advertised(host, lis); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", host, got, err, want)
		}
	}
	// Without HOST_ADDRESS, a worker listening on one address
	// (--listen_address) gives that address, not its host name.
	for listen, want := range map[string]string{"127.0.0.1:29005": "127.0.0.1:29005", "[::1]:29006": "[::1]:29006"} {
		if got, err := advertised("", fakeAddr(listen)); err != nil || got != want {
			t.Errorf("listening on %s: %q, %v; want %q", listen, got, err, want)
		}
	}
	if host, err := os.Hostname(); err == nil {
		if got, err := advertised("", lis); err != nil || got != net.JoinHostPort(host, "29005") {
			t.Errorf("listening on every interface: %q, %v; want the host name %q and the port", got, err, host)
		}
	}
}

type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

// TestRunRMAndWorker runs an RM and a gocpu worker in process through run, and
// stops both by cancelling their contexts (as SIGTERM does).
func TestRunRMAndWorker(t *testing.T) {
	ctx := testenv.Context(t, 30*time.Second)
	rm, addr := startRM(ctx, t)
	w, line := startServer(ctx, t, "worker", []string{"--server_port=0", "--resource_manager_address=" + addr}, envOf("HOST_ADDRESS", "127.0.0.1"))
	if !strings.HasPrefix(line, "worker ready on 127.0.0.1:") || !strings.Contains(line, "2 cpu devices") {
		t.Errorf("ready line %q", line)
	}
	w.Stop(t)
	rm.Stop(t)
}

// TestWorkerStopsWhileWaitingForTheRM: a worker whose RM never answers stops
// cleanly when told to.
func TestWorkerStopsWhileWaitingForTheRM(t *testing.T) {
	ctx := testenv.Context(t, 300*time.Millisecond)
	if err := run(ctx, []string{"--server_port=0", "--resource_manager_address=" + testenv.RefusingAddress(t)}, envOf(), io.Discard, io.Discard); err != nil {
		t.Errorf("run: %v, want nil after the stop", err)
	}
}

// TestWorkerPointedAtANonRM: a worker given the address of something that is
// not a resource manager (another worker's port) exits saying so.
func TestWorkerPointedAtANonRM(t *testing.T) {
	ctx := testenv.Context(t, 30*time.Second)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer() // serves no resource manager
	go gs.Serve(lis)
	defer gs.Stop()
	err = run(ctx, []string{"--server_port=0", "--resource_manager_address=" + lis.Addr().String()}, envOf(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "does not serve the resource manager's API") || strings.Contains(err.Error(), "%!") {
		t.Errorf("run against a non-RM: %v, want an error saying it is not a resource manager", err)
	}
}

// TestHelp: --help is a successful request for the usage, which states each
// default once.
func TestHelp(t *testing.T) {
	var usage strings.Builder
	if _, err := parse([]string{"--help"}, envOf(), &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parse(--help) = %v, want flag.ErrHelp (exit 0)", err)
	}
	if u := usage.String(); !strings.Contains(u, "-server_port port") || strings.Contains(u, "(default -1)") || strings.Count(u, "29005") != 1 {
		t.Errorf("usage states --server_port's defaults badly:\n%s", u)
	}
}

func TestParseSecurityAndLimits(t *testing.T) {
	dir := t.TempDir()
	tokenFile := dir + "/token"
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := parse([]string{"--resource_manager_address=h:1", "--cluster_token_file=" + tokenFile, "--listen_address=127.0.0.1",
		"--max_session_host_buffer_bytes=64MiB", "--max_session_live_bytes=none", "--max_sessions=8", "--drain_timeout=3s"}, envOf(), io.Discard)
	if err != nil || c.security.Token != "s3cret" || c.common.ListenAddress != "127.0.0.1" || c.common.DrainTimeout != 3*time.Second {
		t.Fatalf("worker flags: %+v, %v", c, err)
	}
	if l := c.limits.Proxy(); l.MaxSessionHostBufferBytes != 64<<20 || l.MaxSessionLiveBytes != proxyserver.NoLimit || l.MaxSessions != 8 {
		t.Errorf("limits = %+v", l)
	}
	c, err = parse([]string{"--node_type=resource_manager", "--instance_type=cpu:2", "--max_watchers=4"}, envOf("PATHWAYS_CLUSTER_TOKEN", "from-env"), io.Discard)
	if err != nil || c.security.Token != "from-env" || c.maxWatchers != 4 {
		t.Errorf("RM with the token in the environment: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--resource_manager_address=h:1", "--listen_address=127.0.0.1:29005"}, "--server_port"},
		{[]string{"--resource_manager_address=h:1", "--cluster_token_file=" + dir + "/none"}, "cluster token"},
		{[]string{"--resource_manager_address=h:1", "--tls_cert=" + tokenFile}, "mutual TLS"},
		{[]string{"--resource_manager_address=h:1", "--max_sessions=0"}, "positive"},
		{[]string{"--node_type=resource_manager", "--instance_type=cpu:2", "--max_sessions=3"}, "worker flag"},
		{[]string{"--resource_manager_address=h:1", "--max_watchers=3"}, "resource manager flag"},
	} {
		_, err := parse(tc.args, envOf(), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	if _, err := parse([]string{"--resource_manager_address=h:1", "--max_session_live_bytes=lots"}, envOf(), io.Discard); err != serverflags.ErrUsage {
		t.Errorf("a bad size: %v, want serverflags.ErrUsage", err)
	}
}

// TestWorkerWithoutTheTokenCannotRegister: a rogue process registered as a
// slice and received a user's data (issue 11, defect 4).
func TestWorkerWithoutTheTokenCannotRegister(t *testing.T) {
	ctx := testenv.Context(t, 30*time.Second)
	rm, addr := startRM(ctx, t, "PATHWAYS_CLUSTER_TOKEN", "s3cret")
	defer rm.Stop(t)
	err := run(ctx, []string{"--server_port=0", "--resource_manager_address=" + addr}, envOf("HOST_ADDRESS", "127.0.0.1"), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cluster token") {
		t.Errorf("a worker without the token: %v, want it refused for the cluster token", err)
	}
	w, line := startServer(ctx, t, "a worker with the token", []string{"--server_port=0", "--listen_address=127.0.0.1", "--resource_manager_address=" + addr}, envOf("HOST_ADDRESS", "127.0.0.1", "PATHWAYS_CLUSTER_TOKEN", "s3cret"))
	if !strings.HasPrefix(line, "worker ready on 127.0.0.1:") {
		t.Errorf("ready line %q", line)
	}
	w.Stop(t)
}
