package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker/workerpb"
)

// Client is an ifrt.Client over a whole cluster: every device of every slice that the
// resource manager knows, whichever worker holds it. It is safe for concurrent use.
//
// Arrays are kept as one single-device array per shard, each on the worker that owns
// the shard's device. Moving data between workers (copies, reshards) is done by the
// workers themselves; the client only says what goes where.
type Client struct {
	ifrt.UnimplementedClient

	log      *slog.Logger
	rm       *rm.Client
	dialOpts []grpc.DialOption // credentials and keepalive first
	probe    rpc.Keepalive     // how often each worker must answer
	platform ifrt.Platform

	devices ifrt.DeviceList
	byID    map[ifrt.DeviceID]*placement
	links   map[hostKey]*link

	elastic   *elasticPolicy // nil: any number of slices may be lost
	failure   *failure       // see Err
	suspend   suspendState   // suspend.go
	launchers launchStreams  // gang_stream.go

	closed    atomic.Bool
	stopWatch context.CancelFunc
	watchDone chan struct{}
	watching  chan struct{}  // closed once the watch applied its first snapshot
	dials     sync.WaitGroup // dialInBackground's; Close waits for them
	// redials counts the links' redial loops, which Close ends and waits
	// for; redialMu orders their start against Close (trackRedial).
	redials  sync.WaitGroup
	redialMu sync.Mutex
}

var _ ifrt.Client = (*Client)(nil)

type hostKey struct{ slice, host int }

// placement is where a global device lives: a host (its link) and the device's index
// among that worker's devices.
type placement struct {
	device *ifrt.Device
	link   *link
	local  int
}

// session is the session of p's worker (see link.session) and p's device
// in it.
func (p *placement) session() (*proxy.Client, workerpb.PeerClient, uint64, *ifrt.Device, error) {
	client, peer, gen, err := p.link.session()
	if err != nil {
		return nil, nil, 0, nil, err
	}
	dev, err := p.link.localDevice(client, p.local)
	return client, peer, gen, dev, err
}

// link is the client's connection to the worker of one host. When the worker is
// lost, the link's generation moves on and every shard made under an older
// generation is gone (DATA_LOSS); when a worker registers for the host again, the
// link dials it and works again with the same device ids.
type link struct {
	key hostKey
	log *slog.Logger
	c   *Client

	redialing atomic.Bool // a redial loop runs (see redial)
	// stopRedial ends the redial loop and stopDial the watch's dial in the
	// background; the RM's next word on the host (a worker at a new
	// address, or the worker lost) ends both (cancelRedial). Guarded by mu.
	stopRedial, stopDial context.CancelFunc
	dialMu               sync.Mutex // serializes up

	mu   sync.Mutex
	gen  uint64
	addr string
	// incarnation is the worker's (rm.Worker.Incarnation) at addr: news of
	// another one's loss leaves the link alone.
	incarnation string
	client      *proxy.Client
	conn        *grpc.ClientConn
	peer        workerpb.PeerClient
	lostErr     error // why the link is down; nil while up
	// lastGen and lastSession were the generation and session id until the
	// link last went down (suspend.go: a worker leaves after it saved).
	lastGen, lastSession uint64
	// heardAt is the newest news of the host the link acted on (see
	// heard): older news, such as a watch's first snapshot that arrives
	// after the link redialled a replacement itself, is stale.
	heardAt viewAt
}

// heard reports whether news of the host as of at is not older than what
// the link acted on, and records it. News without an epoch is never stale.
func (l *link) heard(at viewAt) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case at.epoch == 0:
		return true
	case at.rmIncarnation != "" && at.rmIncarnation != l.heardAt.rmIncarnation:
		l.heardAt = at // a new run of the RM counts epochs from the start
	case at.epoch < l.heardAt.epoch:
		return false
	default:
		l.heardAt.epoch = at.epoch
	}
	return true
}

// session returns the link's current connection, or a DataLoss error while the
// worker is lost.
func (l *link) session() (*proxy.Client, workerpb.PeerClient, uint64, error) {
	if err := l.c.suspend.refuse(l.c, l.key.slice); err != nil {
		return nil, nil, 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		return nil, nil, l.gen, l.downError()
	}
	return l.client, l.peer, l.gen, nil
}

func (l *link) downError() error {
	reason := l.lostErr
	if reason == nil {
		reason = fmt.Errorf("no worker has registered")
	}
	return ifrt.Errorf(ifrt.DataLoss, "cluster: worker of slice %d host %d is unavailable: %v", l.key.slice, l.key.host, reason)
}

// down reports whether the link has no worker session.
func (l *link) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.client == nil
}

// current reports whether shards made under generation gen are still held.
func (l *link) current(gen uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		return l.downError()
	}
	if l.gen != gen {
		return ifrt.Errorf(ifrt.DataLoss, "cluster: worker of slice %d host %d was lost; the data it held is gone", l.key.slice, l.key.host)
	}
	return nil
}

// loseWorker takes the link down when it is up to worker w, which the RM
// reports lost: a client whose watch lagged may already be up to w's
// replacement (it asked the RM itself), and that session stays.
func (l *link) loseWorker(w rm.Worker) {
	l.mu.Lock()
	gen, up := l.gen, l.client != nil && l.incarnation == w.Incarnation
	l.mu.Unlock()
	if !up {
		return // down already, or up to another worker
	}
	l.lose(gen, fmt.Errorf("the resource manager reports it lost: %s", w.LostReason))
}

