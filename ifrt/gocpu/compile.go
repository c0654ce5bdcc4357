package gocpu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
)

// Compile parses a StableHLO module, MLIR text or bytecode (the portable
// artifact JAX sends), and checks that the interpreter can run it. An SPMD
// module (mhlo.num_partitions > 1) without collectives runs as its global
// program on the assembled inputs, its outputs split by their result
// shardings; one with collectives or manual partitioning (shard_map) runs
// as one process per device (see runPartitioned). Plugin programs and
// replicas are Unimplemented.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	p, opts, err := c.check.CompileMLIR(program, opts)
	if err != nil {
		return nil, err
	}
	_, m, err := parseProgram(p)
	if err != nil {
		return nil, err
	}
	devices := opts.Devices
	if len(devices) == 0 {
		devices = c.devices[:m.NumPartitions()]
	}
	if err := c.checkSharding(&ifrt.HloSharding{DeviceList: devices, Spec: ifrt.Replicated()}); err != nil {
		return nil, err
	}
	if len(devices) != m.NumPartitions() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: the program has %d partitions but is compiled for %d devices", m.NumPartitions(), len(devices))
	}
	params, outputs, donatable, err := signature(m)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(p.Module)
	e := &executable{
		client: c, module: m, devices: devices, params: params, outputs: outputs,
		donatable: donatable, fingerprint: hex.EncodeToString(sum[:16]),
	}
	if !c.life.Executables.Add(e) {
		return nil, ifrt.ErrClientClosed
	}
	return e, nil
}

// signature describes m's parameters and outputs, with their shardings
// over its partitions, and lists the parameters an execution donates.
func signature(m *stablehlo.Module) (params, outputs []ifrt.ArgumentInfo, donatable []int, err error) {
	paramShardings, outputShardings := m.ProcessShardings()
	if params, err = argumentInfos(m.Main().Params(), paramShardings); err != nil {
		return nil, nil, nil, err
	}
	if outputs, err = argumentInfos(m.Main().Results(), outputShardings); err != nil {
		return nil, nil, nil, err
	}
	return params, outputs, m.Main().DonatedParams(), nil
}

// parseProgram reads a StableHLO module the interpreter can run: one of
// SPMD partitions, without replicas.
func parseProgram(program ifrt.Program) (*ifrt.MLIRProgram, *stablehlo.Module, error) {
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok {
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: cannot compile a %T; only StableHLO modules (MLIR text or bytecode) are supported", program)
	}
	m, err := stablehlo.Parse(p.Module)
	if err != nil {
		return nil, nil, fromStablehlo(err)
	}
	if err := m.Unsupported(); err != nil {
		return nil, nil, fromStablehlo(err)
	}
	if m.NumReplicas() != 1 {
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: %d replicas; only SPMD partitioning is supported", m.NumReplicas())
	}
	return p, m, nil
}

// fromStablehlo gives an interpreter error its ifrt code.
func fromStablehlo(err error) error {
	var se *stablehlo.Error
	if errors.As(err, &se) {
		return ifrt.WithCode(ifrt.Code(se.Code()), err)
	}
	return err // context errors keep their own codes
}

// argumentInfos describes values placed by shardings (HLO sharding strings,
// "" for none).
func argumentInfos(values []stablehlo.Value, shardings []string) ([]ifrt.ArgumentInfo, error) {
	out := make([]ifrt.ArgumentInfo, len(values))
	for i, v := range values {
		d, ok := ifrtconv.DType(v.Type.Elem)
		if !ok {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: element type of %v is not supported", v.Type)
		}
		out[i] = ifrt.ArgumentInfo{DType: d, Shape: ifrt.Shape(slices.Clone(v.Type.Shape))}
		if shardings[i] != "" {
			hs, err := stablehlo.ParseHloSharding(shardings[i])
			if err != nil {
				return nil, fromStablehlo(err)
			}
			op, err := ifrtconv.OpSharding(hs)
			if err != nil {
				return nil, err
			}
			out[i].OpSharding = &op
		}
	}
	return out, nil
}

