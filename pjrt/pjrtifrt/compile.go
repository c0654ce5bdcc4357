package pjrtifrt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/pjrt"
)

// Compile compiles a StableHLO module (text or bytecode, "mlir" format) for
// opts.Devices (default: the first addressable device). More than one device
// compiles an SPMD program with one partition per device, in order. The
// compile options are opts.XLA (a serialized xla.CompileOptionsProto) with the
// device assignment, partition count and SPMD flags set from the devices.
func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	p, opts, err := c.check.CompileMLIR(program, opts)
	if err != nil {
		return nil, err
	}
	devices := opts.Devices
	if len(devices) == 0 {
		if len(c.addressable) == 0 {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "pjrtifrt: the client has no addressable device")
		}
		devices = c.addressable[:1]
	}
	if err := c.checkSpanning(devices); err != nil {
		return nil, err
	}
	if err := c.checkSharding(&ifrt.HloSharding{DeviceList: devices, Spec: ifrt.Replicated()}); err != nil {
		return nil, err
	}
	// A Shardy module (sdy dialect) needs the Shardy partitioner.
	shardy := bytes.Contains(p.Module, []byte("sdy"))
	options, err := compileOptions(devices, opts.XLA, shardy)
	if err != nil {
		return nil, err
	}
	x, err := c.pc.Compile(ctx, p.Module, "mlir", options)
	if err != nil {
		return nil, compileError(p, err)
	}
	e, err := c.newExecutable(x, p, devices, options)
	if err != nil {
		_ = x.Close()
		return nil, err
	}
	c.log.Debug("compiled", "name", e.name, "devices", devices.String(), "bytecode", p.IsBytecode(),
		"shardy", shardy, "parameters_known", e.knownParams, "outputs", len(e.outputs))
	return c.track(e)
}

// track counts a new executable live until it is deleted or the client closes.
func (c *Client) track(e *executable) (ifrt.LoadedExecutable, error) {
	if !c.life.Executables.Add(e) {
		e.free()
		return nil, ifrt.ErrClientClosed
	}
	return e, nil
}

// compileError gives a failed compilation its code. Plugins report malformed
// modules as UNKNOWN; when our own parser also rejects the module as
// malformed, the error is the caller's: InvalidArgument.
func compileError(p *ifrt.MLIRProgram, err error) error {
	if ifrt.CodeOf(err) == ifrt.Unknown {
		var se *stablehlo.Error
		if _, perr := stablehlo.Parse(p.Module); errors.As(perr, &se) && se.Code() == stablehlo.InvalidArgument {
			return ifrt.WithCode(ifrt.InvalidArgument, err)
		}
	}
	return fromPJRT(err)
}

// compileOptions merges the devices into the caller's CompileOptionsProto.
func compileOptions(devices ifrt.DeviceList, xla []byte, shardy bool) ([]byte, error) {
	var o xlapb.CompileOptionsProto
	if len(xla) > 0 {
		if err := proto.Unmarshal(xla, &o); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: CompileOptions.XLA is not an xla.CompileOptionsProto: %w", err)
		}
	}
	b := o.ExecutableBuildOptions
	if b == nil {
		b = &xlapb.ExecutableBuildOptionsProto{DeviceOrdinal: -1}
		o.ExecutableBuildOptions = b
	}
	if b.NumReplicas > 1 {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: %d replicas; only SPMD partitioning over the devices is supported", b.NumReplicas)
	}
	n := len(devices)
	b.NumReplicas = 1
	b.NumPartitions = int64(n)
	if n > 1 {
		b.UseSpmdPartitioning = true
	}
	if shardy {
		b.UseShardyPartitioner = true
	}
	da := &xlapb.DeviceAssignmentProto{ReplicaCount: 1, ComputationCount: int32(n)}
	for _, d := range devices {
		da.ComputationDevices = append(da.ComputationDevices,
			&xlapb.DeviceAssignmentProto_ComputationDevice{ReplicaDeviceIds: []int64{int64(d.ID)}})
	}
	b.DeviceAssignment = da
	o.CompilePortableExecutable = false
	out, err := proto.Marshal(&o)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: encoding compile options: %w", err)
	}
	return out, nil
}

