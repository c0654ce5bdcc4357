package sidecar

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/openpathways/pathways/ifrt"
)

// Tensor is an array's dense row-major bytes on the host; Data is nil in the
// descriptions of outputs.
type Tensor struct {
	DType ifrt.DType
	Shape ifrt.Shape
	Data  []byte
}

// Call runs a program of a session on inputs placed on the stand-in for
// deviceID, first loading it from pickle when the running sidecar lacks it,
// and returns the bytes of outputs of the given dtypes and shapes. An
// exception of the user's function is a *UserError (code UNKNOWN); the
// sidecar dying during the call is DATA_LOSS.
func (p *Process) Call(ctx context.Context, session string, program uint64, pickle []byte, deviceID ifrt.DeviceID, inputs, outputs []Tensor) ([][]byte, error) {
	req := &request{Op: "call", Session: session, Program: program, DeviceID: int(deviceID)}
	var paths []string
	defer func() {
		for _, path := range paths {
			os.Remove(path)
		}
	}()
	for _, in := range inputs {
		t, err := describe(in)
		if err != nil {
			return nil, err
		}
		t.Path, t.Size = p.tempPath("in"), int64(len(in.Data))
		paths = append(paths, t.Path)
		if err := os.WriteFile(t.Path, in.Data, 0o600); err != nil {
			return nil, ifrt.Errorf(ifrt.Internal, "sidecar: writing an input: %v", err)
		}
		req.Inputs = append(req.Inputs, t)
	}
	for _, out := range outputs {
		t, err := describe(out)
		if err != nil {
			return nil, err
		}
		t.Path = p.tempPath("out")
		paths = append(paths, t.Path)
		req.Outputs = append(req.Outputs, t)
	}
	rep, err := p.exchange(ctx, req, nil, &loadRequest{key: programKey{session, program}, pickle: pickle})
	if err != nil {
		return nil, err
	}
	if err := replyError(rep); err != nil {
		var ue *UserError
		if errors.As(err, &ue) {
			return nil, ifrt.WithCode(ifrt.Unknown, err)
		}
		return nil, err
	}
	if len(rep.Outputs) != len(outputs) {
		return nil, ifrt.Errorf(ifrt.Internal, "sidecar: %d outputs, want %d", len(rep.Outputs), len(outputs))
	}
	res := make([][]byte, len(outputs))
	for i, t := range req.Outputs {
		if res[i], err = os.ReadFile(t.Path); err != nil {
			return nil, ifrt.Errorf(ifrt.Internal, "sidecar: reading output %d: %v", i, err)
		}
		if outputs[i].DType == ifrt.STRING {
			continue // its content has no fixed size
		}
		want, _ := ifrt.StridedRegionSize(outputs[i].DType, outputs[i].Shape, nil)
		if int64(len(res[i])) != want {
			return nil, ifrt.Errorf(ifrt.Internal, "sidecar: output %d has %d bytes, want %d", i, len(res[i]), want)
		}
	}
	return res, nil
}

func describe(t Tensor) (tensorFile, error) {
	name, err := numpyName(t.DType)
	if err != nil {
		return tensorFile{}, err
	}
	shape := []int64(t.Shape)
	if shape == nil {
		shape = []int64{}
	}
	if t.Data != nil && t.DType != ifrt.STRING {
		want, err := ifrt.StridedRegionSize(t.DType, t.Shape, nil)
		if err != nil {
			return tensorFile{}, err
		}
		if int64(len(t.Data)) != want {
			return tensorFile{}, ifrt.Errorf(ifrt.InvalidArgument, "sidecar: %v%v needs %d bytes, got %d", t.DType, t.Shape, want, len(t.Data))
		}
	}
	return tensorFile{DType: name, Shape: shape}, nil
}

// String describes the sidecar for logs.
func (v Versions) String() string {
	return fmt.Sprintf("protocol %d, Python %s, JAX %s, cloudpickle %s", v.Protocol, v.Python, v.JAX, v.Cloudpickle)
}
