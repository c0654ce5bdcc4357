package pjrt

import "unsafe"

// compiled is what an Executable and a CompiledExecutable share: the
// PJRT_Executable that describes a compiled program, loaded or not, and what
// it says of the program.
type compiled struct {
	res    *resource
	loaded bool // res is a PJRT_LoadedExecutable, whose PJRT_Executable is res.extra

	name          string
	numReplicas   int
	numPartitions int
	numOutputs    int
}

// describe reads the program's name and counts from its PJRT_Executable e.
func (x *compiled) describe(e unsafe.Pointer) error {
	a := x.res.api
	var err error
	if x.name, err = a.executableName(e); err != nil {
		return err
	}
	counts := make([]int64, 3)
	for i := range counts {
		if counts[i], err = a.executableCount(e, i); err != nil {
			return err
		}
	}
	x.numReplicas, x.numPartitions, x.numOutputs = int(counts[0]), int(counts[1]), int(counts[2])
	return nil
}

// Name returns the program's name.
func (x *compiled) Name() string { return x.name }

// NumReplicas returns the number of replicas it was compiled for.
func (x *compiled) NumReplicas() int { return x.numReplicas }

// NumPartitions returns the number of SPMD partitions it was compiled for.
func (x *compiled) NumPartitions() int { return x.numPartitions }

// NumOutputs returns the number of outputs per device.
func (x *compiled) NumOutputs() int { return x.numOutputs }

// with runs f with the PJRT_Executable held, once the plugin is known to
// have fn.
func (x *compiled) with(fn apiFn, f func(e unsafe.Pointer) error) error {
	if err := x.res.api.need(fn); err != nil {
		return err
	}
	e, err := x.res.acquire()
	if err != nil {
		return err
	}
	defer x.res.release()
	if x.loaded {
		e = x.res.extra
	}
	return f(e)
}

// query returns what get answers for the PJRT_Executable (see with).
func query[T any](x *compiled, fn apiFn, get func(e unsafe.Pointer) (T, error)) (T, error) {
	var out T
	err := x.with(fn, func(e unsafe.Pointer) (err error) {
		out, err = get(e)
		return err
	})
	return out, err
}

// OutputTypes returns the element type of each output (per device).
func (x *compiled) OutputTypes() ([]BufferType, error) {
	return query(x, fnExecutableOutputElementTypes, x.res.api.outputTypes)
}

// OutputDims returns the dimensions of each output (per device).
func (x *compiled) OutputDims() ([][]int64, error) {
	return query(x, fnExecutableOutputDimensions, func(e unsafe.Pointer) ([][]int64, error) {
		return x.res.api.outputDims(e, x.numOutputs)
	})
}

// Serialize returns the compiled program's bytes for
// Client.DeserializeExecutable. The format is the plugin's own and is only
// valid for the same plugin build.
func (x *compiled) Serialize() ([]byte, error) {
	return query(x, fnExecutableSerialize, x.res.api.serialize)
}
