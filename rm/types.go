package rm

import (
	"fmt"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm/rmpb"
)

// AnyHost as WorkerInfo.Host asks the resource manager to pick a host of the
// slice that no live worker holds: the host this incarnation already holds,
// else a lost host last held from the same address, else the lowest host
// never held, else the lowest lost host.
const AnyHost = -1

// State is the state of a worker slot or a device.
type State int

const (
	// StateMissing: no worker has registered for the host since the RM started.
	StateMissing State = iota + 1
	// StateLive: a worker holds the host and its heartbeat is current.
	StateLive
	// StateLost: the worker that held the host was lost.
	StateLost
)

var stateNames = [...]string{StateMissing: "missing", StateLive: "live", StateLost: "lost"}

func (s State) String() string { return enumName(stateNames[:], s, "State") }

// LocalDevice describes one device of a worker as its local runtime sees it.
type LocalDevice struct {
	Kind            string // e.g. "TPU v4", "cpu"
	LocalHardwareID int    // -1 when unknown
	// Coords are physical coordinates within the slice (at most 3), each below
	// the topology's size in that dimension; nil when the runtime has none.
	Coords            []int
	CoreOnChip        int
	MemoryKinds       []ifrt.MemoryKind
	DefaultMemoryKind ifrt.MemoryKind // empty or one of MemoryKinds
}

// WorkerInfo is what a worker registers.
type WorkerInfo struct {
	Slice int // 0 <= Slice < instance count
	Host  int // 0 <= Host < hosts per slice, or AnyHost
	// Address is where the worker serves, e.g. "10.0.0.7:29005".
	Address string
	// Incarnation identifies this run of the worker process; Client fills in
	// a random one when it is empty.
	Incarnation string
	// Platform is the PJRT platform name, e.g. "tpu", "cpu". It is recorded,
	// not checked against the instance type, so CPU workers can stand in for
	// the hosts of a TPU topology in tests.
	Platform string
	// Devices, in local index order: exactly as many as the instance type
	// puts on a host.
	Devices []LocalDevice
}

// Worker is one host slot of one slice and the worker that holds or held it.
type Worker struct {
	Slice, Host int
	State       State
	Address     string // empty while StateMissing
	Incarnation string
	Platform    string
	DeviceIDs   []ifrt.DeviceID
	LostReason  string // set when StateLost
}

// Device is one device of the cluster. Every device the configuration implies
// is listed, whether or not its worker has registered.
type Device struct {
	ID            ifrt.DeviceID
	Slice, Host   int
	Local         int // index on its host
	State         State
	WorkerAddress string // empty while StateMissing
	Platform      string
	Description   LocalDevice // as last registered
}

// Slice is the state of one slice.
type Slice struct {
	Index     int
	Up        bool // every host is live
	LiveHosts int
	// State says whether the slice's arrays are on its devices (SliceActive,
	// the zero value) or saved away; see SuspendSlice.
	State SliceState
	// SuspendGeneration counts the slice's suspensions; 0 until the first.
	SuspendGeneration uint64
	// SuspendLocation is where the last suspension saved the slice's arrays,
	// "<scratch>/suspend/slice-<i>/gen-<n>", each host's under "host-<h>".
	SuspendLocation string
	// UnsavedHosts are the hosts whose arrays the last suspension did not
	// save (their worker was lost first): those arrays are gone.
	UnsavedHosts []int
	// SuspendReason is why the slice was suspended, e.g. "preemption".
	SuspendReason string
	// AutoResume: the slice resumes on its own once every host is live again.
	AutoResume bool
}

// Cluster is the resource manager's view of the cluster.
type Cluster struct {
	InstanceType   string
	InstanceCount  int
	HostsPerSlice  int
	DevicesPerHost int
	// RMIncarnation identifies the run of the RM that produced the view.
	RMIncarnation string
	// Epoch counts changes since that RM started.
	Epoch   uint64
	Slices  []Slice  // by index
	Workers []Worker // by (slice, host)
	Devices []Device // by id
}

// Ready reports whether every slice is up.
func (c *Cluster) Ready() bool {
	for _, s := range c.Slices {
		if !s.Up {
			return false
		}
	}
	return len(c.Slices) > 0
}

// EventType says what a watch Event reports.
type EventType int

const (
	// EventSnapshot carries the whole view in Event.Cluster. It is always the
	// first event, and comes again after Watch reconnects: replace the view.
	EventSnapshot EventType = iota + 1
	// EventWorkerJoined: Event.Worker registered. A worker that joins again
	// with the same Incarnation is the same process and kept its state.
	EventWorkerJoined
	// EventWorkerLost: Event.Worker was lost or replaced (see LostReason).
	EventWorkerLost
	// EventSliceUp: every host of Event.Slice is live.
	EventSliceUp
	// EventSliceDown: Event.Slice was up and lost a host.
	EventSliceDown
	// EventSliceState: slice Event.Slice changed its SliceState;
	// Event.SliceInfo is the slice after the change.
	EventSliceState
)

