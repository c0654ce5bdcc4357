package pjrt

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

// Executable is a compiled program loaded on a client's devices
// (PJRT_LoadedExecutable, with its PJRT_Executable for metadata). It is safe for
// concurrent use; Close it when done.
type Executable struct {
	compiled
	client      *Client
	addressable []*Device
}

func (c *Client) newExecutable(le unsafe.Pointer) (*Executable, error) {
	a := c.st.api
	x := &Executable{client: c, compiled: compiled{res: newResource(a, c.st, resExecutable, le), loaded: true}}
	runtime.AddCleanup(x, (*resource).cleanup, x.res)
	fail := func(err error) (*Executable, error) {
		_ = x.res.close()
		return nil, err
	}
	for _, fn := range []apiFn{fnLoadedExecutableGetExecutable, fnExecutableName, fnExecutableNumReplicas,
		fnExecutableNumPartitions, fnExecutableNumOutputs, fnLoadedExecutableAddressableDevices, fnExecutableDestroy} {
		if err := a.need(fn); err != nil {
			return fail(err)
		}
	}
	e, err := a.getExecutable(le)
	if err != nil {
		return fail(err)
	}
	x.res.extra = e
	if err := x.describe(e); err != nil {
		return fail(err)
	}
	devs, err := a.loadedDevices(le)
	if err != nil {
		return fail(err)
	}
	for _, p := range devs {
		if d := c.devByPtr[p]; d != nil {
			x.addressable = append(x.addressable, d)
		}
	}
	return x, nil
}

// Client returns the executable's client.
func (x *Executable) Client() *Client { return x.client }

// AddressableDevices returns the devices this process runs the executable on,
// in the order Execute takes argument rows.
func (x *Executable) AddressableDevices() []*Device {
	return append([]*Device(nil), x.addressable...)
}

// OutputMemoryKinds returns the memory kind of each output.
func (x *Executable) OutputMemoryKinds() ([]string, error) {
	return query(&x.compiled, fnExecutableOutputMemoryKinds, func(e unsafe.Pointer) ([]string, error) {
		return x.res.api.memoryKinds(e, 0, x.numOutputs)
	})
}

// ParameterMemoryKinds returns the memory kind of each of the numParams
// parameters (PJRT API 0.102 or newer).
func (x *Executable) ParameterMemoryKinds(numParams int) ([]string, error) {
	return query(&x.compiled, fnExecutableParameterMemoryKinds, func(e unsafe.Pointer) ([]string, error) {
		return x.res.api.memoryKinds(e, 1, numParams)
	})
}

// Fingerprint returns the plugin's fingerprint of the compiled program. Some
// plugins (XLA:CPU) answer UNIMPLEMENTED; do not key a cache on it.
func (x *Executable) Fingerprint() (string, error) {
	return query(&x.compiled, fnExecutableFingerprint, x.res.api.executableFingerprint)
}

// GeneratedCodeSize returns the size of the generated code in bytes.
func (x *Executable) GeneratedCodeSize() (int64, error) {
	return query(&x.compiled, fnExecutableSizeOfGeneratedCodeInBytes, func(e unsafe.Pointer) (int64, error) {
		return x.res.api.executableCount(e, 3)
	})
}

// CostAnalysis returns the plugin's cost properties of the program (for
// example "flops" and "bytes accessed"), by name; what is reported differs by
// plugin.
func (x *Executable) CostAnalysis() (map[string]any, error) {
	return query(&x.compiled, fnExecutableGetCostAnalysis, x.res.api.costAnalysis)
}

// CompiledMemoryStats returns the compiler's account of the memory one
// device uses to run the program (PJRT API 0.40 or newer; the peak from
// 0.72, zero before).
func (x *Executable) CompiledMemoryStats() (ifrt.CompiledMemoryStats, error) {
	return query(&x.compiled, fnExecutableGetCompiledMemoryStats, x.res.api.compiledMemoryStats)
}

// OptimizedProgram returns the program as the compiler left it, and its
// format: "hlo" for a serialized xla.HloModuleProto.
func (x *Executable) OptimizedProgram() (format string, code []byte, err error) {
	err = x.with(fnExecutableOptimizedProgram, func(e unsafe.Pointer) (err error) {
		format, code, err = x.res.api.optimizedProgram(e)
		return err
	})
	return format, code, err
}

// CompileOptions returns the serialized xla.CompileOptionsProto the executable
// was compiled with (PJRT API 0.87 or newer).
func (x *Executable) CompileOptions() ([]byte, error) {
	return query(&x.compiled, fnExecutableGetCompileOptions, x.res.api.compileOptions)
}

// DeviceAssignment returns the serialized xla.DeviceAssignmentProto of the
// loaded executable (PJRT API 0.79 or newer).
func (x *Executable) DeviceAssignment() ([]byte, error) {
	return callWith(x.res.api, x.res, fnLoadedExecutableGetDeviceAssignment, x.res.api.deviceAssignment)
}

// LogicalIDs returns the (replica, partition) of each device in
// AddressableDevices order (PJRT API 0.96 or newer).
func (x *Executable) LogicalIDs() ([][2]int, error) {
	return callWith(x.res.api, x.res, fnLoadedExecutableAddressableDeviceLogicalIDs, x.res.api.logicalIDs)
}

