package sidecar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// Defaults of the Config fields left zero.
const (
	DefaultDevices      = 8
	DefaultStartTimeout = 2 * time.Minute
	DefaultRestartDelay = 200 * time.Millisecond
)

// Config says how to run a sidecar.
type Config struct {
	// Command starts the sidecar: an interpreter and the script, e.g.
	// {".venv/bin/python", "sidecar/python/pathways_sidecar.py"}; "--socket
	// PATH --devices N" are appended. Required.
	Command []string
	// Env is added to the worker's environment for the sidecar.
	Env []string
	// Devices is the number of local CPU devices that stand in for the CPU
	// devices a program names (pickled shardings refer to them). Default
	// DefaultDevices.
	Devices int
	// Dir holds the socket and the files that carry array bytes. Default
	// /dev/shm where it is a writable directory (shared memory), else
	// os.TempDir().
	Dir string
	// StartTimeout bounds a start: the process connecting and answering hello
	// (it imports JAX first). Default DefaultStartTimeout.
	StartTimeout time.Duration
	// RestartDelay is the pause before a sidecar that died is started again.
	// Default DefaultRestartDelay.
	RestartDelay time.Duration
	// Logger receives starts, restarts and deaths. Default slog.Default().
	Logger *slog.Logger
}

// Process is a supervised sidecar: started by Start, started again whenever it
// dies until Close. Requests wait while it (re)starts; a request in flight
// when it dies fails with DATA_LOSS, and programs are loaded again in the new
// process on their next call (the state they kept is gone). A Process is safe
// for concurrent use; requests reach the sidecar one at a time.
type Process struct {
	cfg   Config
	log   *slog.Logger
	dir   string
	lis   *net.UnixListener
	files atomic.Uint64
	done  chan struct{} // closed by Close

	// xmu serializes requests: the sidecar serves one at a time.
	xmu    sync.Mutex
	nextID uint64 // guarded by xmu

	// mu guards the fields below.
	mu       sync.Mutex
	conn     net.Conn
	r        *bufio.Reader
	gen      uint64        // counts starts; the current process's
	up       chan struct{} // closed once the current start is connected
	isUp     bool          // up is closed
	versions Versions
	pid      int
	loaded   map[programKey]uint64 // the generation each program was loaded in
	closed   bool
}

type programKey struct {
	session string
	program uint64
}

// Start starts the sidecar and waits until it answers (or ctx ends); it
// supervises it from then on.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if len(cfg.Command) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: Config.Command is required")
	}
	if cfg.Devices == 0 {
		cfg.Devices = DefaultDevices
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.RestartDelay == 0 {
		cfg.RestartDelay = DefaultRestartDelay
	}
	if cfg.Devices < 0 || cfg.StartTimeout < 0 || cfg.RestartDelay < 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: Config.Devices, StartTimeout and RestartDelay must not be negative")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	base := cfg.Dir
	if base == "" {
		base = sharedMemoryDir()
	}
	dir, err := os.MkdirTemp(base, "pathways-sidecar-")
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "sidecar: %v", err)
	}
	lis, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "socket"), Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, ifrt.Errorf(ifrt.Internal, "sidecar: %v", err)
	}
	p := &Process{
		cfg: cfg, log: log, dir: dir, lis: lis, done: make(chan struct{}),
		up: make(chan struct{}), loaded: map[programKey]uint64{},
	}
	first := make(chan error, 1)
	go p.supervise(first)
	select {
	case err = <-first:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		p.Close()
		return nil, ifrt.Errorf(ifrt.Unavailable, "sidecar: did not start: %v", err)
	}
	return p, nil
}

// sharedMemoryDir is /dev/shm where the platform has it writable, else the
// temporary directory.
func sharedMemoryDir() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", ".probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

// supervise starts the sidecar, waits for it to exit and starts it again,
// until Close. The first start's result goes to first.
// A start that fails waits twice as long as the one before, up to
// maxRestartDelay.
func (p *Process) supervise(first chan<- error) {
	delay := p.cfg.RestartDelay
	for started := false; ; started = true {
		exited, err := p.start()
		if !started {
			first <- err
			if err != nil {
				return
			}
		}
		if err == nil {
			p.lose(<-exited)
			delay = p.cfg.RestartDelay
		} else {
			p.log.Warn("start failed", "error", err, "retry_in", delay)
		}
		select {
		case <-p.done:
			return
		case <-time.After(delay):
		}
		if err != nil {
			delay = min(2*delay, max(maxRestartDelay, p.cfg.RestartDelay))
		}
		p.log.Info("restarting")
	}
}