// executable is a pjrt.Executable with the ifrt view of its arguments.
type executable struct {
	ifrt.UnimplementedExecutable

	client    *Client
	x         *pjrt.Executable
	name      string
	devices   ifrt.DeviceList
	rowOf     []int // rowOf[i]: the pjrt argument row of devices[i]
	params    []ifrt.ArgumentInfo
	outputs   []ifrt.ArgumentInfo
	outShard  []ifrt.Sharding
	donatable []int
	// mayDonate says the program marks some parameter donated or aliased:
	// after a run, the arguments whose buffers PJRT consumed beyond
	// donatable (XLA matches donors by per-device shape) are found deleted.
	mayDonate bool
	// knownParams says params are known (dtypes, shapes, donation): from the
	// module, or from the compiled program; otherwise params holds only the
	// plugin's shardings, if any.
	knownParams bool
	fingerprint string
	// estimate is the interpreter's cost estimate of the module, for a
	// plugin that makes none (nil when the module was not read).
	estimate ifrt.Attributes

	mu      sync.RWMutex
	deleted bool
}

func (c *Client) newExecutable(x *pjrt.Executable, p *ifrt.MLIRProgram, devices ifrt.DeviceList, options []byte) (*executable, error) {
	e := &executable{client: c, x: x, name: x.Name(), devices: devices}
	if x.NumReplicas() != 1 || x.NumPartitions() != len(devices) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: %s compiled to %d replicas x %d partitions for %d devices",
			e.name, x.NumReplicas(), x.NumPartitions(), len(devices))
	}
	addressable := x.AddressableDevices()
	if len(addressable) != len(devices) {
		return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: %s runs on %d devices, compiled for %d", e.name, len(addressable), len(devices))
	}
	for _, d := range devices {
		row := slices.IndexFunc(addressable, func(pd *pjrt.Device) bool { return pd.ID() == int(d.ID) })
		if row < 0 {
			return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: %s does not run on device %d", e.name, d.ID)
		}
		e.rowOf = append(e.rowOf, row)
	}

	// The module (text or bytecode), when the parser reads it, gives global
	// types, shardings and donation; the plugin's Shardings extension, when
	// present, gives the shardings the compiler settled on.
	var mod *stablehlo.Module
	if m, err := stablehlo.Parse(p.Module); err == nil {
		mod = m
	}
	paramShardings, _ := x.ParameterShardings()
	outShardings, _ := x.OutputShardings()

	if mod != nil && len(devices) > 1 && paramShardings == nil && mod.UsesCollectives() {
		// The partitioner decides the shardings of unannotated parameters of
		// programs with manual parts; only the Shardings extension could tell
		// them, and sending such a program the wrong shards makes some
		// partitions fail while the others wait in a collective for ever.
		for i, v := range mod.Main().Params() {
			if v.Sharding == "" {
				return nil, ifrt.Errorf(ifrt.Unimplemented,
					"pjrtifrt: parameter %d of SPMD program %s has no sharding annotation and the plugin has no Shardings extension to report the one it chose", i, e.name)
			}
		}
	}
	if mod != nil {
		e.estimate = ifrtconv.CostAttributes(mod)
		e.knownParams = true
		for i, v := range mod.Main().Params() {
			info, err := argumentInfo(v)
			if err != nil {
				return nil, err
			}
			if i < len(paramShardings) {
				if op, ok := decodeOpSharding(paramShardings[i]); ok {
					info.OpSharding = op
				}
			}
			if len(devices) == 1 {
				info.OpSharding = nil
			}
			if info.OpSharding != nil {
				hs := &ifrt.HloSharding{DeviceList: devices, Spec: *info.OpSharding}
				if err := checkEven(hs, info.Shape, nil); err != nil {
					return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: parameter %d of %s: %w", i, e.name, err)
				}
			}
			e.params = append(e.params, info)
		}
		// XLA aliases a donor only to an output left for it; one it does
		// not use is not donated and stays alive, as on local JAX.
		e.donatable = mod.Main().DonatedParams()
		e.mayDonate = slices.ContainsFunc(mod.Main().Params(), func(v stablehlo.Value) bool { return v.DonorOrAlias })
	}

	if mod == nil {
		e.describeCompiled(x, devices, paramShardings)
	}

	types, err := x.OutputTypes()
	if err != nil {
		return nil, fromPJRT(err)
	}
	dims, err := x.OutputDims()
	if err != nil {
		return nil, fromPJRT(err)
	}
	kinds, _ := x.OutputMemoryKinds()
	var results []stablehlo.Value
	if mod != nil {
		results = mod.Main().Results()
		if len(results) != len(types) {
			results = nil // e.g. tuple results the parser sees differently
		}
	}
	for k, t := range types {
		dt, ok := DType(t)
		if !ok {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: output %d of %s has element type %v, which ifrt lacks", k, e.name, t)
		}
		info := ifrt.ArgumentInfo{DType: dt}
		var op *ifrt.OpSharding
		if k < len(outShardings) {
			op, _ = decodeOpSharding(outShardings[k])
		}
		if results != nil {
			ri, err := argumentInfo(results[k])
			if err != nil {
				return nil, err
			}
			info.Shape = ri.Shape
			if op == nil {
				op = ri.OpSharding
			}
		}
		if len(devices) > 1 && op == nil {
			if mod == nil && outShardings == nil {
				return nil, ifrt.Errorf(ifrt.Unimplemented,
					"pjrtifrt: %s is an SPMD program the StableHLO reader cannot read and the plugin has no Shardings extension, so its output shardings are unknown; use a newer plugin", e.name)
			}
			rep := ifrt.Replicated()
			op = &rep
		}
		if len(devices) > 1 {
			info.OpSharding = op
		}
		if k < len(kinds) && kinds[k] != "" {
			if def := devices[0].DefaultMemory; def == nil || string(def.Kind) != kinds[k] {
				info.MemoryKind = ifrt.MemoryKind(kinds[k])
			}
		}
		var s ifrt.Sharding
		if len(devices) == 1 {
			s = ifrt.NewSingleDeviceSharding(devices[0], info.MemoryKind)
		} else {
			hs, err := ifrt.NewHloSharding(devices, info.MemoryKind, *op)
			if err != nil {
				return nil, err
			}
			s = hs
		}
		if info.Shape == nil {
			info.Shape, err = globalShape(dims[k], s)
			if err != nil {
				return nil, err
			}
		}
		if err := checkEven(s, info.Shape, dims[k]); err != nil {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: output %d of %s: %w", k, e.name, err)
		}
		e.outputs = append(e.outputs, info)
		e.outShard = append(e.outShard, s)
	}

	if fp, err := x.Fingerprint(); err == nil && fp != "" {
		e.fingerprint = fp
	} else {
		h := sha256.New()
		h.Write(p.Module)
		h.Write(options)
		e.fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	}
	return e, nil
}

