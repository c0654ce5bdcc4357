package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/storagetest"
)

func TestFileURL(t *testing.T) {
	loc, err := storage.Open(context.Background(), "file://"+t.TempDir()+"/scratch")
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Close()
	storagetest.Run(t, loc)
}

func TestPlainPath(t *testing.T) {
	dir := t.TempDir()
	loc, err := storage.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.Put(context.Background(), "x/y", []byte("z")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "x", "y")); err != nil || string(b) != "z" {
		t.Fatalf("the object is not the file x/y of the directory: %q, %v", b, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]error{
		"":               ifrt.ErrInvalidArgument,
		"s3://b/x":       ifrt.ErrInvalidArgument,
		"gs://b/x":       ifrt.ErrInvalidArgument, // storage/gcs is not linked here
		"file://rel/x":   ifrt.ErrInvalidArgument,
		"gs:///nobucket": ifrt.ErrInvalidArgument,
		file:             ifrt.ErrFailedPrecondition,
	} {
		if _, err := storage.Open(ctx, url); !errors.Is(err, want) {
			t.Errorf("Open(%q): %v; want %v", url, err, want)
		}
	}
}