// executable is a parsed module bound to its devices.
type executable struct {
	ifrt.UnimplementedExecutable

	client      *Client
	module      *stablehlo.Module
	devices     ifrt.DeviceList
	params      []ifrt.ArgumentInfo
	outputs     []ifrt.ArgumentInfo
	donatable   []int
	fingerprint string

	mu      sync.RWMutex
	deleted bool
}

func (e *executable) Name() string                    { return e.module.Name() }
func (e *executable) Fingerprint() string             { return e.fingerprint }
func (e *executable) Devices() ifrt.DeviceList        { return e.devices }
func (e *executable) Parameters() []ifrt.ArgumentInfo { return e.params }
func (e *executable) Outputs() []ifrt.ArgumentInfo    { return e.outputs }
func (e *executable) DonatableParameters() []int      { return e.donatable }
func (e *executable) As(any) bool                     { return false }
func (e *executable) IsDeleted() bool                 { e.mu.RLock(); defer e.mu.RUnlock(); return e.deleted }
func (e *executable) free()                           { e.mu.Lock(); e.deleted = true; e.mu.Unlock() }
func (e *executable) shardingOf(info ifrt.ArgumentInfo) (ifrt.Sharding, error) {
	switch {
	case info.OpSharding != nil:
		return ifrt.NewHloSharding(e.devices, "", *info.OpSharding)
	case len(e.devices) == 1:
		return ifrt.NewSingleDeviceSharding(e.devices[0], ""), nil
	}
	return ifrt.NewHloSharding(e.devices, "", ifrt.Replicated())
}

// CostAnalysis estimates one run as XLA's cost analysis of the unfused
// program would ("flops", "transcendentals", "bytes accessed").
func (e *executable) CostAnalysis() (ifrt.Attributes, error) {
	return ifrtconv.CostAttributes(e.module), nil
}

func (e *executable) Delete() *ifrt.Future {
	e.free()
	e.client.life.Executables.Remove(e)
	return ifrt.ReadyFuture(nil)
}

func (e *executable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	if opts == nil {
		opts = &ifrt.ExecuteOptions{}
	}
	arrays, err := e.client.check.Execute(e, args, opts)
	if err != nil {
		return nil, err
	}
	var outs []ifrt.Array
	if e.module.UsesCollectives() {
		outs, err = e.runPartitioned(ctx, arrays)
	} else {
		outs, err = e.runGlobal(ctx, arrays)
	}
	if err != nil {
		return nil, err
	}
	res := &ifrt.ExecuteResult{Outputs: outs, Donated: backend.Donated(e.donatable, opts)}
	for _, i := range res.Donated {
		arrays[i].Delete()
	}
	if opts.FillStatus {
		res.Status = ifrt.ReadyFuture(nil)
	}
	return res, nil
}

// runGlobal runs the program once on the assembled arguments and splits its
// results by their shardings.
func (e *executable) runGlobal(ctx context.Context, arrays []*array) ([]ifrt.Array, error) {
	inputs := make([]*stablehlo.Tensor, len(arrays))
	for i, a := range arrays {
		full, err := a.dense()
		if err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "gocpu: argument %d: %w", i, err)
		}
		inputs[i] = &stablehlo.Tensor{Type: e.module.Main().Params()[i].Type, Data: full}
	}
	results, err := e.module.Run(ctx, inputs)
	if err != nil {
		return nil, fromStablehlo(err)
	}
	outs := make([]ifrt.Array, len(results))
	for i, r := range results {
		s, err := e.shardingOf(e.outputs[i])
		if err != nil {
			return nil, err
		}
		spec := ifrt.ArraySpec{DType: e.outputs[i].DType, Shape: e.outputs[i].Shape, Sharding: s}
		shards, err := e.client.split(spec, r.Data, true) // the interpreter's results are new memory
		if err != nil {
			return nil, err
		}
		outs[i] = e.client.newArray(spec, shards)
	}
	return outs, nil
}