var eventTypeNames = [...]string{EventSnapshot: "snapshot", EventWorkerJoined: "worker-joined",
	EventWorkerLost: "worker-lost", EventSliceUp: "slice-up", EventSliceDown: "slice-down",
	EventSliceState: "slice-state"}

func (t EventType) String() string { return enumName(eventTypeNames[:], t, "EventType") }

// Event is one change of the cluster view.
type Event struct {
	Type    EventType
	Epoch   uint64   // the epoch after the change
	Cluster *Cluster // EventSnapshot
	Worker  *Worker  // EventWorkerJoined, EventWorkerLost
	Slice   int      // EventSliceUp, EventSliceDown, EventSliceState
	// SliceInfo is the slice after an EventSliceState.
	SliceInfo *Slice
}

// Device IDs are a pure function of the device's place in the cluster:
//
//	id = slice*DevicesPerSlice + host*DevicesPerHost + local
//
// so they are dense, ordered by (slice, host, local), and the same after a
// worker or the RM restarts.
func deviceID(it InstanceType, slice, host, local int) ifrt.DeviceID {
	return ifrt.DeviceID(slice*it.DevicesPerSlice() + host*it.DevicesPerHost() + local)
}

// --- conversions to and from rmpb ---

var stateToPB = map[State]rmpb.State{
	StateMissing: rmpb.State_STATE_MISSING,
	StateLive:    rmpb.State_STATE_LIVE,
	StateLost:    rmpb.State_STATE_LOST,
}

func stateFromPB(s rmpb.State) State {
	switch s {
	case rmpb.State_STATE_MISSING:
		return StateMissing
	case rmpb.State_STATE_LIVE:
		return StateLive
	case rmpb.State_STATE_LOST:
		return StateLost
	}
	return 0
}

// convertInts converts each element of in; nil stays nil.
func convertInts[To, From int | int32](in []From) []To {
	if in == nil {
		return nil
	}
	out := make([]To, len(in))
	for i, v := range in {
		out[i] = To(v)
	}
	return out
}

func idsToPB(ids []ifrt.DeviceID) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

func idsFromPB(ids []int32) []ifrt.DeviceID {
	out := make([]ifrt.DeviceID, len(ids))
	for i, id := range ids {
		out[i] = ifrt.DeviceID(id)
	}
	return out
}

func localDeviceToPB(d LocalDevice) *rmpb.LocalDevice {
	p := &rmpb.LocalDevice{
		Kind:              d.Kind,
		LocalHardwareId:   int32(d.LocalHardwareID),
		Coords:            convertInts[int32](d.Coords),
		CoreOnChip:        int32(d.CoreOnChip),
		DefaultMemoryKind: string(d.DefaultMemoryKind),
	}
	for _, k := range d.MemoryKinds {
		p.MemoryKinds = append(p.MemoryKinds, string(k))
	}
	return p
}

func localDeviceFromPB(p *rmpb.LocalDevice) LocalDevice {
	d := LocalDevice{
		Kind:              p.GetKind(),
		LocalHardwareID:   int(p.GetLocalHardwareId()),
		Coords:            convertInts[int](p.GetCoords()),
		CoreOnChip:        int(p.GetCoreOnChip()),
		DefaultMemoryKind: ifrt.MemoryKind(p.GetDefaultMemoryKind()),
	}
	for _, k := range p.GetMemoryKinds() {
		d.MemoryKinds = append(d.MemoryKinds, ifrt.MemoryKind(k))
	}
	return d
}

func workerInfoToPB(w WorkerInfo) *rmpb.RegisterWorkerRequest {
	req := &rmpb.RegisterWorkerRequest{
		SliceIndex:  int32(w.Slice),
		HostIndex:   int32(w.Host),
		Address:     w.Address,
		Incarnation: w.Incarnation,
		Platform:    w.Platform,
	}
	for _, d := range w.Devices {
		req.Devices = append(req.Devices, localDeviceToPB(d))
	}
	return req
}

func workerInfoFromPB(req *rmpb.RegisterWorkerRequest) WorkerInfo {
	w := WorkerInfo{
		Slice:       int(req.GetSliceIndex()),
		Host:        int(req.GetHostIndex()),
		Address:     req.GetAddress(),
		Incarnation: req.GetIncarnation(),
		Platform:    req.GetPlatform(),
	}
	for _, d := range req.GetDevices() {
		w.Devices = append(w.Devices, localDeviceFromPB(d))
	}
	return w
}

func workerToPB(w *Worker) *rmpb.Worker {
	if w == nil {
		return nil
	}
	return &rmpb.Worker{
		SliceIndex:  int32(w.Slice),
		HostIndex:   int32(w.Host),
		State:       stateToPB[w.State],
		Address:     w.Address,
		Incarnation: w.Incarnation,
		Platform:    w.Platform,
		DeviceIds:   idsToPB(w.DeviceIDs),
		LostReason:  w.LostReason,
	}
}