// maxRestartDelay bounds the wait between failing starts.
const maxRestartDelay = 30 * time.Second

// notifyTimeout bounds how long a request whose reply says nothing (unload,
// end_session) waits for a sidecar that is restarting.
const notifyTimeout = 10 * time.Second

// start runs the command and waits for it to connect and say hello. The
// channel receives why the process exited, once it has.
func (p *Process) start() (<-chan error, error) {
	args := append(append([]string{}, p.cfg.Command[1:]...),
		"--socket", p.lis.Addr().String(), "--devices", strconv.Itoa(p.cfg.Devices))
	cmd := exec.Command(p.cfg.Command[0], args...)
	cmd.Env = append(os.Environ(), p.cfg.Env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		exited <- fmt.Errorf("the sidecar (pid %d) exited: %v", pid, err)
	}()
	fail := func(err error) (<-chan error, error) {
		cmd.Process.Kill()
		if exitErr := <-exited; exitErr != nil {
			p.log.Debug("sidecar stopped after a failed start", "error", exitErr)
		}
		return nil, err
	}
	type accepted struct {
		conn net.Conn
		err  error
	}
	acc := make(chan accepted, 1)
	p.lis.SetDeadline(time.Now().Add(p.cfg.StartTimeout))
	go func() {
		conn, err := p.lis.Accept()
		acc <- accepted{conn, err}
	}()
	var conn net.Conn
	select {
	case a := <-acc:
		if a.err != nil {
			return fail(fmt.Errorf("waiting for the sidecar to connect: %v", a.err))
		}
		conn = a.conn
	case err := <-exited:
		p.lis.SetDeadline(time.Now()) // ends the Accept
		if a := <-acc; a.conn != nil {
			a.conn.Close()
		}
		return nil, err
	}
	r := bufio.NewReader(conn)
	conn.SetDeadline(time.Now().Add(p.cfg.StartTimeout))
	err := writeFrame(conn, &request{Op: "hello"}, nil)
	var rep *reply
	if err == nil {
		rep, err = readReply(r)
	}
	conn.SetDeadline(time.Time{})
	if err == nil && rep.Protocol != ProtocolVersion {
		err = fmt.Errorf("the sidecar speaks protocol %d, this worker %d", rep.Protocol, ProtocolVersion)
	}
	if err != nil {
		conn.Close()
		return fail(fmt.Errorf("hello: %v", err))
	}
	p.mu.Lock()
	p.conn, p.r, p.versions, p.pid = conn, r, rep.Versions, pid
	p.gen++
	close(p.up)
	p.isUp = true
	p.mu.Unlock()
	p.log.Info("started", "pid", pid, "python", rep.Python, "jax", rep.JAX, "cloudpickle", rep.Cloudpickle)
	return exited, nil
}

// lose forgets the connection to a sidecar that died.
func (p *Process) lose(why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down()
	if !p.closed {
		p.log.Warn("lost", "error", why)
	}
}

// down drops the connection; requests wait for the next start. p.mu is held.
func (p *Process) down() {
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	if p.isUp {
		p.up, p.isUp = make(chan struct{}), false
	}
}

// Versions reports what the running sidecar runs with.
func (p *Process) Versions() Versions {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.versions
}

// PID is the running sidecar's process id, or 0 while none runs.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return 0
	}
	return p.pid
}

// Close stops the sidecar and supervising it; requests fail from then on. It
// is idempotent.
func (p *Process) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	if p.conn != nil {
		// The sidecar exits when its connection closes.
		p.conn.Close()
	}
	p.mu.Unlock()
	p.lis.Close()
	os.RemoveAll(p.dir)
	return nil
}

// errClosed is the error of requests after Close.
var errClosed = ifrt.Errorf(ifrt.Unavailable, "sidecar: closed")

