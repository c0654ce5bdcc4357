package worker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// Workers of one host (on Linux) pass exchange frames and array chunks
// through shared memory: the sender copies a frame's bytes into one of its
// segments (files of /dev/shm that
// it maps, created on first need and kept until it stops) and sends only
// where they are (workerpb.SharedRegion); the receiver maps the segment too
// and folds or copies the bytes straight out of it. One copy in the sender,
// none in the kernel or the transport. A segment's first 8 bytes hold the
// generation of its current use, 0 when free; the receiver frees it by
// swapping its generation for 0, so a late release of an older use cannot
// free a newer one. Whether a peer can map this worker's segments is asked
// once per peer (Peer.ProbeSharedMemory); a peer on another host, in another
// container without the same /dev/shm, or an older one, gets the bytes over
// the connection as before. PATHWAYS_PEER_SHARED_MEMORY=off turns it off.
// A worker holds a shared lock on each of its segments' files while it
// lives; a worker that died without removing them (kill -9) leaves them
// unlocked, and the next worker of the host to make a segment removes them
// (removeAbandoned).

const (
	// segmentHeader is where a segment's bytes start: the generation, then
	// the token that Peer.ProbeSharedMemory checks.
	segmentHeader = 4096
	tokenOffset   = 64
	tokenSize     = 16
	// segmentData is the most bytes one segment (one frame) holds.
	segmentData = 4 << 20
	// maxMapped bounds the peers' segments this worker keeps mapped.
	maxMapped = 256
)

// pendingSuffix ends a segment's name while it is being made: it gets its
// own name once allocated, mapped and locked.
const pendingSuffix = ".new"

// maxSegments bounds this worker's segments (128 MiB); a variable for tests
// of a full pool.
var maxSegments = 32

// segmentName is the form of every segment's name: peers name no other file.
var segmentName = regexp.MustCompile(`^openpathways-peer-[0-9a-f]{32}$`)

// sharedMemory is a worker's segments and its mappings of its peers'.
type sharedMemory struct {
	dir string // "" when turned off

	// copying is held (shared) while a sender writes into a segment, so that
	// close does not unmap it under the writer.
	copying sync.RWMutex

	mu     sync.Mutex
	failed bool // a segment could not be made: send over the connection
	swept  bool // removeAbandoned ran
	own    []*segment
	gen    uint64
	probed map[string]probed       // by peer address
	mapped map[string]*peerMapping // peers' segments, by name
	token  [tokenSize]byte
	closed bool
}

// probed is what Peer.ProbeSharedMemory told of a peer.
type probed struct {
	mapsMine   bool // the peer maps this worker's segments
	mapsTheirs bool // this worker maps the peer's
}

type segment struct {
	name  string
	mem   []byte
	file  *os.File  // open while the worker lives: its lock says the segment is in use
	taken time.Time // when its current use began; guarded by sharedMemory.mu
}

type peerMapping struct {
	mem  []byte
	refs int
}

func newSharedMemory() *sharedMemory {
	sm := &sharedMemory{probed: map[string]probed{}, mapped: map[string]*peerMapping{}}
	if sharedMemorySupported && os.Getenv("PATHWAYS_PEER_SHARED_MEMORY") != "off" {
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			sm.dir = "/dev/shm"
		}
	}
	_, _ = rand.Read(sm.token[:])
	return sm
}

func generation(mem []byte) *atomic.Uint64 { return (*atomic.Uint64)(unsafe.Pointer(&mem[0])) }