// describeCompiled describes the parameters of a program internal/stablehlo
// cannot read from what the plugin says of the compiled one: their types
// and donation from its optimized program where it gives one, and at least
// their shardings from the Shardings extension, which jaxlib needs for
// arguments that carry no sharding of their own.
func (e *executable) describeCompiled(x *pjrt.Executable, devices ifrt.DeviceList, paramShardings [][]byte) {
	var ops []*ifrt.OpSharding
	for _, b := range paramShardings {
		op, ok := decodeOpSharding(b)
		if !ok {
			ops = nil
			break
		}
		ops = append(ops, op)
	}
	if len(devices) > 1 && ops == nil {
		return // where each parameter goes is unknown
	}
	if params, donatable, ok := compiledSignature(x, devices, ops); ok {
		e.params, e.donatable, e.knownParams, e.mayDonate = params, donatable, true, len(donatable) > 0
		return
	}
	for _, op := range ops {
		info := ifrt.ArgumentInfo{}
		if len(devices) > 1 {
			info.OpSharding = op
		}
		e.params = append(e.params, info)
	}
}

// globalShape is the shape of an array whose shards under s have the given
// per-device dims; tiles are assumed even (XLA pads uneven tiles).
func globalShape(dims []int64, s ifrt.Sharding) (ifrt.Shape, error) {
	shape := ifrt.Shape(slices.Clone(dims))
	hs, ok := s.(*ifrt.HloSharding)
	if !ok || hs.IsFullyReplicated() || hs.Spec.Type != ifrt.OpShardingOther {
		return shape, nil
	}
	tiles := hs.Spec.TileAssignmentDimensions
	sub := len(hs.Spec.LastTileDims)
	if hs.Spec.ReplicateOnLastTileDim {
		sub++
	}
	if len(tiles)-sub != len(shape) {
		return nil, ifrt.Errorf(ifrt.Internal, "pjrtifrt: output sharding %v does not fit per-device shape %v", hs.Spec, dims)
	}
	for i := range shape {
		shape[i] *= tiles[i]
	}
	return shape, nil
}

