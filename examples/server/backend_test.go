package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// TestPJRTBackendOptionsPassThrough: the options of --backend=pjrt:plugin=...
// reach pjrtifrt, which checks the process options before loading anything.
func TestPJRTBackendOptionsPassThrough(t *testing.T) {
	it, err := rm.ParseInstanceType("cpu:2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec, want string
		code       ifrt.Code
	}{
		{"pjrt:plugin=/nonexistent.so,process=1/2", "KeyValueStore", ifrt.InvalidArgument},
		{"pjrt:plugin=/nonexistent.so,process=1/2,kv=nobody", `"nobody"`, ifrt.NotFound},
		{"pjrt:plugin=/nonexistent.so,process=3/2", "process 3", ifrt.InvalidArgument},
	} {
		_, err := openBackend(context.Background(), tc.spec, it)
		if ifrt.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("openBackend(%q) = %v, want %v mentioning %s", tc.spec, err, tc.code, tc.want)
		}
	}
}