// create makes a new segment of this worker. sm.mu is held.
func (sm *sharedMemory) create() (*segment, error) {
	if !sm.swept {
		sm.swept = true
		removeAbandoned(sm.dir)
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	name := "openpathways-peer-" + hex.EncodeToString(id[:])
	path := filepath.Join(sm.dir, name)
	// Made under a pending name, locked, then renamed: another worker's
	// removeAbandoned takes a pending name only once it is old, so it never
	// removes one whose maker has yet to lock it.
	f, err := os.OpenFile(path+pendingSuffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	s, err := sm.prepare(f, path)
	if err != nil {
		f.Close()
		os.Remove(path + pendingSuffix)
		return nil, err
	}
	s.name = name
	sm.own = append(sm.own, s)
	return s, nil
}

// prepare allocates, maps and locks a new segment's file and gives it its
// name.
func (sm *sharedMemory) prepare(f *os.File, path string) (*segment, error) {
	if err := holdSegment(f); err != nil {
		return nil, err
	}
	// Allocated now, not on first write: a full tmpfs (Docker's /dev/shm is
	// 64 MiB) fails here instead of killing the writer with SIGBUS later.
	mem, err := mapFile(f, segmentHeader+segmentData, true)
	if err != nil {
		return nil, err
	}
	copy(mem[tokenOffset:], sm.token[:])
	if err := os.Rename(f.Name(), path); err != nil {
		_ = unmapFile(mem)
		return nil, err
	}
	return &segment{mem: mem, file: f}, nil
}

// offer returns a segment of this worker for a probe, making one if none
// exists; nil when it cannot. sm.mu is held.
func (sm *sharedMemory) offer(log func(error)) *workerpb.SharedMemoryProbe {
	if sm.dir == "" || sm.closed || sm.failed {
		return nil
	}
	if len(sm.own) == 0 {
		if _, err := sm.create(); err != nil {
			log(err)
			sm.failed = true
			return nil
		}
	}
	return &workerpb.SharedMemoryProbe{Segment: sm.own[0].name, Token: sm.token[:]}
}

// probe tells whether the worker at addr and this one map each other's
// segments, asking it the first time.
func (sm *sharedMemory) probe(ctx context.Context, p *peer, addr string) probed {
	if sm.dir == "" {
		return probed{}
	}
	sm.mu.Lock()
	known, ok := sm.probed[addr]
	var offer *workerpb.SharedMemoryProbe
	if !ok {
		offer = sm.offer(func(err error) { p.w.log.Debug("no shared memory for peers", "error", err) })
	}
	sm.mu.Unlock()
	if ok || offer == nil {
		return known
	}
	conn, err := p.conn(addr)
	if err != nil {
		return probed{}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := workerpb.NewPeerClient(conn).ProbeSharedMemory(ctx, offer)
	if err != nil && ctx.Err() != nil {
		return probed{} // ask again next time
	}
	known = probed{mapsMine: err == nil && res.GetReadable(),
		mapsTheirs: err == nil && sm.readable(&workerpb.SharedMemoryProbe{Segment: res.GetSegment(), Token: res.GetToken()})}
	sm.mu.Lock()
	sm.probed[addr] = known
	sm.mu.Unlock()
	return known
}

// forget drops what the probe of addr told, after a failed call to it: the
// worker there may be another one now (restarted, on another host).
func (sm *sharedMemory) forget(addr string) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	delete(sm.probed, addr)
}

// take copies data (at most segmentData bytes) into a free segment and
// returns where it is, or nil when every segment is in use: the caller then
// sends data over the connection. A sender never waits for a receiver to
// free a segment, so that pairs whose receivers read in some order cannot
// block each other through the shared pool.
func (sm *sharedMemory) take(data []byte) *workerpb.SharedRegion {
	sm.copying.RLock()
	defer sm.copying.RUnlock()
	sm.mu.Lock()
	if sm.closed || sm.dir == "" {
		sm.mu.Unlock()
		return nil
	}
	now := time.Now()
	var free *segment
	for _, s := range sm.own {
		g := generation(s.mem)
		old := g.Load()
		// A use that no receiver ended for this long belongs to a launch
		// that failed on the receiver's side.
		if old == 0 || now.Sub(s.taken) > orphanTimeout && g.CompareAndSwap(old, 0) {
			free = s
			break
		}
	}
	if free == nil && len(sm.own) < maxSegments && !sm.failed {
		var err error
		if free, err = sm.create(); err != nil {
			sm.failed = true
		}
	}
	if free == nil {
		sm.mu.Unlock()
		return nil
	}
	sm.gen++
	gen := sm.gen
	generation(free.mem).Store(gen)
	free.taken = now
	sm.mu.Unlock()
	copy(free.mem[segmentHeader:], data)
	return &workerpb.SharedRegion{Segment: free.name, Generation: gen, Length: int64(len(data))}
}

// untake frees the segment of a region that was never sent.
func (sm *sharedMemory) untake(r *workerpb.SharedRegion) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	for _, s := range sm.own {
		if s.name == r.GetSegment() {
			generation(s.mem).CompareAndSwap(r.GetGeneration(), 0)
		}
	}
}

// view maps a peer's segment and returns the bytes of region, and a
// function that frees the use and the mapping; free reports whether the
// bytes stayed the region's while they were read.
func (sm *sharedMemory) view(r *workerpb.SharedRegion) ([]byte, func() error, error) {
	name := r.GetSegment()
	if !segmentName.MatchString(name) || r.GetLength() < 0 || r.GetLength() > segmentData || r.GetGeneration() == 0 {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: invalid shared region %q (%d bytes)", rpc.ValidUTF8(name), r.GetLength())
	}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.closed {
		return nil, nil, ifrt.Errorf(ifrt.Unavailable, "worker: the worker is stopping")
	}
	m := sm.mapped[name]
	if m == nil {
		if len(sm.mapped) >= maxMapped {
			sm.unmapIdle()
		}
		mem, err := mapPeerSegment(filepath.Join(sm.dir, name))
		if err != nil {
			return nil, nil, ifrt.Errorf(ifrt.DataLoss, "worker: the sender's shared segment %s: %v", name, err)
		}
		m = &peerMapping{mem: mem}
		sm.mapped[name] = m
	}
	gen := generation(m.mem)
	if gen.Load() != r.GetGeneration() {
		return nil, nil, ifrt.Errorf(ifrt.DataLoss, "worker: the sender's shared segment %s was reused before it was read", name)
	}
	m.refs++
	done := func() error {
		freed := gen.CompareAndSwap(r.GetGeneration(), 0)
		sm.mu.Lock()
		m.refs--
		sm.mu.Unlock()
		if !freed {
			return ifrt.Errorf(ifrt.DataLoss, "worker: the sender's shared segment %s was reused while it was read", name)
		}
		return nil
	}
	return m.mem[segmentHeader : segmentHeader+r.GetLength()], done, nil
}

// unmapIdle drops the mappings not in use. sm.mu is held.
func (sm *sharedMemory) unmapIdle() {
	for name, m := range sm.mapped {
		if m.refs == 0 {
			_ = unmapFile(m.mem)
			delete(sm.mapped, name)
		}
	}
}

func mapPeerSegment(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() != segmentHeader+segmentData {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "not a segment (%d bytes)", st.Size())
	}
	return mapFile(f, segmentHeader+segmentData, false)
}

