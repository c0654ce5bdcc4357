package pjrt

import (
	"context"
	"fmt"
	"runtime"

	"github.com/openpathways/pathways/ifrt"
)

// Topology is a description of a set of devices that need not be present
// (PJRT_TopologyDescription), for ahead-of-time compilation: libtpu compiles
// for a named TPU slice such as "v5e:2x2" on a machine without TPUs. Close it
// when done. CPU plugins answer UNIMPLEMENTED.
type Topology struct {
	plugin          *Plugin
	res             *resource
	name            string
	platformName    string
	platformVersion string
	devices         []DeviceDescription
}

// DeviceDescription describes one device of a Topology.
type DeviceDescription struct {
	ID           int
	ProcessIndex int
	Kind         string
	DebugString  string
	String       string
	// Attributes holds the plugin's device attributes (TPU: "coords",
	// "core_on_chip", …); values are string, int64, []int64, float32 or bool.
	Attributes map[string]any
}

// NewTopology creates the plugin's description of the named topology
// (PJRT_TopologyDescription_Create) with plugin-specific named options.
func (p *Plugin) NewTopology(ctx context.Context, name string, opts map[string]any) (*Topology, error) {
	nvs, err := p.createOptions(ctx, opts)
	if err != nil {
		return nil, err
	}
	for _, fn := range []apiFn{fnTopologyDescriptionCreate, fnTopologyDescriptionDestroy,
		fnTopologyDescriptionPlatformName, fnTopologyDescriptionPlatformVersion,
		fnTopologyDescriptionGetDeviceDescriptions} {
		if err := p.api.need(fn); err != nil {
			return nil, err
		}
	}
	ptr, err := p.api.createTopology(name, nvs)
	if err != nil {
		return nil, fmt.Errorf("pjrt: creating topology %q: %w", name, err)
	}
	t := &Topology{plugin: p, name: name, res: newResource(p.api, nil, resTopology, ptr)}
	runtime.AddCleanup(t, (*resource).cleanup, t.res)
	pname, version, devs, err := p.api.topologyInfo(ptr)
	if err != nil {
		_ = t.res.close()
		return nil, err
	}
	t.platformName, t.platformVersion = pname, version
	for _, d := range devs {
		t.devices = append(t.devices, DeviceDescription{
			ID: d.id, ProcessIndex: d.processIndex, Kind: d.kind,
			DebugString: d.debug, String: d.str, Attributes: d.attrs,
		})
	}
	return t, nil
}

// Name returns the topology name it was created with.
func (t *Topology) Name() string { return t.name }

// PlatformName returns the platform, e.g. "tpu".
func (t *Topology) PlatformName() string { return t.platformName }

// PlatformVersion returns the plugin's platform version string.
func (t *Topology) PlatformVersion() string { return t.platformVersion }

// Devices describes the topology's devices.
func (t *Topology) Devices() []DeviceDescription {
	return append([]DeviceDescription(nil), t.devices...)
}

// Close destroys the topology description. It is idempotent.
func (t *Topology) Close() error { return t.res.close() }

// Compile compiles program for the topology without devices (PJRT_Compile);
// arguments as for Client.Compile. The result can be serialized and later
// loaded with Client.DeserializeExecutable on a client of that topology.
func (t *Topology) Compile(ctx context.Context, program []byte, format string, compileOptions []byte) (*CompiledExecutable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(program) == 0 || format == "" || len(compileOptions) == 0 {
		return nil, errorf(ifrt.InvalidArgument, "Topology.Compile: program, format and compile options must not be empty")
	}
	a := t.res.api
	for _, fn := range []apiFn{fnCompile, fnExecutableDestroy, fnExecutableName, fnExecutableNumReplicas,
		fnExecutableNumPartitions, fnExecutableNumOutputs} {
		if err := a.need(fn); err != nil {
			return nil, err
		}
	}
	tp, err := t.res.acquire()
	if err != nil {
		return nil, err
	}
	defer t.res.release()
	e, err := a.compileForTopology(tp, nil, program, format, compileOptions)
	if err != nil {
		return nil, err
	}
	x := &CompiledExecutable{topology: t, compiled: compiled{res: newResource(a, nil, resCompiled, e)}}
	runtime.AddCleanup(x, (*resource).cleanup, x.res)
	if err := x.describe(e); err != nil {
		_ = x.res.close()
		return nil, err
	}
	return x, nil
}

// CompiledExecutable is a program compiled for a Topology and not loaded on
// any device (PJRT_Executable). Close it when done.
type CompiledExecutable struct {
	compiled
	topology *Topology
}

// Close destroys the executable. It is idempotent.
func (x *CompiledExecutable) Close() error { return x.res.close() }
