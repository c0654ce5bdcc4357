package gocpu

import (
	"context"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
)

// Communicator carries one partition's collectives to the partitions of
// other clients in an execution that spans several (see SpanExecutable).
// It is stablehlo's interface, named here so that code outside this module
// can implement it; its doc comment is the contract, and
// internal/stablehlo/communicatortest checks implementations against it.
type Communicator = stablehlo.Communicator

// Tag identifies a message of one execution (see Communicator).
type Tag = stablehlo.Tag

// SpanExecutable is a program compiled for a global device assignment of
// which this client holds only some devices: this client's part of an
// execution whose other partitions run on other clients (the workers of a
// gang), all started with the same program and assignment. Partition p
// runs on Devices()[p]; the client runs the partitions on its own devices
// and reaches the others through the Communicators Execute is given.
//
// Programs with collectives or shard_map exchange exactly what their
// collectives say. Auto-sharded programs (GSPMD or Shardy annotations and
// no manual regions) run the simple, correct way until a partitioner
// exists: every partition gathers the global value of each sharded
// argument from the partitions holding its blocks, runs the global program
// and keeps its own block of each output, so each partition receives the
// whole of every sharded argument and computes every output in full.
//
// A SpanExecutable is safe for concurrent use; its executions are
// independent.
type SpanExecutable struct {
	client  *Client
	module  *stablehlo.Module
	devices []ifrt.DeviceID
	local   []int // partitions on this client's devices, ascending
	params  []spanValue
	outputs []spanValue
}

// spanValue is a parameter or output: its global description and each
// partition's block.
type spanValue struct {
	info   ifrt.ArgumentInfo
	elem   stablehlo.ElemType
	blocks []ifrt.Shape // by partition
}

// CompileSpan compiles a StableHLO module (text or bytecode, as Compile
// takes it) for the global device assignment devices: partition p runs on
// devices[p]. Devices that are not this client's belong to the other
// participants; at least one must be this client's. Programs with replicas
// are Unimplemented.
func (c *Client) CompileSpan(ctx context.Context, program ifrt.Program, devices []ifrt.DeviceID) (*SpanExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: cannot compile a %T; only StableHLO modules (MLIR text or bytecode) are supported", program)
	}
	m, err := stablehlo.Parse(p.Module)
	if err != nil {
		return nil, fromStablehlo(err)
	}
	if err := m.Unsupported(); err != nil {
		return nil, fromStablehlo(err)
	}
	if m.NumReplicas() != 1 {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: %d replicas; only SPMD partitioning is supported", m.NumReplicas())
	}
	if len(devices) != m.NumPartitions() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: the program has %d partitions but is compiled for %d devices", m.NumPartitions(), len(devices))
	}
	// Shardings index partitions by position only, so stand-ins describe
	// the other clients' devices.
	global := make(ifrt.DeviceList, len(devices))
	e := &SpanExecutable{client: c, module: m, devices: slices.Clone(devices)}
	for i, id := range devices {
		if d := c.byID[id]; d != nil {
			global[i] = d
			e.local = append(e.local, i)
		} else {
			global[i] = &ifrt.Device{ID: id}
		}
	}
	if err := global.Validate(); err != nil {
		return nil, err
	}
	if len(e.local) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: none of the devices %v is a device of this client", devices)
	}
	paramShardings, outputShardings := m.ProcessShardings()
	if e.params, err = spanValues(m.Main().Params(), paramShardings, global); err != nil {
		return nil, err
	}
	if e.outputs, err = spanValues(m.Main().Results(), outputShardings, global); err != nil {
		return nil, err
	}
	return e, nil
}

func spanValues(values []stablehlo.Value, shardings []string, devices ifrt.DeviceList) ([]spanValue, error) {
	infos, err := argumentInfos(values, shardings)
	if err != nil {
		return nil, err
	}
	out := make([]spanValue, len(values))
	for i, info := range infos {
		op := ifrt.Replicated()
		if info.OpSharding != nil {
			op = *info.OpSharding
		}
		s, err := ifrt.NewHloSharding(devices, "", op)
		if err != nil {
			return nil, err
		}
		domains, err := s.IndexDomains(info.Shape)
		if err != nil {
			return nil, err
		}
		out[i] = spanValue{info: info, elem: values[i].Type.Elem, blocks: make([]ifrt.Shape, len(domains))}
		for p, d := range domains {
			out[i].blocks[p] = d.Shape()
		}
	}
	return out, nil
}

// Devices returns the global device assignment: partition p runs on
// Devices()[p].
func (e *SpanExecutable) Devices() []ifrt.DeviceID { return slices.Clone(e.devices) }

