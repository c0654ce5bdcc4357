package proxy

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/logging"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// gRPC metadata keys of the protocol. "-bin" keys carry serialized protos.
const (
	sessionMetadataKey      = "ifrt-proxy-grpc-ifrt-session-metadata-bin"
	hostBufferMetadataKey   = "ifrt-proxy-grpc-host-buffer-store-metadata-bin"
	connectRetryInterval    = time.Second
	hostBufferDeleteTimeout = time.Minute
)

// Client is an ifrt.Client whose devices, arrays and executables live behind an
// IFRT Proxy server. It is safe for concurrent use by multiple goroutines.
type Client struct {
	ifrt.UnimplementedClient

	log          *slog.Logger
	ctrlConn     *grpc.ClientConn // GetVersion and the session
	dataConn     *grpc.ClientConn // host buffers, on a connection of their own
	stub         proxypb.GrpcIfrtServiceClient
	hostBuffers  proxypb.GrpcIfrtServiceClient
	version      *proxypb.IfrtProxyVersion
	sess         *session
	sessionID    uint64
	sessionToken string // sent with host-buffer calls; see wire.SessionTokenMetadataKey
	onDisconnect func(error)
	async        bool // WithAsyncDispatch
	asyncExecute bool // WithAsyncDispatch or WithAsyncExecute

	platform    ifrt.Platform
	devices     ifrt.DeviceList // the primary devices, by id
	addressable ifrt.DeviceList
	byID        map[ifrt.DeviceID]*ifrt.Device
	all         ifrt.DeviceList // every device, by id
	attrs       ifrt.Attributes

	nextHandle atomic.Uint64
	closed     atomic.Bool
	closeOnce  sync.Once

	bgMu       sync.Mutex
	bgStopped  bool
	background sync.WaitGroup // requests nobody waits for, such as HostBufferDelete
	bgCtx      context.Context
	bgCancel   context.CancelFunc // ends background requests at Close
}

var _ ifrt.Client = (*Client)(nil)

// init registers the backend "proxy" with ifrt.Open: "proxy:grpc://host:port"
// dials the server at host:port with default options.
func init() {
	ifrt.Register("proxy", func(ctx context.Context, config string) (ifrt.Client, error) {
		if config == "" {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, `proxy: the backend string needs a target, as in "proxy:grpc://host:port"`)
		}
		return Dial(ctx, config)
	})
}

// Dial connects to the IFRT Proxy server at target and starts a session, as
// jaxlib's client does: GetVersion, then an IfrtSession stream whose first request
// is Init. target is "grpc://host:port" (JAX_BACKEND_TARGET's form) or any gRPC
// target, such as "dns:///host:port" or "passthrough:///bufnet".
//
// While the server is unavailable Dial retries every second until the connect
// timeout (WithConnectTimeout) or ctx ends. Connections are plaintext unless
// WithDialOptions brings credentials.
func Dial(ctx context.Context, target string, opts ...Option) (*Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	log := o.logger
	if log == nil {
		log = slog.Default()
	}
	if scheme, rest, ok := strings.Cut(target, "://"); ok && scheme == "grpc" {
		target = rest
	}
	// The transport settings first, so that the caller's options override them.
	dialOpts := append(rpc.TransportDialOptions(), o.dialOptions...)
	if len(o.dialOptions) == 0 || o.insecure {
		dialOpts = append(dialOpts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if !rpc.HasTelemetry(dialOpts) {
		dialOpts = append(dialOpts, rpc.TelemetryDialOption())
	}
	// Like jaxlib: no limit on message sizes (programs and chunks can be large).
	dialOpts = append(dialOpts, grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(math.MaxInt32), grpc.MaxCallSendMsgSize(math.MaxInt32)))

	ctrl, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: dial %q: %w", target, err)
	}
	data, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		ctrl.Close()
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "proxy: dial %q: %w", target, err)
	}
	c := &Client{
		log:          logging.Component(log, "proxy-client").With("target", target),
		ctrlConn:     ctrl,
		dataConn:     data,
		stub:         proxypb.NewGrpcIfrtServiceClient(ctrl),
		hostBuffers:  proxypb.NewGrpcIfrtServiceClient(data),
		onDisconnect: o.onDisconnect,
		async:        o.async,
		asyncExecute: o.async || o.asyncExecute,
	}
	c.bgCtx, c.bgCancel = context.WithCancel(context.Background())
	if o.connectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.connectTimeout)
		defer cancel()
	}
	for {
		err = c.connect(ctx, o)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil || ifrt.CodeOf(err) != ifrt.Unavailable {
			break
		}
		c.log.Debug("server unavailable, retrying", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(connectRetryInterval):
		}
		if ctx.Err() != nil {
			break
		}
	}
	c.bgCancel()
	ctrl.Close()
	data.Close()
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return nil, ifrt.Errorf(ifrt.CodeOf(ctx.Err()), "proxy: unable to establish a connection to the IFRT proxy server at %s: %w (last error: %v)", target, ctx.Err(), err)
	}
	return nil, err
}

