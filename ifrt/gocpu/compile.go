package gocpu

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
)

func (c *Client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	return nil, ifrt.Errorf(ifrt.Unimplemented, "gocpu: compiling programs is not implemented yet")
}

type executable struct{ ifrt.UnimplementedExecutable }

func (e *executable) free() {}
