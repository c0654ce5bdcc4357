package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/sidecar"
)

// withSidecar starts the sidecar command (split at spaces) under supervision
// and returns the backend with the host's CPU device beside its devices, for
// colocated Python, and what stops both.
func withSidecar(ctx context.Context, backend ifrt.Client, command string, log *slog.Logger) (ifrt.Client, func(), error) {
	proc, err := sidecar.Start(ctx, sidecar.Config{Command: strings.Fields(command), Logger: log})
	if err != nil {
		return nil, nil, err
	}
	host, err := sidecar.NewClient(backend, sidecar.ClientConfig{Process: proc})
	if err != nil {
		proc.Close()
		return nil, nil, err
	}
	return host, func() { host.Close(); proc.Close() }, nil
}
