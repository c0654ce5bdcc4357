package pjrtifrt

import (
	"bytes"
	"context"
	"fmt"

	"github.com/openpathways/pathways/ifrt"
)

var _ ifrt.ExecutableSerializer = (*Client)(nil)

// CompilerVersion is the plugin's platform and version, PJRT C API version
// and XLA version: a serialized executable is valid for that build only.
func (c *Client) CompilerVersion() string {
	p := c.pc.Plugin()
	major, minor := p.Version()
	xla, _ := p.XLAVersion()
	return fmt.Sprintf("pjrt %s %s api %d.%d xla %v", c.platform.Name, c.platform.Version, major, minor, xla)
}

// SerializeExecutable returns the plugin's serialized form of exe.
func (c *Client) SerializeExecutable(exe ifrt.LoadedExecutable) ([]byte, error) {
	e, ok := exe.(*executable)
	if !ok || e.client != c {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "pjrtifrt: %T is not an executable of this client", exe)
	}
	data, err := e.x.Serialize()
	if err != nil {
		return nil, fromPJRT(err)
	}
	return data, nil
}

// LoadExecutable loads an executable that SerializeExecutable returned for the
// same program and options, without compiling it.
func (c *Client) LoadExecutable(ctx context.Context, serialized []byte, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok {
		return nil, ifrt.Errorf(ifrt.Unimplemented, "pjrtifrt: cannot load a %T", program)
	}
	if opts == nil {
		opts = &ifrt.CompileOptions{}
	}
	devices := opts.Devices
	if len(devices) == 0 {
		if len(c.addressable) == 0 {
			return nil, ifrt.Errorf(ifrt.FailedPrecondition, "pjrtifrt: the client has no addressable device")
		}
		devices = c.addressable[:1]
	}
	options, err := compileOptions(devices, opts.XLA, bytes.Contains(p.Module, []byte("sdy")))
	if err != nil {
		return nil, err
	}
	x, err := c.pc.DeserializeExecutable(ctx, serialized)
	if err != nil {
		return nil, fromPJRT(err)
	}
	e, err := c.newExecutable(x, p, devices, options)
	if err != nil {
		_ = x.Close()
		return nil, err
	}
	return c.track(e)
}
