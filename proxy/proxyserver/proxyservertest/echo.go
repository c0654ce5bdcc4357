package proxyservertest

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// EchoPlugin is a plugin program handler (Config.PluginPrograms) whose
// executable returns copies of its arguments; a body of {"fail": N} makes
// each execution fail with ifrt code N. Any other field is INVALID_ARGUMENT.
func EchoPlugin(_ context.Context, backend ifrt.Client, body json.RawMessage) (*proxyserver.PluginExecutable, error) {
	var req struct {
		Fail int `json:"fail"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "echoRequest: %v", err)
	}
	return &proxyserver.PluginExecutable{
		Execute: func(ctx context.Context, args []ifrt.Array) ([]ifrt.Array, error) {
			if req.Fail != 0 {
				return nil, ifrt.Errorf(ifrt.Code(req.Fail), "echoRequest: failing as asked")
			}
			var out []ifrt.Array
			for _, a := range args {
				c, err := backend.CopyArrays(ctx, []ifrt.Array{a}, a.Sharding().Devices(), nil, ifrt.AlwaysCopy)
				if err != nil {
					return nil, err
				}
				out = append(out, c...)
			}
			return out, nil
		},
	}, nil
}