// OutputShardings returns the serialized xla.OpSharding of each output, from
// the plugin's Shardings extension; UNIMPLEMENTED if the plugin lacks it.
func (x *Executable) OutputShardings() ([][]byte, error) { return x.shardings(0) }

// ParameterShardings returns the serialized xla.OpSharding of each parameter,
// from the plugin's Shardings extension; UNIMPLEMENTED if the plugin lacks it.
func (x *Executable) ParameterShardings() ([][]byte, error) { return x.shardings(1) }

func (x *Executable) shardings(which int) ([][]byte, error) {
	if _, err := x.res.acquire(); err != nil {
		return nil, err
	}
	defer x.res.release()
	out, ok, err := x.res.api.shardings(x.res.extra, which)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(ifrt.Unimplemented, "the plugin has no Shardings extension")
	}
	return out, nil
}

// Execute launches the executable (PJRT_LoadedExecutable_Execute). args has one
// row per device, in AddressableDevices order (one row when opts.Device is
// set), each row holding the program's arguments for that device. It returns
// one row of NumOutputs buffers per device and, unless opts.NoEvents, one
// completion event per device; the caller closes all of them.
//
// Execution is asynchronous: outputs can be used (read, passed to another
// Execute) at once and wait for the work themselves. ctx is checked before the
// launch only. Arguments donated to outputs by the program become deleted
// (IsDeleted) but must still be closed.
func (x *Executable) Execute(ctx context.Context, args [][]*Buffer, opts *ExecuteOptions) ([][]*Buffer, []*Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var o ExecuteOptions
	if opts != nil {
		o = *opts
	}
	c := x.client
	a := x.res.api
	if err := a.need(fnLoadedExecutableExecute); err != nil {
		return nil, nil, err
	}
	numDevices := len(args)
	if numDevices == 0 {
		return nil, nil, errorf(ifrt.InvalidArgument, "Execute: no argument rows (one per device)")
	}
	var devPtr unsafe.Pointer
	if o.Device != nil {
		if o.Device.client != c {
			return nil, nil, errorf(ifrt.InvalidArgument, "Execute: device belongs to another client")
		}
		if numDevices != 1 {
			return nil, nil, errorf(ifrt.InvalidArgument, "Execute: %d argument rows with ExecuteOptions.Device set, want 1", numDevices)
		}
		devPtr = o.Device.ptr
	} else if len(x.addressable) > 0 && numDevices != len(x.addressable) {
		return nil, nil, errorf(ifrt.InvalidArgument, "Execute: %d argument rows, the executable runs on %d addressable devices", numDevices, len(x.addressable))
	}
	numArgs := len(args[0])
	for i, row := range args {
		if len(row) != numArgs {
			return nil, nil, errorf(ifrt.InvalidArgument, "Execute: row %d has %d arguments, row 0 has %d", i, len(row), numArgs)
		}
	}

	if _, err := c.st.acquire(); err != nil {
		return nil, nil, err
	}
	defer c.st.release()
	lptr, err := x.res.acquire()
	if err != nil {
		return nil, nil, err
	}
	defer x.res.release()

	// Hold every distinct argument buffer for the call.
	flat := make([]unsafe.Pointer, 0, numDevices*numArgs)
	held := make(map[*resource]unsafe.Pointer, numDevices*numArgs)
	defer func() {
		for r := range held {
			r.release()
		}
	}()
	for i, row := range args {
		for j, b := range row {
			if b == nil {
				return nil, nil, errorf(ifrt.InvalidArgument, "Execute: argument %d of row %d is nil", j, i)
			}
			if b.client != c {
				return nil, nil, errorf(ifrt.InvalidArgument, "Execute: argument %d of row %d belongs to another client", j, i)
			}
			p, ok := held[b.res]
			if !ok {
				if p, err = b.res.acquire(); err != nil {
					return nil, nil, fmt.Errorf("pjrt: Execute: argument %d of row %d: %w", j, i, err)
				}
				held[b.res] = p
			}
			flat = append(flat, p)
		}
	}

	outPtrs, evPtrs, err := a.execute(lptr, flat, numDevices, numArgs, x.numOutputs, devPtr, o.NonDonatable, o.LaunchID, !o.NoEvents)
	runtime.KeepAlive(args)
	if err != nil {
		return nil, nil, err
	}
	outs := make([][]*Buffer, numDevices)
	for d := range outs {
		outs[d] = make([]*Buffer, x.numOutputs)
		for k := range outs[d] {
			outs[d][k] = c.newBuffer(outPtrs[d*x.numOutputs+k])
		}
	}
	var events []*Event
	if !o.NoEvents {
		events = make([]*Event, numDevices)
		for d := range events {
			events[d] = newEvent(c, evPtrs[d])
		}
	}
	return outs, events, nil
}

// Close destroys the executable. It is idempotent.
func (x *Executable) Close() error { return x.res.close() }

func (x *Executable) String() string {
	return fmt.Sprintf("pjrt.Executable(%s, %d outputs)", x.name, x.numOutputs)
}