// LocalPartitions returns the partitions that run on this client, in
// ascending order; Execute takes and returns blocks in this order.
func (e *SpanExecutable) LocalPartitions() []int { return slices.Clone(e.local) }

// Parameters and Outputs describe the program's global values.
func (e *SpanExecutable) Parameters() []ifrt.ArgumentInfo { return infosOf(e.params) }

// Outputs: see Parameters.
func (e *SpanExecutable) Outputs() []ifrt.ArgumentInfo { return infosOf(e.outputs) }

func infosOf(vs []spanValue) []ifrt.ArgumentInfo {
	out := make([]ifrt.ArgumentInfo, len(vs))
	for i, v := range vs {
		out[i] = v.info
	}
	return out
}

// BlockShape returns the shape of parameter (output when output is true) i's
// block on partition p.
func (e *SpanExecutable) BlockShape(i int, output bool, p int) ifrt.Shape {
	if output {
		return slices.Clone(e.outputs[i].blocks[p])
	}
	return slices.Clone(e.params[i].blocks[p])
}

// Execute runs this client's partitions of one execution. args[i][j] is
// parameter i's block on partition LocalPartitions()[j]: a single-device
// array of this client on that partition's device, of the shape BlockShape
// says. The result has the same layout: outputs[k][j] is output k's block
// on that partition, a new single-device array. Arguments are not donated.
//
// remote(p) is local partition p's Communicator to the partitions of other
// clients (participants are numbered by partition); the client connects its
// own partitions in process and joins the two with stablehlo.Route.
// Execute calls remote once for each local partition and ends each
// Communicator it gets with Done, also when it refuses its arguments.
// remote may be nil when every partition is local. The other clients must run the
// same execution with Communicators connected to these; when any partition
// fails, every one fails (see Communicator), and the error is the one the
// failing partition hit when it failed here, else an Aborted one.
func (e *SpanExecutable) Execute(ctx context.Context, args [][]ifrt.Array, remote func(partition int) Communicator) ([][]ifrt.Array, error) {
	in, err := e.blocks(args)
	if err != nil {
		// The other clients learn of it through their Communicators.
		if remote != nil {
			for _, p := range e.local {
				if comm := remote(p); comm != nil {
					comm.Done(err)
				}
			}
		}
		return nil, err
	}
	var far func(int) stablehlo.Communicator
	if remote != nil {
		far = func(p int) stablehlo.Communicator { return remote(p) }
	}
	results, err := e.module.RunLocal(ctx, e.local, in, far)
	if err != nil {
		return nil, fromStablehlo(err)
	}
	c := e.client
	outs := make([][]ifrt.Array, len(e.outputs))
	for k, v := range e.outputs {
		outs[k] = make([]ifrt.Array, len(e.local))
		for j, p := range e.local {
			spec := ifrt.ArraySpec{DType: v.info.DType, Shape: slices.Clone(v.blocks[p]),
				Sharding: ifrt.NewSingleDeviceSharding(c.byID[e.devices[p]], "")}
			outs[k][j] = c.newArray(spec, [][]byte{results[j][k].Data})
		}
	}
	return outs, nil
}

// blocks checks Execute's arguments and returns each local partition's.
func (e *SpanExecutable) blocks(args [][]ifrt.Array) ([][]*stablehlo.Tensor, error) {
	c := e.client
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	if len(args) != len(e.params) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: the program takes %d arguments, got %d", len(e.params), len(args))
	}
	in := make([][]*stablehlo.Tensor, len(e.local))
	for i, blocks := range args {
		if len(blocks) != len(e.local) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d has %d blocks for %d local partitions", i, len(blocks), len(e.local))
		}
		arrays, err := c.check.Arrays(blocks)
		if err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
		}
		v := e.params[i]
		for j, a := range arrays {
			p := e.local[j]
			devs := a.ArraySpec.Sharding.Devices()
			if len(devs) != 1 || devs[0].ID != e.devices[p] || a.ArraySpec.DType != v.info.DType || !a.ArraySpec.Shape.Equal(v.blocks[p]) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d's block for partition %d is %v %v on %v, want %v %v on device %d",
					i, p, a.ArraySpec.DType, a.ArraySpec.Shape, devs, v.info.DType, v.blocks[p], e.devices[p])
			}
			held, err := a.data()
			if err != nil {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
			}
			in[j] = append(in[j], &stablehlo.Tensor{Type: stablehlo.TensorType{Elem: v.elem, Shape: slices.Clone(v.blocks[p])}, Data: held[0]})
		}
	}
	return in, nil
}