// checkEven reports a sharding that splits shape into shards of different
// shapes, or into shards other than perDevice (when given): XLA pads uneven
// shards to the largest one on the device, and ifrt arrays hold exact shards,
// so such programs are not supported.
func checkEven(s ifrt.Sharding, shape ifrt.Shape, perDevice []int64) error {
	domains, err := s.IndexDomains(shape)
	if err != nil {
		return err
	}
	for _, d := range domains {
		ds := d.Shape()
		if !ds.Equal(domains[0].Shape()) {
			return fmt.Errorf("%v splits %v into uneven shards (%v and %v); XLA pads them, ifrt arrays hold them exactly", s, shape, domains[0].Shape(), ds)
		}
		if perDevice != nil && !ds.Equal(perDevice) {
			return fmt.Errorf("%v gives shards of %v, the program's per-device buffers are %v", s, ds, ifrt.Shape(perDevice))
		}
	}
	return nil
}

// argumentInfo describes a parameter or result of the module text.
func argumentInfo(v stablehlo.Value) (ifrt.ArgumentInfo, error) {
	d, ok := ifrtconv.DType(v.Type.Elem)
	if !ok {
		return ifrt.ArgumentInfo{}, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: element type of %v is not supported", v.Type)
	}
	info := ifrt.ArgumentInfo{DType: d, Shape: ifrt.Shape(slices.Clone(v.Type.Shape))}
	if v.Sharding == "" {
		return info, nil
	}
	hs, err := stablehlo.ParseHloSharding(v.Sharding)
	if err != nil {
		return info, nil // an annotation we cannot read: leave it to the plugin
	}
	op, err := ifrtconv.OpSharding(hs)
	if err != nil {
		return info, nil // a kind ifrt cannot describe: leave it to the plugin
	}
	info.OpSharding = &op
	return info, nil
}

// decodeOpSharding converts a serialized xla.OpSharding; ok is false for
// encodings and kinds ifrt shardings cannot express.
func decodeOpSharding(b []byte) (*ifrt.OpSharding, bool) {
	var pb xlapb.OpSharding
	if err := proto.Unmarshal(b, &pb); err != nil {
		return nil, false
	}
	op := &ifrt.OpSharding{
		Type:                     ifrt.OpShardingType(pb.Type),
		TileAssignmentDimensions: pb.TileAssignmentDimensions,
		TileAssignmentDevices:    pb.TileAssignmentDevices,
		IotaReshapeDims:          pb.IotaReshapeDims,
		IotaTransposePerm:        pb.IotaTransposePerm,
		ReplicateOnLastTileDim:   pb.ReplicateOnLastTileDim,
	}
	switch op.Type {
	case ifrt.OpShardingReplicated, ifrt.OpShardingMaximal, ifrt.OpShardingOther:
	default:
		return nil, false
	}
	for _, t := range pb.LastTileDims {
		if ifrt.OpShardingType(t) != ifrt.OpShardingReplicated {
			return nil, false
		}
		op.LastTileDims = append(op.LastTileDims, ifrt.OpShardingReplicated)
	}
	return op, true
}

func (e *executable) Name() string                    { return e.name }
func (e *executable) Fingerprint() string             { return e.fingerprint }
func (e *executable) Devices() ifrt.DeviceList        { return e.devices }
func (e *executable) Parameters() []ifrt.ArgumentInfo { return e.params }
func (e *executable) Outputs() []ifrt.ArgumentInfo    { return e.outputs }
func (e *executable) DonatableParameters() []int      { return e.donatable }

// As sets *target to the PJRT executable when target is a **pjrt.Executable.
func (e *executable) As(target any) bool {
	if p, ok := target.(**pjrt.Executable); ok {
		*p = e.x
		return true
	}
	return false
}

func (e *executable) IsDeleted() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.deleted
}

func (e *executable) free() {
	e.mu.Lock()
	already := e.deleted
	e.deleted = true
	e.mu.Unlock()
	if !already {
		_ = e.x.Close()
	}
}

func (e *executable) Delete() *ifrt.Future {
	e.free()
	e.client.life.Executables.Remove(e)
	return nil
}

