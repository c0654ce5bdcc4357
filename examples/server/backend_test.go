package main

import (
	"context"
	"log/slog"
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

// TestRMStore: kv=rm names the resource manager's coordination service while
// the worker runs, and nothing after.
func TestRMStore(t *testing.T) {
	it, err := rm.ParseInstanceType("cpu:2")
	if err != nil {
		t.Fatal(err)
	}
	const spec = "pjrt:plugin=/nonexistent.so,process=1/2,kv=rm"
	unregister, err := registerRMStore(config{backend: spec, rmAddress: "localhost:29001"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// The store is found, so the error is the missing plugin's.
	if _, err := openBackend(context.Background(), spec, it); ifrt.CodeOf(err) == ifrt.NotFound && strings.Contains(err.Error(), "key-value store") {
		t.Errorf("with the RM's store registered: %v", err)
	}
	unregister()
	if _, err := openBackend(context.Background(), spec, it); ifrt.CodeOf(err) != ifrt.NotFound || !strings.Contains(err.Error(), `"rm"`) {
		t.Errorf("after the worker: %v, want NOT_FOUND naming the store", err)
	}
}
