package gocpu

import (
	"context"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
)

// GangExecutable is a program whose partitions run in several processes (the
// workers of a cluster), of which this client runs some: each partition is
// one stablehlo process, exchanging data with the others through the
// Communicator its caller gives it. The worker (package worker) compiles one
// on every worker that owns a device of the program, with the same module,
// and runs its own partitions of each launch.
type GangExecutable struct {
	client    *Client
	module    *stablehlo.Module
	params    []ifrt.ArgumentInfo
	outputs   []ifrt.ArgumentInfo
	donatable []int
}

// CostAnalysis estimates one device's share of a run, as the executables
// of Compile do (ifrtconv.CostAttributes).
func (e *GangExecutable) CostAnalysis() (ifrt.Attributes, error) {
	return ifrtconv.CostAttributes(e.module), nil
}

// CompileGang parses a StableHLO module for a run across processes. Its
// parameters and outputs are described globally (shapes of the whole
// arrays, shardings over the program's partitions).
func (c *Client) CompileGang(ctx context.Context, program ifrt.Program) (*GangExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	_, m, err := parseProgram(program)
	if err != nil {
		return nil, err
	}
	params, outputs, donatable, err := signature(m)
	if err != nil {
		return nil, err
	}
	return &GangExecutable{client: c, module: m, params: params, outputs: outputs, donatable: donatable}, nil
}

// Name is the module's name.
func (g *GangExecutable) Name() string { return g.module.Name() }

// NumPartitions is the number of partitions of the program.
func (g *GangExecutable) NumPartitions() int { return g.module.NumPartitions() }

// Parameters describe the program's global parameters.
func (g *GangExecutable) Parameters() []ifrt.ArgumentInfo { return g.params }

// Outputs describe the program's global results.
func (g *GangExecutable) Outputs() []ifrt.ArgumentInfo { return g.outputs }

// DonatableParameters are the parameters the program may donate. Run does
// not consume its arguments: the caller frees donated ones after a launch.
func (g *GangExecutable) DonatableParameters() []int { return slices.Clone(g.donatable) }

// Run runs partition p on device dev of this client. args are the
// partition's blocks of the parameters (single-device arrays of this client,
// each the block of the global argument that parameter's sharding gives
// partition p, or the whole value for a replicated one); the outputs are
// its blocks of the results, single-device arrays on dev. comm connects it
// to the other partitions; Run calls comm.Done once, as
// stablehlo.Module.RunProcess does.
func (g *GangExecutable) Run(ctx context.Context, p int, dev *ifrt.Device, args []ifrt.Array, comm stablehlo.Communicator) ([]ifrt.Array, error) {
	outs, err := g.RunGroup(ctx, []GangPart{{Partition: p, Device: dev, Args: args, Comm: comm}}, nil, nil)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// GangPart is one partition of a RunGroup call: its device of this client,
// its blocks of the parameters (as Run takes them) and its Communicator.
type GangPart struct {
	Partition int
	Device    *ifrt.Device
	Args      []ifrt.Array
	Comm      stablehlo.Communicator
}

// Grouped reports whether the program is auto-sharded (no collectives or
// manual regions: every partition computes the same global values), so that
// RunGroup runs it once for all the partitions of a process.
func (g *GangExecutable) Grouped() bool { return !g.module.UsesCollectives() }

// RunGroup runs several partitions of this client and returns each one's
// outputs, as Run does for one. With group nil each partition runs as its
// own process (stablehlo.Module.RunProcess), as in Run. Otherwise the
// program must be Grouped, group[p] names the process (worker) of partition
// p, and parts are every partition of this process's group: the group
// computes the program once (stablehlo.Module.RunGroup), each of its
// parameters' blocks that it lacks arriving once. Every process of a launch
// must call RunGroup alike, with group nil or with the same group. With a
// group, whole (when not nil) computes the global values in place of the
// interpreter. RunGroup calls each part's Comm.Done once.
func (g *GangExecutable) RunGroup(ctx context.Context, parts []GangPart, group []int, whole stablehlo.WholeRun) ([][]ifrt.Array, error) {
	fail := func(err error) ([][]ifrt.Array, error) {
		for _, part := range parts {
			part.Comm.Done(err)
		}
		return nil, err
	}
	if err := g.client.checkOpen(); err != nil {
		return fail(err)
	}
	in := make([][]*stablehlo.Tensor, len(parts))
	procs := make([]stablehlo.Process, len(parts))
	for j, part := range parts {
		var err error
		if in[j], err = g.tensors(part.Device, part.Args); err != nil {
			return fail(err)
		}
		procs[j] = stablehlo.Process{Partition: part.Partition, Comm: ifrtDone{part.Comm}}
	}
	var res [][]*stablehlo.Tensor
	var err error
	if group != nil {
		res, err = g.module.RunGroup(ctx, procs, group, in, whole)
	} else {
		res = make([][]*stablehlo.Tensor, len(parts))
		errs := make([]error, len(parts))
		run := func(j int) { res[j], errs[j] = g.module.RunProcess(ctx, procs[j], in[j]) }
		if len(parts) == 1 {
			run(0) // no partner here to run beside: no goroutine
		} else {
			var wg sync.WaitGroup
			for j := range parts {
				wg.Go(func() { run(j) })
			}
			wg.Wait()
		}
		err = stablehlo.FirstFailure(errs)
	}
	if err != nil {
		return nil, fromStablehlo(err)
	}
	outs := make([][]ifrt.Array, len(parts))
	for j, part := range parts {
		outs[j] = make([]ifrt.Array, len(res[j]))
		for k, t := range res[j] {
			spec := ifrt.ArraySpec{DType: g.outputs[k].DType, Shape: ifrt.Shape(slices.Clone(t.Type.Shape)), Sharding: ifrt.NewSingleDeviceSharding(part.Device, "")}
			outs[j][k] = g.client.newArray(spec, [][]byte{t.Data})
		}
	}
	return outs, nil
}

// tensors checks a partition's device and arguments and views their data.
func (g *GangExecutable) tensors(dev *ifrt.Device, args []ifrt.Array) ([]*stablehlo.Tensor, error) {
	if !slices.Contains(g.client.devices, dev) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: device %d is not a device of this client", dev.ID)
	}
	if len(args) != len(g.params) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: %s takes %d arguments, got %d", g.Name(), len(g.params), len(args))
	}
	arrays, err := g.client.check.Arrays(args)
	if err != nil {
		return nil, err
	}
	in := make([]*stablehlo.Tensor, len(arrays))
	for i, a := range arrays {
		data, err := a.dense()
		if err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
		}
		v := g.module.Main().Params()[i]
		in[i] = &stablehlo.Tensor{Type: stablehlo.TensorType{Elem: v.Type.Elem, Shape: slices.Clone([]int64(a.ArraySpec.Shape))}, Data: data}
	}
	return in, nil
}

// ifrtDone hands a Communicator the interpreter's failure as an ifrt error,
// with its code (the worker ends the launch with it).
type ifrtDone struct{ stablehlo.Communicator }

func (c ifrtDone) Done(err error) { c.Communicator.Done(fromStablehlo(err)) }
