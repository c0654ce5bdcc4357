package sidecar

import (
	"context"
	"errors"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// colocatedExecutable is a colocated Python program of one session, run by
// the sidecar on the host's CPU device.
type colocatedExecutable struct {
	backend.DescribedExecutable
	c       *Client
	program uint64
	pickle  []byte
	ins     []ifrt.ArraySpec
	outs    []ifrt.ArraySpec
}

var _ ifrt.LoadedExecutable = (*colocatedExecutable)(nil)

// compileColocated checks a colocated Python program; the sidecar loads it at
// its first execution.
func (c *Client) compileColocated(p *ifrt.CustomCallProgram) (ifrt.LoadedExecutable, error) {
	if p.Type != ifrt.ColocatedPythonType {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "sidecar: custom-call programs of type %q are not supported (only %q)", p.Type, ifrt.ColocatedPythonType)
	}
	if len(p.Devices) != 1 || p.Devices[0].ID != c.cpuDevice.ID {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: colocated Python program %s is for devices %v; this host runs them on its CPU device %d", p.Name, p.Devices, c.cpuDevice.ID)
	}
	e := &colocatedExecutable{
		c: c, program: c.nextProgram.Add(1), pickle: p.Program, ins: p.InputSpecs, outs: p.OutputSpecs,
	}
	e.Describe(p.Name, ifrt.DeviceList{c.cpuDevice}, p.InputSpecs, p.OutputSpecs)
	for what, specs := range map[string][]ifrt.ArraySpec{"input": p.InputSpecs, "output": p.OutputSpecs} {
		for i, s := range specs {
			if _, err := numpyName(s.DType); err != nil {
				return nil, err
			}
			if what == "input" && s.DType == ifrt.STRING {
				return nil, ifrt.Errorf(ifrt.Unimplemented, "sidecar: input %d of %s is a STRING array; colocated Python takes STRING arrays as outputs only", i, p.Name)
			}
			if devs := s.Sharding.Devices(); len(devs) != 1 || devs[0].ID != c.cpuDevice.ID {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: %s %d of %s is on devices %v, not this host's CPU device %d", what, i, p.Name, devs, c.cpuDevice.ID)
			}
		}
	}
	return e, nil
}

func (e *colocatedExecutable) Delete() *ifrt.Future {
	if e.MarkDeleted() {
		e.c.proc.Unload(e.program)
	}
	return ifrt.ReadyFuture(nil)
}

// Execute sends the arguments' bytes to the sidecar, runs the function there
// and makes the outputs on the host's CPU device.
func (e *colocatedExecutable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	if e.IsDeleted() {
		return nil, ifrt.ErrExecutableDeleted
	}
	if err := ifrt.CheckArguments("sidecar", e, args); err != nil {
		return nil, err
	}
	inputs := make([]Tensor, len(args))
	for i, a := range args {
		if devs := a.Sharding().Devices(); len(devs) != 1 || devs[0].ID != e.c.cpuDevice.ID {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: argument %d of %s is on devices %v, not this host's CPU device %d", i, e.Name(), devs, e.c.cpuDevice.ID)
		}
		size, err := ifrt.StridedRegionSize(a.DType(), a.Shape(), nil)
		if err != nil {
			return nil, err
		}
		inputs[i] = Tensor{DType: a.DType(), Shape: a.Shape(), Data: make([]byte, size)}
		if err := a.CopyToHostBuffer(ctx, inputs[i].Data, nil); err != nil {
			return nil, err
		}
	}
	outputs := make([]Tensor, len(e.outs))
	for i, s := range e.outs {
		outputs[i] = Tensor{DType: s.DType, Shape: s.Shape}
	}
	res, err := e.c.proc.Call(ctx, e.c.sidecarSession(ctx), e.program, e.pickle, e.c.cpuDevice.ID, inputs, outputs)
	if err != nil {
		var ue *UserError
		if errors.As(err, &ue) {
			return nil, ifrt.Errorf(ifrt.Unknown, "colocated Python function %s raised %s: %s", e.Name(), ue.Type, ue.Message)
		}
		return nil, err
	}
	out := make([]ifrt.Array, len(res))
	for i, b := range res {
		if e.outs[i].DType == ifrt.STRING {
			out[i] = &stringArray{Described: backend.Described{ArraySpec: e.outs[i]}, content: b}
			continue
		}
		if out[i], err = e.c.cpu.MakeArrayFromHostBuffer(ctx, b, e.outs[i], nil); err != nil {
			for _, o := range out[:i] {
				o.Delete()
			}
			return nil, err
		}
	}
	r := &ifrt.ExecuteResult{Outputs: out}
	if opts != nil && opts.FillStatus {
		r.Status = ifrt.ReadyFuture(nil)
	}
	return r, nil
}
