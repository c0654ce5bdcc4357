//go:build !cgo

package pjrtifrt_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

func TestWithoutCgo(t *testing.T) {
	_, err := pjrtifrt.New(context.Background(), pjrtifrt.Config{PluginPath: "/any/plugin.so"})
	if !errors.Is(err, pjrt.ErrCgoUnavailable) || !errors.Is(err, ifrt.ErrUnimplemented) {
		t.Errorf("New without cgo = %v, want pjrt.ErrCgoUnavailable with code Unimplemented", err)
	}
}
