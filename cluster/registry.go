package cluster

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
)

// The cluster as a named backend: ifrt.Open(ctx, "pathways:rm=host:29001").
func init() {
	ifrt.Register("pathways", func(ctx context.Context, config string) (ifrt.Client, error) {
		opts := ifrt.ParseConfig(config)
		addr, ok := opts["rm"]
		if !ok || addr == "" {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, `pathways: the backend needs the resource manager's address: "pathways:rm=host:port"`)
		}
		for k := range opts {
			if k != "rm" {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "pathways: unknown option %q (known: rm)", k)
			}
		}
		return Connect(ctx, addr)
	})
}