// connect makes one attempt: GetVersion, the session stream, Init.
func (c *Client) connect(ctx context.Context, o options) error {
	resp, err := c.stub.GetVersion(ctx, &proxypb.GrpcGetVersionRequest{
		MinVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMin, IfrtSerdesVersionNumber: wire.SerDesMin},
		MaxVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: wire.SerDesMax},
	})
	if err != nil {
		return rpcError(ctx, "GetVersion", err)
	}
	v := resp.GetVersion()
	if p, s := v.GetProtocolVersion(), v.GetIfrtSerdesVersionNumber(); p < wire.ProtocolMin || p > wire.ProtocolMax || s < wire.SerDesMin || s > wire.SerDesMax {
		return ifrt.Errorf(ifrt.FailedPrecondition,
			"proxy: the server chose protocol version %d and SerDes version %d, outside the client's ranges [%d, %d] and [%d, %d]",
			p, s, wire.ProtocolMin, wire.ProtocolMax, wire.SerDesMin, wire.SerDesMax)
	}
	c.version = v
	c.log.Debug("negotiated versions", "protocol", v.GetProtocolVersion(), "serdes", v.GetIfrtSerdesVersionNumber())

	initData, err := wire.AttributesToProto(o.initData)
	if err != nil {
		return err
	}
	md, err := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: v, InitializationData: initData})
	if err != nil {
		return ifrt.Errorf(ifrt.Internal, "proxy: encoding the session metadata: %w", err)
	}
	// The stream outlives ctx, which bounds only the connection attempt.
	streamCtx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), sessionMetadataKey, string(md)))
	stream, err := c.stub.IfrtSession(streamCtx)
	if err != nil {
		cancel()
		return rpcError(ctx, "IfrtSession", err)
	}
	sess := newSession(stream, cancel, c.log)
	sess.start(c.sessionEnded)
	init, err := sess.call(ctx, &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}})
	if err == nil {
		err = c.initFrom(init.GetInitResponse())
	}
	if err != nil {
		sess.close()
		return err
	}
	// The header came before the first response.
	if hdr, err := stream.Header(); err == nil {
		if v := hdr.Get(wire.SessionTokenMetadataKey); len(v) > 0 {
			c.sessionToken = v[0]
		}
	}
	c.sess = sess
	return nil
}

// sessionEnded runs once when the session ends.
func (c *Client) sessionEnded(err error) {
	if c.closed.Load() || errors.Is(err, ifrt.ErrClientClosed) {
		return
	}
	c.log.Error("the session with the IFRT proxy server ended; the client is unusable", "error", err)
	if c.onDisconnect != nil {
		c.onDisconnect(err)
	}
}