// exchange sends one request and reads its reply, waiting first for a
// running sidecar; load, when not nil, is sent before it if the program is
// not loaded in the current process. A sidecar lost in the middle is
// DATA_LOSS.
func (p *Process) exchange(ctx context.Context, req *request, payload []byte, load *loadRequest) (*reply, error) {
	p.xmu.Lock()
	defer p.xmu.Unlock()
	var l link
	for {
		p.mu.Lock()
		closed, up := p.closed, p.up
		l = link{conn: p.conn, r: p.r, gen: p.gen, pid: p.pid}
		p.mu.Unlock()
		if closed {
			return nil, errClosed
		}
		if l.conn != nil {
			break
		}
		select {
		case <-up:
		case <-p.done:
			return nil, errClosed
		case <-ctx.Done():
			return nil, ifrt.Errorf(ifrt.Unavailable, "sidecar: waiting for it to restart: %v", ctx.Err())
		}
	}
	if load != nil {
		p.mu.Lock()
		loaded := p.loaded[load.key] == l.gen
		p.mu.Unlock()
		if !loaded {
			rep, err := p.roundTrip(l, &request{Op: "load", Session: load.key.session, Program: load.key.program}, load.pickle)
			if err != nil {
				return nil, err
			}
			if err := replyError(rep); err != nil {
				return nil, ifrt.WithCode(ifrt.InvalidArgument, fmt.Errorf("sidecar: loading the function: %w", err))
			}
			p.mu.Lock()
			p.loaded[load.key] = l.gen
			p.mu.Unlock()
		}
	}
	return p.roundTrip(l, req, payload)
}

// link is one started sidecar's connection.
type link struct {
	conn net.Conn
	r    *bufio.Reader
	gen  uint64
	pid  int
}

type loadRequest struct {
	key    programKey
	pickle []byte
}

// roundTrip writes req and reads its reply; p.xmu is held.
func (p *Process) roundTrip(l link, req *request, payload []byte) (*reply, error) {
	p.nextID++
	req.ID = p.nextID
	err := writeFrame(l.conn, req, payload)
	var rep *reply
	if err == nil {
		rep, err = readReply(l.r)
	}
	if err == nil && rep.ID != req.ID {
		err = fmt.Errorf("reply %d to request %d", rep.ID, req.ID)
	}
	if err != nil {
		// The process is dying or dead; supervise starts the next one.
		p.mu.Lock()
		if p.gen == l.gen {
			p.down()
		}
		p.mu.Unlock()
		return nil, ifrt.Errorf(ifrt.DataLoss, "sidecar (pid %d) was lost during %s: %v", l.pid, req.Op, err)
	}
	return rep, nil
}

// replyError is the failure a reply reports, if any.
func replyError(rep *reply) error {
	if rep.Error != nil {
		return rep.Error
	}
	if rep.ProtocolError != "" {
		return ifrt.Errorf(ifrt.Internal, "sidecar: protocol error: %s", rep.ProtocolError)
	}
	return nil
}

// EndSession frees what the session held in the sidecar: its programs and the
// objects they made. A sidecar that is not running holds nothing to free.
func (p *Process) EndSession(session string) {
	p.forget(func(k programKey) bool { return k.session == session })
	p.notify(&request{Op: "end_session", Session: session})
}

// Unload frees a program in every session that loaded it.
func (p *Process) Unload(program uint64) {
	for _, k := range p.forget(func(k programKey) bool { return k.program == program }) {
		p.notify(&request{Op: "unload", Session: k.session, Program: program})
	}
}

// forget drops the programs that match from the loaded ones and returns them.
func (p *Process) forget(match func(programKey) bool) []programKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	var gone []programKey
	for k := range p.loaded {
		if match(k) {
			delete(p.loaded, k)
			gone = append(gone, k)
		}
	}
	return gone
}

// Sessions reports what each session holds in the running sidecar.
func (p *Process) Sessions(ctx context.Context) (map[string]SessionStats, error) {
	rep, err := p.exchange(ctx, &request{Op: "stats"}, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := replyError(rep); err != nil {
		return nil, err
	}
	return rep.Sessions, nil
}

// notify sends a request whose reply says nothing, if a sidecar is running.
func (p *Process) notify(req *request) {
	p.mu.Lock()
	running := p.conn != nil && !p.closed
	p.mu.Unlock()
	if !running {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if _, err := p.exchange(ctx, req, nil, nil); err != nil && !errors.Is(err, errClosed) {
		p.log.Debug(""+req.Op, "error", err)
	}
}

// tempPath names a new file for array bytes.
func (p *Process) tempPath(what string) string {
	return filepath.Join(p.dir, fmt.Sprintf("%d.%s", p.files.Add(1), what))
}