// Execute runs the program. Each argument must be an array of this client on
// exactly the executable's devices (in any order), with the sharding the
// program expects when that is known. Arguments the program donates are
// deleted; an argument whose buffers another array shares is never donated to
// PJRT, but is still deleted when the program declares it donated.
func (e *executable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	c := e.client
	if opts == nil {
		opts = &ifrt.ExecuteOptions{}
	}
	arrays, err := c.check.Execute(e, args, opts)
	if err != nil {
		return nil, err
	}
	n := len(e.devices)
	rows := make([][]*pjrt.Buffer, n)
	for i := range rows {
		rows[i] = make([]*pjrt.Buffer, len(arrays))
	}
	held := make([][]*devBuf, len(arrays))
	defer func() {
		for _, h := range held {
			releaseAll(h)
		}
	}()
	nonDonatable := make([]int64, 0, len(opts.NonDonatableInputs))
	for _, i := range opts.NonDonatableInputs {
		nonDonatable = append(nonDonatable, int64(i))
	}
	for i, a := range arrays {
		if e.knownParams {
			if p := e.params[i]; p.OpSharding != nil && n > 1 {
				if err := e.checkArgSharding(i, a, *p.OpSharding); err != nil {
					return nil, err
				}
			}
		}
		ad := a.ArraySpec.Sharding.Devices()
		if len(ad) != n {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d is on %d devices, %s runs on %d", i, len(ad), e.name, n)
		}
		if held[i], err = a.hold(); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d: %w", i, err)
		}
		shared := false
		for k, d := range e.devices {
			pos := ad.Index(d.ID)
			if pos < 0 {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d has no shard on device %d, which %s runs on", i, d.ID, e.name)
			}
			b := held[i][pos]
			// Our own reference plus the array's: more means another array shares it.
			if b.refs.Load() > 2 {
				shared = true
			}
			rows[e.rowOf[k]][i] = b.buf
		}
		if shared || slices.IndexFunc(arrays[:i], func(o *array) bool { return o == a }) >= 0 {
			nonDonatable = append(nonDonatable, int64(i))
		}
	}
	outs, events, err := e.x.Execute(ctx, rows, &pjrt.ExecuteOptions{
		NonDonatable: nonDonatable,
		LaunchID:     int(opts.LaunchID),
		NoEvents:     !opts.FillStatus,
	})
	if err != nil {
		if errors.Is(err, pjrt.ErrClosed) && e.IsDeleted() && c.checkOpen() == nil {
			return nil, ifrt.ErrExecutableDeleted // deleted while this call started
		}
		if ifrt.CodeOf(err) == ifrt.FailedPrecondition || ifrt.CodeOf(err) == ifrt.InvalidArgument {
			for i, a := range arrays {
				if a.IsDeleted() {
					return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d: %w", i, ifrt.ErrArrayDeleted)
				}
			}
		}
		return nil, fromPJRT(err)
	}
	res := &ifrt.ExecuteResult{Outputs: make([]ifrt.Array, len(e.outputs))}
	for k, info := range e.outputs {
		bufs := make([]*devBuf, n)
		for i := range e.devices {
			bufs[i] = newDevBuf(outs[e.rowOf[i]][k])
		}
		res.Outputs[k] = c.newArray(ifrt.ArraySpec{DType: info.DType, Shape: info.Shape, Sharding: e.outShard[k]}, bufs)
	}
	// Extra outputs the metadata does not describe (never expected) are closed.
	for _, row := range outs {
		for k := len(e.outputs); k < len(row); k++ {
			_ = row[k].Close()
		}
	}
	for i, a := range arrays {
		if slices.Contains(opts.NonDonatableInputs, i) {
			continue
		}
		donated := e.knownParams && slices.Contains(e.donatable, i)
		if !donated && (!e.knownParams || e.mayDonate) {
			for _, b := range held[i] {
				if b.buf.IsDeleted() {
					donated = true
					break
				}
			}
		}
		if donated {
			a.Delete()
			res.Donated = append(res.Donated, i)
		}
	}
	if opts.FillStatus {
		res.Status = eventsFuture(events)
	}
	return res, nil
}

// checkArgSharding verifies that each device holds the shard the program
// expects there.
func (e *executable) checkArgSharding(i int, a *array, op ifrt.OpSharding) error {
	want, err := (&ifrt.HloSharding{DeviceList: e.devices, Spec: op}).IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d: %s expects %v: %w", i, e.name, op, err)
	}
	got, err := a.ArraySpec.Sharding.IndexDomains(a.ArraySpec.Shape)
	if err != nil {
		return err
	}
	ad := a.ArraySpec.Sharding.Devices()
	for k, d := range e.devices {
		pos := ad.Index(d.ID)
		if pos < 0 || !slices.Equal(got[pos], want[k]) {
			return ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: argument %d has %v, %s wants %v", i, a.ArraySpec.Sharding, e.name, op)
		}
	}
	return nil
}
