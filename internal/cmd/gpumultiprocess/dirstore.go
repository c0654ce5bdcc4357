package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

// dirStore is a pjrt.KeyValueStore in a directory, one file per key, for the
// processes of one machine: Put writes a temporary file and renames it, so a
// reader sees a whole value or none; Get polls.
type dirStore struct{ dir string }

func (s dirStore) path(key string) string {
	return filepath.Join(s.dir, hex.EncodeToString([]byte(key)))
}

func (s dirStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	b, err := os.ReadFile(s.path(key))
	if os.IsNotExist(err) {
		return nil, &pjrt.Error{Code: ifrt.NotFound, Msg: fmt.Sprintf("key %q not found", key)}
	}
	return b, err
}

func (s dirStore) Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		b, err := s.TryGet(ctx, key)
		if ifrt.CodeOf(err) != ifrt.NotFound {
			return b, err
		}
		if time.Now().After(deadline) {
			return nil, &pjrt.Error{Code: ifrt.DeadlineExceeded, Msg: fmt.Sprintf("key %q: not put within %v", key, timeout)}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (s dirStore) Put(ctx context.Context, key string, value []byte) error {
	f, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(value); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path(key))
}