// initFrom builds the platform, devices and memories from the InitResponse.
func (c *Client) initFrom(r *proxypb.InitResponse) error {
	if r == nil {
		return ifrt.Errorf(ifrt.Internal, "proxy: the server answered Init with another kind of response")
	}
	c.sessionID = r.GetSessionId()
	c.platform = ifrt.Platform{
		Name:         r.GetPlatformName(),
		Version:      r.GetPlatformVersion(),
		ID:           r.GetPlatformId(),
		RuntimeType:  "proxy/" + r.GetRuntimeType(),
		ProcessIndex: int(r.GetProcessIndex()),
	}
	attrs, err := wire.AttributesFromProto(r.GetClientAttributes())
	if err != nil {
		return err
	}
	c.attrs = attrs

	memories := make(map[int32]*ifrt.Memory, len(r.GetMemories()))
	for _, m := range r.GetMemories() {
		if _, dup := memories[m.GetId()]; dup {
			return ifrt.Errorf(ifrt.Internal, "proxy: the server lists memory %d twice", m.GetId())
		}
		mem := &ifrt.Memory{ID: ifrt.MemoryID(m.GetId()), Kind: ifrt.MemoryKind(m.GetMemorySpaceKind())}
		for _, d := range m.GetDeviceIds() {
			mem.Devices = append(mem.Devices, ifrt.DeviceID(d))
		}
		memories[m.GetId()] = mem
	}
	addressable := make(map[int32]bool, len(r.GetAddressableDeviceIds()))
	for _, id := range r.GetAddressableDeviceIds() {
		addressable[id] = true
	}
	c.byID = make(map[ifrt.DeviceID]*ifrt.Device, len(r.GetAllDevices()))
	var all ifrt.DeviceList
	for _, pd := range r.GetAllDevices() {
		id := ifrt.DeviceID(pd.GetId())
		if _, dup := c.byID[id]; dup {
			return ifrt.Errorf(ifrt.Internal, "proxy: the server lists device %d twice", id)
		}
		attrs, err := wire.AttributesFromProto(pd.GetAttributes())
		if err != nil {
			return err
		}
		d := &ifrt.Device{
			ID:              id,
			Platform:        cmp.Or(pd.GetPlatformName(), r.GetPlatformName()),
			Kind:            pd.GetDeviceKind(),
			ProcessIndex:    int(r.GetProcessIndex()),
			LocalHardwareID: int(pd.GetLocalHardwareId()),
			Addressable:     addressable[pd.GetId()],
			Attributes:      attrs,
		}
		for _, mid := range pd.GetMemoryIds() {
			m, ok := memories[mid]
			if !ok {
				return ifrt.Errorf(ifrt.Internal, "proxy: device %d refers to unknown memory %d", id, mid)
			}
			d.Memories = append(d.Memories, m)
		}
		if pd.DefaultMemoryId != nil {
			m, ok := memories[pd.GetDefaultMemoryId()]
			if !ok {
				return ifrt.Errorf(ifrt.Internal, "proxy: device %d has unknown default memory %d", id, pd.GetDefaultMemoryId())
			}
			d.DefaultMemory = m
		}
		c.byID[id] = d
		all = append(all, d)
	}
	if ids := r.GetPrimaryDeviceIds(); len(ids) > 0 {
		c.devices = nil
		primary := map[ifrt.DeviceID]bool{}
		for _, id := range ids {
			d, ok := c.byID[ifrt.DeviceID(id)]
			if !ok {
				return ifrt.Errorf(ifrt.Internal, "proxy: primary device %d is not among the server's devices", id)
			}
			c.devices = append(c.devices, d)
			primary[d.ID] = true
		}
		for _, d := range all {
			d.NonPrimary = !primary[d.ID]
		}
	} else {
		c.devices = all
	}
	c.all = slices.SortedFunc(slices.Values(all), func(a, b *ifrt.Device) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(c.devices, func(a, b *ifrt.Device) int { return cmp.Compare(a.ID, b.ID) })
	for _, d := range c.devices {
		if d.Addressable {
			c.addressable = append(c.addressable, d)
		}
	}
	return nil
}

// Platform describes the server's runtime; RuntimeType is "proxy/" followed by the
// server's.
func (c *Client) Platform() ifrt.Platform { return c.platform }

// AllDevices returns every device the server lists, in id order: the primary
// ones and the others (such as a host's CPU device for colocated Python, which
// LookupDevice finds but Devices leaves out).
func (c *Client) AllDevices() ifrt.DeviceList { return c.all }

// Devices returns the server's primary devices, in id order.
func (c *Client) Devices() ifrt.DeviceList { return c.devices }

// AddressableDevices returns the devices the client can use, in id order.
func (c *Client) AddressableDevices() ifrt.DeviceList { return c.addressable }

// Attributes returns (a copy of) the attributes the server reported for its
// client.
func (c *Client) Attributes() ifrt.Attributes { return maps.Clone(c.attrs) }

// LookupDevice returns the device with the given id, or a NotFound error.
func (c *Client) LookupDevice(id ifrt.DeviceID) (*ifrt.Device, error) {
	if d, ok := c.byID[id]; ok {
		return d, nil
	}
	return nil, ifrt.Errorf(ifrt.NotFound, "proxy: no device %d", id)
}

// Version returns the negotiated protocol and IFRT SerDes versions.
func (c *Client) Version() (protocol, serdes int32) {
	return c.version.GetProtocolVersion(), c.version.GetIfrtSerdesVersionNumber()
}

// SessionID returns the id the server gave this client's session.
func (c *Client) SessionID() uint64 { return c.sessionID }

// SessionToken returns the secret an OpenPathways server gave this client's
// session ("" from other servers): whoever calls the server on the session's
// behalf outside the session's stream (a worker's peers) shows it.
func (c *Client) SessionToken() string { return c.sessionToken }

// LastOpID returns the op id of the last request sent on the session's stream
// (0 before the first). The server takes requests in op-id order, so once it
// has taken this one, every array handle of a request sent before the call
// is known to it: a worker's peers pass it when they name an array of the
// session (workerpb.ArrayRef.AfterOpId).
func (c *Client) LastOpID() uint64 { return c.sess.lastOpID() }

// Done returns a channel that is closed when the session ends: by Close, or
// because the connection dropped or the server ended it.
func (c *Client) Done() <-chan struct{} { return c.sess.done }

// Err returns nil while the session is alive, ifrt.ErrClientClosed after Close,
// and an Unavailable error when the connection was lost.
func (c *Client) Err() error { return c.sess.Err() }

// As sets *target to c when target is a **Client.
func (c *Client) As(target any) bool {
	if p, ok := target.(**Client); ok {
		*p = c
		return true
	}
	return false
}

// Close ends the session, which frees everything it holds on the server, and
// closes the connections. Pending calls fail with ifrt.ErrClientClosed. It is
// idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.sess.close()
		c.bgMu.Lock()
		c.bgStopped = true
		c.bgMu.Unlock()
		c.bgCancel()
		c.background.Wait()
		c.ctrlConn.Close()
		c.dataConn.Close()
	})
	return nil
}