// lose takes the link down, ending its session, if it is still at generation gen
// (or at any generation when gen is 0). New calls fail at once; calls in
// progress get what the worker already sent (a worker that stopped gracefully
// answered them before it left the RM) until its session ends, or
// sessionEndGrace at most.
func (l *link) lose(gen uint64, reason error) {
	l.mu.Lock()
	if l.client == nil || (gen != 0 && gen != l.gen) {
		l.mu.Unlock()
		return
	}
	client, conn := l.client, l.conn
	l.client, l.conn, l.peer, l.lostErr = nil, nil, nil, reason
	l.lastGen, l.lastSession = l.gen, client.SessionID()
	l.gen++
	l.mu.Unlock()
	if errors.Is(reason, ifrt.ErrClientClosed) {
		client.Close()
		conn.Close()
		return
	}
	l.log.Warn("worker lost", "slice", l.key.slice, "host", l.key.host, "address", l.addr, "reason", reason)
	go func() {
		select {
		case <-client.Done():
		case <-time.After(sessionEndGrace):
		}
		client.Close()
		conn.Close()
	}()
}

// up dials worker w, unless the link is already up to it.
func (l *link) up(ctx context.Context, w rm.Worker, dialOpts []grpc.DialOption) error {
	l.dialMu.Lock()
	defer l.dialMu.Unlock()
	addr := w.Address
	l.mu.Lock()
	if l.client != nil && l.addr == addr && l.incarnation == w.Incarnation {
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	l.lose(0, fmt.Errorf("replaced by a worker at %s", addr))

	// Executions return once sent (their errors come with their outputs): a
	// step's read-back then follows its execution on the stream at once.
	client, err := proxy.Dial(ctx, addr, proxy.WithDialOptions(dialOpts...), proxy.WithLogger(l.log), proxy.WithAsyncExecute())
	if err != nil {
		return fmt.Errorf("dial worker %s: %w", addr, err)
	}
	// The transport the proxy client has too (rpc.TransportDialOptions): its
	// fixed windows also spare each gang launch's answer a window probe (a
	// PING each way).
	conn, err := grpc.NewClient(addr, append(rpc.TransportDialOptions(), dialOpts...)...)
	if err != nil {
		client.Close()
		return fmt.Errorf("dial worker %s: %w", addr, err)
	}
	l.mu.Lock()
	l.gen++
	gen := l.gen
	l.addr, l.incarnation, l.client, l.conn, l.peer, l.lostErr = addr, w.Incarnation, client, conn, workerpb.NewPeerClient(conn), nil
	l.mu.Unlock()
	l.log.Info("worker connected", "slice", l.key.slice, "host", l.key.host, "address", addr)
	stop := make(chan struct{})
	go l.checkLiveness(conn, gen, stop)
	go func() {
		<-client.Done()
		close(stop)
		if err := client.Err(); err != nil && !errors.Is(err, ifrt.ErrClientClosed) {
			l.lose(gen, err)
			l.redial()
		}
	}()
	return nil
}

// localDevice returns the worker's own device at local index i, or its host
// CPU device for hostCPULocal.
func (l *link) localDevice(client *proxy.Client, i int) (*ifrt.Device, error) {
	if i == hostCPULocal {
		return l.hostCPU(client)
	}
	devs := client.AddressableDevices()
	if i < 0 || i >= len(devs) {
		return nil, ifrt.Errorf(ifrt.Internal, "cluster: worker of slice %d host %d has %d devices, not %d", l.key.slice, l.key.host, len(devs), i+1)
	}
	return devs[i], nil
}

// buildDevices makes the cluster's devices from the RM's view.
func buildDevices(view *rm.Cluster) (ifrt.DeviceList, map[ifrt.DeviceID]*placement, map[hostKey]*link, string) {
	byID := make(map[ifrt.DeviceID]*placement, len(view.Devices))
	links := map[hostKey]*link{}
	var devs ifrt.DeviceList
	platform := ""
	for _, d := range view.Devices {
		key := hostKey{d.Slice, d.Host}
		l := links[key]
		if l == nil {
			l = &link{key: key}
			links[key] = l
		}
		if platform == "" {
			platform = d.Platform
		}
		dev := &ifrt.Device{
			ID: d.ID, Platform: d.Platform, Kind: d.Description.Kind, ProcessIndex: 0,
			LocalHardwareID: d.Description.LocalHardwareID, Addressable: true,
			Attributes: ifrt.Attributes{ifrt.AttrSliceIndex: int64(d.Slice), "host_index": int64(d.Host)},
		}
		if len(d.Description.Coords) > 0 {
			coords := make([]int64, len(d.Description.Coords))
			for i, c := range d.Description.Coords {
				coords[i] = int64(c)
			}
			dev.Attributes[ifrt.AttrCoords] = coords
		}
		kinds := d.Description.MemoryKinds
		if len(kinds) == 0 {
			kinds = []ifrt.MemoryKind{ifrt.MemoryKindDevice}
		}
		for k, kind := range kinds {
			m := &ifrt.Memory{ID: ifrt.MemoryID(int(d.ID)*8 + k), Kind: kind, Devices: []ifrt.DeviceID{d.ID}}
			dev.Memories = append(dev.Memories, m)
			if kind == d.Description.DefaultMemoryKind || (dev.DefaultMemory == nil && d.Description.DefaultMemoryKind == "") {
				dev.DefaultMemory = m
			}
		}
		if dev.DefaultMemory == nil {
			dev.DefaultMemory = dev.Memories[0]
		}
		devs = append(devs, dev)
		byID[d.ID] = &placement{device: dev, link: l, local: d.Local}
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].ID < devs[j].ID })
	if platform == "" {
		platform = "cpu"
	}
	return devs, byID, links, platform
}