// answer answers Peer.ProbeSharedMemory.
func (sm *sharedMemory) answer(probe *workerpb.SharedMemoryProbe, log func(error)) *workerpb.SharedMemoryProbeResult {
	res := &workerpb.SharedMemoryProbeResult{Readable: sm.readable(probe)}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if offer := sm.offer(log); offer != nil {
		res.Segment, res.Token = offer.GetSegment(), offer.GetToken()
	}
	return res
}

// readable tells whether probe names a segment this worker can map.
func (sm *sharedMemory) readable(probe *workerpb.SharedMemoryProbe) bool {
	if sm.dir == "" || !segmentName.MatchString(probe.GetSegment()) || len(probe.GetToken()) != tokenSize {
		return false
	}
	f, err := os.Open(filepath.Join(sm.dir, probe.GetSegment()))
	if err != nil {
		return false
	}
	defer f.Close()
	var token [tokenSize]byte
	if _, err := f.ReadAt(token[:], tokenOffset); err != nil {
		return false
	}
	return bytes.Equal(token[:], probe.GetToken())
}

// close unmaps everything not in use and removes this worker's segments.
func (sm *sharedMemory) close() {
	sm.copying.Lock()
	defer sm.copying.Unlock()
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.closed {
		return
	}
	sm.closed = true
	for _, s := range sm.own {
		_ = unmapFile(s.mem)
		_ = os.Remove(filepath.Join(sm.dir, s.name))
		_ = s.file.Close()
	}
	sm.own = nil
	sm.unmapIdle()
}