// checkOpen returns the error every call gets once the client is closed or its
// session has ended.
func (c *Client) checkOpen() error {
	if c.closed.Load() {
		return ifrt.ErrClientClosed
	}
	return c.sess.Err()
}

// goBackground runs f in a goroutine that Close waits for, unless the client is
// closing; it reports whether it did.
func (c *Client) goBackground(f func()) bool {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	if c.bgStopped || c.closed.Load() {
		return false
	}
	c.background.Add(1)
	go func() {
		defer c.background.Done()
		f()
	}()
	return true
}

// newHandle returns the next client-generated handle.
func (c *Client) newHandle() (uint64, error) {
	h := c.nextHandle.Add(1)
	if h >= wire.ServerHandleMin {
		return 0, ifrt.Errorf(ifrt.ResourceExhausted, "proxy: the session has used up its client handles")
	}
	return h, nil
}

// newResult encodes the spec of a request's one result and reserves its
// handle.
func (c *Client) newResult(spec ifrt.ArraySpec) (*proxypb.ArraySpecProto, uint64, error) {
	ps, err := wire.ArraySpecToProto(spec)
	if err != nil {
		return nil, 0, err
	}
	h, err := c.newHandle()
	return ps, h, err
}

// newHandles returns n consecutive client-generated handles.
func (c *Client) newHandles(n int) ([]uint64, error) {
	last := c.nextHandle.Add(uint64(n))
	if last >= wire.ServerHandleMin {
		return nil, ifrt.Errorf(ifrt.ResourceExhausted, "proxy: the session has used up its client handles")
	}
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = last - uint64(n) + 1 + uint64(i)
	}
	return hs, nil
}

// rpcError turns the error of a unary or streaming gRPC call into an ifrt error
// with the same code (rpc.CallError). Context errors come back unchanged.
func rpcError(ctx context.Context, what string, err error) error {
	return rpc.CallError(ctx, "proxy: "+what+": ", err)
}
