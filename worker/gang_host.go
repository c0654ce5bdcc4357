package worker

import (
	"context"
	"fmt"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// partitionRunner compiles gang programs and runs this worker's partitions of
// their launches, on arrays of the worker's backend.
type partitionRunner interface {
	compile(ctx context.Context, module []byte) (*gangProgram, error)
	// run runs this worker's partitions of a launch, as
	// GangExecutable.RunGroup does: parts' devices and arguments are the
	// backend's, and so are the outputs. It calls each part's Comm.Done once.
	run(ctx context.Context, prog *gangProgram, parts []gocpu.GangPart, group []int) ([][]ifrt.Array, error)
}

// newPartitionRunner runs partitions on the backend itself when it is gocpu,
// whose interpreter takes part in a program over several processes, and on
// a private gocpu client through host memory otherwise (PJRT plugins run a
// program in one process only).
func newPartitionRunner(w *Server) partitionRunner {
	if c, ok := w.cfg.Backend.(*gocpu.Client); ok {
		return gocpuRunner{c}
	}
	return &hostRunner{w: w}
}

// gocpuRunner runs partitions on a gocpu backend's own arrays.
type gocpuRunner struct{ c *gocpu.Client }

func (r gocpuRunner) compile(ctx context.Context, module []byte) (*gangProgram, error) {
	prog, err := r.c.CompileGang(ctx, &ifrt.MLIRProgram{Module: module})
	if err != nil {
		return nil, err
	}
	return &gangProgram{GangExecutable: prog}, nil
}

func (r gocpuRunner) run(ctx context.Context, prog *gangProgram, parts []gocpu.GangPart, group []int) ([][]ifrt.Array, error) {
	return prog.RunGroup(ctx, parts, group, nil)
}

// hostRunner runs partitions on the host interpreter for a backend that
// cannot: a gocpu client of its own with as many devices as the backend
// has, device i standing for the backend's addressable device i. Each
// launch copies the partition's arguments from the backend into host
// memory, which becomes the gocpu arrays' memory, and its outputs back
// into the backend's arrays on the partition's device.
type hostRunner struct {
	w *Server

	once    sync.Once
	host    *gocpu.Client
	byID    map[ifrt.DeviceID]*ifrt.Device // backend device id → host device
	hostErr error
}

// client makes the host client on first use; it is closed when the worker
// stops.
func (r *hostRunner) client() (*gocpu.Client, error) {
	r.once.Do(func() {
		devs := r.w.cfg.Backend.AddressableDevices()
		if len(devs) == 0 {
			r.hostErr = ifrt.Errorf(ifrt.FailedPrecondition, "worker: the backend has no addressable devices to run partitions for")
			return
		}
		if r.host, r.hostErr = gocpu.New(gocpu.Config{Devices: len(devs), Logger: r.w.log}); r.hostErr != nil {
			return
		}
		r.byID = make(map[ifrt.DeviceID]*ifrt.Device, len(devs))
		for i, d := range devs {
			r.byID[d.ID] = r.host.AddressableDevices()[i]
		}
		go func() {
			<-r.w.stopped()
			r.host.Close()
		}()
	})
	return r.host, r.hostErr
}

func (r *hostRunner) compile(ctx context.Context, module []byte) (*gangProgram, error) {
	host, err := r.client()
	if err != nil {
		return nil, err
	}
	prog, err := host.CompileGang(ctx, &ifrt.MLIRProgram{Module: module})
	if err != nil {
		return nil, err
	}
	p := &gangProgram{GangExecutable: prog, whole: compileWhole(ctx, r.w, prog, module)}
	if p.whole != nil {
		r.w.log.Info("an auto-sharded program spanning workers runs whole on the backend, once per worker", "program", prog.Name(),
			"backend", r.w.cfg.Backend.Platform().RuntimeType,
			"why", "the backend runs a program within one process only; each launch gathers the arguments' blocks through host memory")
		return p, nil
	}
	r.w.log.Info("a program spanning workers runs on the host interpreter (gocpu)", "program", prog.Name(),
		"backend", r.w.cfg.Backend.Platform().RuntimeType,
		"why", "the backend runs a program within one process only; each launch copies the partitions' arguments and outputs through host memory")
	return p, nil
}

func (r *hostRunner) run(ctx context.Context, prog *gangProgram, parts []gocpu.GangPart, group []int) ([][]ifrt.Array, error) {
	onHost := make([]gocpu.GangPart, len(parts))
	defer func() {
		for _, part := range onHost {
			deleteAll(part.Args)
		}
	}()
	var err error
	for j := 0; err == nil && j < len(parts); j++ {
		part := parts[j]
		onHost[j] = gocpu.GangPart{Partition: part.Partition, Device: r.byID[part.Device.ID], Args: make([]ifrt.Array, len(part.Args)), Comm: part.Comm}
		if onHost[j].Device == nil {
			err = ifrt.Errorf(ifrt.InvalidArgument, "worker: device %d is not one of the backend's", part.Device.ID)
		}
		for k := 0; err == nil && k < len(part.Args); k++ {
			if onHost[j].Args[k], err = moveThroughHost(ctx, r.host, part.Args[k], onHost[j].Device); err != nil {
				err = fmt.Errorf("worker: argument %d of partition %d: %w", k, part.Partition, err)
			}
		}
	}
	if err != nil {
		for _, part := range parts {
			part.Comm.Done(err)
		}
		return nil, err
	}
	outs, err := prog.RunGroup(ctx, onHost, group, prog.wholeRun(r.w.cfg.Backend))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, o := range outs {
			deleteAll(o)
		}
	}()
	res := make([][]ifrt.Array, len(parts))
	for j, part := range parts {
		res[j] = make([]ifrt.Array, len(outs[j]))
		for k, o := range outs[j] {
			if res[j][k], err = moveThroughHost(ctx, r.w.cfg.Backend, o, part.Device); err != nil {
				for _, done := range res {
					deleteAll(done)
				}
				return nil, fmt.Errorf("worker: output %d of partition %d: %w", k, part.Partition, err)
			}
		}
	}
	return res, nil
}

// moveThroughHost copies a into a fresh host buffer and gives the buffer
// away to client's array on dev. On a CPU platform that is ImmutableZeroCopy:
// gocpu keeps the buffer as the array's memory, the XLA CPU plugin as the
// device buffer when it is aligned, so the move costs one copy. Accelerators
// copy it to the device (ImmutableUntilTransferCompletes, which every
// plugin takes).
func moveThroughHost(ctx context.Context, client ifrt.Client, a ifrt.Array, dev *ifrt.Device) (ifrt.Array, error) {
	buf, err := ifrt.ArrayBytes(ctx, a)
	if err != nil {
		return nil, err
	}
	spec := ifrt.ArraySpec{DType: a.DType(), Shape: a.Shape(), Sharding: ifrt.NewSingleDeviceSharding(dev, "")}
	return client.MakeArrayFromHostBuffer(ctx, buf, spec, hostBufferOptions(client))
}

// hostBufferOptions hands a host buffer to client without a copy where it
// can keep host memory (a CPU platform), else to be copied to the device.
func hostBufferOptions(client ifrt.Client) *ifrt.HostBufferOptions {
	if client.Platform().Name == "cpu" {
		return &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy}
	}
	return &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableUntilTransferCompletes}
}
