package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// The hostile-client suite of issue 11: the binaries (an RM, two workers and a
// proxy server, each a process on loopback, with a cluster token and limits)
// are attacked with raw gRPC. Each attack must get a clear status, leave every
// process alive and the next legitimate client served; afterwards a stock JAX
// client runs, and no process's peak RSS passed rssBound (the attacks ask for
// terabytes).

// rssBound bounds the peak resident memory (VmHWM) of every process of the
// cluster under the suite. The proxy may hold up to its max_host_buffer_bytes
// (256 MiB here) of host buffers; workers on the PJRT plugin start near 200 MiB.
const rssBound = 1 << 30

// hostileCluster is the cluster under attack.
type hostileCluster struct {
	t         *testing.T
	ctx       context.Context
	token     string
	rm        *proc
	rmAddr    string
	workers   []*proc
	wAddrs    []string
	proxy     *proc
	proxyAddr string
	jit       bool // the workers run a PJRT plugin: JAX programs compile
}

// backendForHostile is the workers' backend: the PJRT CPU plugin when it is
// here and cgo is on (compiles run the plugin, whose errors the attacks
// provoke), else gocpu.
func backendForHostile(t *testing.T) (string, bool) {
	path, found := testenv.LammpsPlugin.Lookup()
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if !found || err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Logf("workers run gocpu (no PJRT plugin at %s, or no cgo): JAX programs are not compiled", path)
		return "gocpu", false
	}
	return "pjrt:" + path, true
}

func startHostileCluster(t *testing.T, ctx context.Context) *hostileCluster {
	t.Helper()
	dir := t.TempDir()
	server := build(t, dir, "./examples/server")
	proxyServer := build(t, dir, "./examples/proxy_server")
	h := &hostileCluster{t: t, ctx: ctx, token: "hostile-suite-token"}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(h.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	member := []string{"PATHWAYS_CLUSTER_TOKEN_FILE=" + tokenFile, "HOST_ADDRESS=127.0.0.1"}
	h.rm = start(t, "rm", server, member, "--node_type=resource_manager", "--server_port=0", "--listen_address=127.0.0.1",
		"--instance_type=cpu:4", "--instance_count=2", "--max_watchers=16")
	h.rmAddr = h.rm.ready(t, ctx, "resource manager ready")
	backend, jit := backendForHostile(t)
	h.jit = jit
	for slice := range 2 {
		w := start(t, fmt.Sprintf("worker%d", slice), server,
			append([]string{"MEGASCALE_NUM_SLICES=2", fmt.Sprintf("MEGASCALE_SLICE_ID=%d", slice)}, member...),
			"--server_port=0", "--listen_address=127.0.0.1", "--resource_manager_address="+h.rmAddr, "--backend="+backend,
			"--keepalive_interval=1s", "--keepalive_timeout=3s")
		line := w.readyLine(t, ctx, "worker ready")
		h.workers = append(h.workers, w)
		h.wAddrs = append(h.wAddrs, strings.Fields(strings.TrimPrefix(line, "worker ready on "))[0])
	}
	h.proxy = start(t, "proxy", proxyServer, member, "--server_port=0", "--listen_address=127.0.0.1", "--resource_manager_address="+h.rmAddr,
		"--max_sessions=8", "--max_session_host_buffer_bytes=64MiB", "--max_host_buffer_bytes=256MiB", "--max_message_bytes=16MiB",
		"--max_inflight_uploads=16", "--keepalive_interval=1s", "--keepalive_timeout=3s", "--drain_timeout=60s")
	h.proxyAddr = h.proxy.ready(t, ctx, "IFRT proxy server started with status OK")
	return h
}

// readyLine waits for the line of p's output containing prefix and returns it.
func (p *proc) readyLine(t *testing.T, ctx context.Context, prefix string) string {
	t.Helper()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("%s exited before it was ready: %v\n%s", p.name, p.err, testenv.LastLines(p.logs.String(), 30))
			}
			if strings.Contains(line, prefix) {
				return line
			}
		case <-ctx.Done():
			t.Fatalf("%s was not ready in time:\n%s", p.name, testenv.LastLines(p.logs.String(), 30))
		}
	}
}

// alive fails t if a process of the cluster has exited, and checks that a new
// legitimate client is served: a session on the proxy puts an array on each
// slice and reads it back.
func (h *hostileCluster) alive(t *testing.T) {
	t.Helper()
	for _, p := range append([]*proc{h.rm, h.proxy}, h.workers...) {
		select {
		case <-p.done:
			t.Fatalf("%s died: %v\n%s", p.name, p.err, testenv.LastLines(p.logs.String(), 30))
		default:
		}
	}
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	defer s.close()
	for _, dev := range []int32{0, 4} {
		data := f32s(float32(dev), 1, 2, 3)
		if err := s.store(h.ctx, s.client, 1000+uint64(dev), data, int64(len(data))); err != nil {
			t.Fatalf("a legitimate client's upload: %v", err)
		}
		if _, st := s.callStatus(makeArray(1000+uint64(dev), 1000+uint64(dev), dev, 4)); st.Code() != codes.OK {
			t.Fatalf("a legitimate client's array on device %d: %v", dev, st.Err())
		}
		if _, st := s.callStatus(copyToHost(1000+uint64(dev), 2000+uint64(dev), nil)); st.Code() != codes.OK {
			t.Fatalf("a legitimate client's read on device %d: %v", dev, st.Err())
		}
		back, err := lookup(h.ctx, s.client, s.id, 2000+uint64(dev))
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("a legitimate client's read on device %d = %v, %v", dev, back, err)
		}
	}
}