func workerFromPB(p *rmpb.Worker) *Worker {
	if p == nil {
		return nil
	}
	return &Worker{
		Slice:       int(p.GetSliceIndex()),
		Host:        int(p.GetHostIndex()),
		State:       stateFromPB(p.GetState()),
		Address:     p.GetAddress(),
		Incarnation: p.GetIncarnation(),
		Platform:    p.GetPlatform(),
		DeviceIDs:   idsFromPB(p.GetDeviceIds()),
		LostReason:  p.GetLostReason(),
	}
}

func clusterToPB(c *Cluster) *rmpb.Cluster {
	if c == nil {
		return nil
	}
	p := &rmpb.Cluster{
		InstanceType:   c.InstanceType,
		InstanceCount:  int32(c.InstanceCount),
		HostsPerSlice:  int32(c.HostsPerSlice),
		DevicesPerHost: int32(c.DevicesPerHost),
		RmIncarnation:  c.RMIncarnation,
		Epoch:          c.Epoch,
	}
	for _, s := range c.Slices {
		p.Slices = append(p.Slices, sliceToPB(&s))
	}
	for i := range c.Workers {
		p.Workers = append(p.Workers, workerToPB(&c.Workers[i]))
	}
	for _, d := range c.Devices {
		pd := &rmpb.Device{
			Id:            int32(d.ID),
			SliceIndex:    int32(d.Slice),
			HostIndex:     int32(d.Host),
			LocalIndex:    int32(d.Local),
			State:         stateToPB[d.State],
			WorkerAddress: d.WorkerAddress,
			Platform:      d.Platform,
		}
		if d.State != StateMissing {
			pd.Description = localDeviceToPB(d.Description)
		}
		p.Devices = append(p.Devices, pd)
	}
	return p
}

func clusterFromPB(p *rmpb.Cluster) *Cluster {
	if p == nil {
		return nil
	}
	c := &Cluster{
		InstanceType:   p.GetInstanceType(),
		InstanceCount:  int(p.GetInstanceCount()),
		HostsPerSlice:  int(p.GetHostsPerSlice()),
		DevicesPerHost: int(p.GetDevicesPerHost()),
		RMIncarnation:  p.GetRmIncarnation(),
		Epoch:          p.GetEpoch(),
	}
	for _, s := range p.GetSlices() {
		c.Slices = append(c.Slices, *sliceFromPB(s))
	}
	for _, w := range p.GetWorkers() {
		c.Workers = append(c.Workers, *workerFromPB(w))
	}
	for _, d := range p.GetDevices() {
		gd := Device{
			ID:            ifrt.DeviceID(d.GetId()),
			Slice:         int(d.GetSliceIndex()),
			Host:          int(d.GetHostIndex()),
			Local:         int(d.GetLocalIndex()),
			State:         stateFromPB(d.GetState()),
			WorkerAddress: d.GetWorkerAddress(),
			Platform:      d.GetPlatform(),
		}
		if d.Description != nil {
			gd.Description = localDeviceFromPB(d.Description)
		}
		c.Devices = append(c.Devices, gd)
	}
	return c
}

var eventTypeToPB = map[EventType]rmpb.WatchEvent_Type{
	EventSnapshot:     rmpb.WatchEvent_TYPE_SNAPSHOT,
	EventWorkerJoined: rmpb.WatchEvent_TYPE_WORKER_JOINED,
	EventWorkerLost:   rmpb.WatchEvent_TYPE_WORKER_LOST,
	EventSliceUp:      rmpb.WatchEvent_TYPE_SLICE_UP,
	EventSliceDown:    rmpb.WatchEvent_TYPE_SLICE_DOWN,
	EventSliceState:   rmpb.WatchEvent_TYPE_SLICE_STATE,
}

func eventToPB(e Event) *rmpb.WatchEvent {
	return &rmpb.WatchEvent{
		Type:       eventTypeToPB[e.Type],
		Epoch:      e.Epoch,
		Cluster:    clusterToPB(e.Cluster),
		Worker:     workerToPB(e.Worker),
		SliceIndex: int32(e.Slice),
		Slice:      sliceToPB(e.SliceInfo),
	}
}

func eventFromPB(p *rmpb.WatchEvent) Event {
	e := Event{
		Epoch:     p.GetEpoch(),
		Cluster:   clusterFromPB(p.GetCluster()),
		Worker:    workerFromPB(p.GetWorker()),
		Slice:     int(p.GetSliceIndex()),
		SliceInfo: sliceFromPB(p.GetSlice()),
	}
	for t, pt := range eventTypeToPB {
		if pt == p.GetType() {
			e.Type = t
		}
	}
	return e
}

// clone returns a deep copy of d.
func (d LocalDevice) clone() LocalDevice {
	d.Coords = slices.Clone(d.Coords)
	d.MemoryKinds = slices.Clone(d.MemoryKinds)
	return d
}

// clone returns a deep copy of w.
func (w Worker) clone() Worker {
	w.DeviceIDs = slices.Clone(w.DeviceIDs)
	return w
}

// enumName is v's name in names, or type(v) for a value without one.
func enumName[T ~int](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}
