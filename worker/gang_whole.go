package worker

import (
	"context"
	"fmt"
	"slices"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
)

// gangProgram is a compiled gang program: the interpreter's executable,
// which plans each launch (blocks, exchanges, collectives), and, for an
// auto-sharded program on a CPU backend other than gocpu, the same module
// compiled whole on the backend for one device, which then computes the
// global values in place of the interpreter.
type gangProgram struct {
	*gocpu.GangExecutable
	whole ifrt.LoadedExecutable // nil: the interpreter computes
}

// release frees what the program holds on the backend. A launch still
// running it fails (the executable is deleted), as one of a released
// program would.
func (p *gangProgram) release() {
	if p.whole != nil {
		p.whole.Delete()
	}
}

// wholeRun is RunGroup's whole computation for p, or nil when the
// interpreter computes.
func (p *gangProgram) wholeRun(backend ifrt.Client) stablehlo.WholeRun {
	if p.whole == nil {
		return nil
	}
	return func(ctx context.Context, args []*stablehlo.Tensor) ([]*stablehlo.Tensor, error) {
		return runWhole(ctx, backend, p.whole, args)
	}
}

// compileWhole compiles an auto-sharded module for one device of a CPU
// backend, without partitions: every partition of such a program computes
// the same global values, and the backend's compiled code computes them
// faster than the interpreter, in the same host memory. (An accelerator's
// one device may not hold the global values the interpreter holds in host
// memory.) It returns nil (and logs why) where the backend cannot, or
// compiles a signature other than the interpreter's; the interpreter then
// computes.
func compileWhole(ctx context.Context, w *Server, prog *gocpu.GangExecutable, module []byte) ifrt.LoadedExecutable {
	devs := w.cfg.Backend.AddressableDevices()
	if len(devs) == 0 || !prog.Grouped() || w.cfg.Backend.Platform().Name != "cpu" {
		return nil
	}
	exe, err := w.cfg.Backend.Compile(ctx, &ifrt.MLIRProgram{Module: module}, &ifrt.CompileOptions{Devices: devs[:1]})
	if err == nil {
		if err = sameSignature(prog, exe); err != nil {
			exe.Delete()
		}
	}
	if err != nil {
		w.log.Info("an auto-sharded program spanning workers runs on the host interpreter: the backend does not compile it whole",
			"program", prog.Name(), "error", err)
		return nil
	}
	return exe
}

// sameSignature checks that exe takes and returns what prog's global
// program does.
func sameSignature(prog *gocpu.GangExecutable, exe ifrt.LoadedExecutable) error {
	same := func(a, b []ifrt.ArgumentInfo) bool {
		return slices.EqualFunc(a, b, func(x, y ifrt.ArgumentInfo) bool {
			return x.DType == y.DType && slices.Equal(x.Shape, y.Shape)
		})
	}
	if !same(prog.Parameters(), exe.Parameters()) || !same(prog.Outputs(), exe.Outputs()) {
		return ifrt.Errorf(ifrt.Internal, "worker: the backend compiled %s to other parameters or outputs than the module declares", prog.Name())
	}
	return nil
}

// runWhole runs exe on the global arguments: each one becomes an array on
// exe's device (no copy where the backend keeps host memory), none is
// donated (args belong to the interpreter), and each output is read back
// into memory of its own.
func runWhole(ctx context.Context, backend ifrt.Client, exe ifrt.LoadedExecutable, args []*stablehlo.Tensor) ([]*stablehlo.Tensor, error) {
	dev := exe.Devices()[0]
	in := make([]ifrt.Array, len(args))
	defer deleteAll(in)
	keep := make([]int, len(args))
	for i, t := range args {
		keep[i] = i
		d, ok := ifrtconv.DType(t.Type.Elem)
		if !ok {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "worker: argument %d: element type %s has no IFRT dtype", i, t.Type.Elem)
		}
		spec := ifrt.ArraySpec{DType: d, Shape: ifrt.Shape(slices.Clone(t.Type.Shape)), Sharding: ifrt.NewSingleDeviceSharding(dev, "")}
		var err error
		if in[i], err = backend.MakeArrayFromHostBuffer(ctx, t.Data, spec, hostBufferOptions(backend)); err != nil {
			return nil, fmt.Errorf("worker: argument %d of the whole program: %w", i, err)
		}
	}
	res, err := exe.Execute(ctx, in, &ifrt.ExecuteOptions{NonDonatableInputs: keep})
	if err != nil {
		return nil, err
	}
	defer deleteAll(res.Outputs)
	out := make([]*stablehlo.Tensor, len(res.Outputs))
	for k, o := range res.Outputs {
		e, ok := ifrtconv.ElemType(o.DType())
		if !ok {
			return nil, ifrt.Errorf(ifrt.Internal, "worker: output %d of the whole program has dtype %v", k, o.DType())
		}
		data, err := ifrt.ArrayBytes(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("worker: output %d of the whole program: %w", k, err)
		}
		out[k] = &stablehlo.Tensor{Type: stablehlo.TensorType{Elem: e, Shape: slices.Clone([]int64(o.Shape()))}, Data: data}
	}
	return out, nil
}