// peakRSS returns the peak resident memory of each process (Linux).
func (h *hostileCluster) peakRSS(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, p := range append([]*proc{h.rm, h.proxy}, h.workers...) {
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				out[p.name] = kb << 10
			}
		}
		f.Close()
	}
	return out
}

// want checks that an attack got the status code want with a message that
// says what (when what is set).
func want(t *testing.T, attack string, st *status.Status, code codes.Code, what string) {
	t.Helper()
	if st.Code() != code || !strings.Contains(st.Message(), what) {
		t.Errorf("%s: %v %q, want %v saying %q", attack, st.Code(), st.Message(), code, what)
	} else {
		t.Logf("%s: %v: %s", attack, st.Code(), firstLine(st.Message()))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestHostileClients(t *testing.T) {
	skipShort(t)
	ctx := testenv.Context(t, 10*time.Minute)
	h := startHostileCluster(t, ctx)
	h.alive(t)
	for _, a := range []struct {
		name string
		run  func(t *testing.T, h *hostileCluster)
	}{
		{"proxy/strides", attackStrides},
		{"proxy/huge_shards", attackHugeShards},
		{"proxy/uploads", attackUploads},
		{"proxy/unused_buffers", attackUnusedBuffers},
		{"proxy/sessions", attackSessions},
		{"proxy/other_sessions", attackOtherSessions},
		{"proxy/bad_programs", attackBadPrograms},
		{"proxy/garbage", attackGarbage},
		{"proxy/unread_responses", attackUnreadResponses},
		{"proxy/vanished_client", attackVanishedClient},
		{"worker/no_token", attackWorkerWithoutToken},
		{"worker/peer", attackPeer},
		{"rm", attackRM},
	} {
		t.Run(a.name, func(t *testing.T) {
			a.run(t, h)
			h.alive(t)
		})
	}
	t.Run("stock_jax_after", func(t *testing.T) { runJAXAfter(t, h) })
	rss := h.peakRSS(t)
	for name, n := range rss {
		t.Logf("peak RSS of %s under the suite: %d MiB", name, n>>20)
		if n > rssBound {
			t.Errorf("%s's peak RSS %d MiB is over the %d MiB bound", name, n>>20, rssBound>>20)
		}
	}
	t.Run("proxy/sigterm_during_upload", func(t *testing.T) { drainProxy(t, h) })
	t.Run("worker/frozen_with_rm_down", func(t *testing.T) { frozenWorker(t, h) })
}

func runJAXAfter(t *testing.T, h *hostileCluster) {
	python := testenv.Python(t)
	_, port, _ := strings.Cut(h.proxyAddr, ":")
	c := &procCluster{t: t, ctx: h.ctx, proxyPort: port}
	if h.jit {
		t.Setenv("HOSTILE_JIT", "1")
	}
	out, _ := c.runJAX(python, "after_attacks.py", func(string) {})
	check := checker(t, out)
	check("devices", "8")
	check("per_slice", `{"0": true, "1": true}`)
	check("across", "true")
	check("view", "true")
	if h.jit {
		check("jit", `{"0": true, "1": true}`)
	}
	check("done", "true")
}

// drainProxy sends SIGTERM to the proxy while an upload is half done: the
// upload, and the array waiting for it, finish; then the proxy exits cleanly.
func drainProxy(t *testing.T, h *hostileCluster) {
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	data := f32s(make([]float32, 4<<20)...) // 16 MiB
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: 7, BufferSize: int64(len(data))})
	up, err := s.client.HostBufferStore(metadataCtx(h.ctx, hostBufferMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[:len(data)/2]}); err != nil {
		t.Fatal(err)
	}
	if md, _ := up.Header(); md == nil {
		t.Fatal("the upload was not taken")
	}
	s.nextOp++
	makeOp := s.nextOp
	req := makeArray(7, 7, 4, 4<<20)
	req.RequestMetadata = &proxypb.RequestMetadata{OpId: makeOp}
	if err := s.stream.Send(req); err != nil {
		t.Fatal(err)
	}
	h.proxy.cmd.Process.Signal(syscall.SIGTERM)
	for !strings.Contains(h.proxy.logs.String(), "draining") {
		select {
		case <-h.proxy.done:
			t.Fatalf("the proxy exited before draining: %v", h.proxy.err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := up.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[len(data)/2:]}); err != nil {
		t.Fatalf("the rest of the upload: %v", err)
	}
	if _, err := up.CloseAndRecv(); err != nil {
		t.Fatalf("the upload in flight at SIGTERM: %v", err)
	}
	resp, err := s.stream.Recv()
	if err != nil || resp.GetResponseMetadata().GetOpId() != makeOp || resp.GetResponseMetadata().GetStatus().GetCode() != 0 {
		t.Fatalf("the array waiting for the upload: %v, %v", resp, err)
	}
	select {
	case <-h.proxy.done:
		if h.proxy.err != nil {
			t.Errorf("the proxy did not exit cleanly: %v", h.proxy.err)
		}
	case <-h.ctx.Done():
		t.Fatal("the proxy did not exit after draining")
	}
}
