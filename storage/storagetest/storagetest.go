// Package storagetest checks that a storage.Location behaves as package storage
// promises, whichever backend serves it. Backends' tests call Run.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

// Run writes, reads, lists, streams and deletes objects under loc, which must
// be empty.
func Run(t *testing.T, loc *storage.Location) {
	ctx := context.Background()
	t.Run("PutGet", func(t *testing.T) {
		if err := loc.Put(ctx, "a/b/c", []byte("hello")); err != nil {
			t.Fatal(err)
		}
		if err := loc.Put(ctx, "a/b/c", []byte("hello again")); err != nil {
			t.Fatal(err)
		}
		got, err := loc.Get(ctx, "a/b/c")
		if err != nil || string(got) != "hello again" {
			t.Fatalf("Get = %q, %v; want the second Put's bytes", got, err)
		}
	})
	t.Run("Missing", func(t *testing.T) {
		_, err := loc.Get(ctx, "no/such/object")
		if !errors.Is(err, ifrt.ErrNotFound) {
			t.Fatalf("Get of a missing object: %v; want NOT_FOUND", err)
		}
		if !bytes.Contains([]byte(err.Error()), []byte("no/such/object")) {
			t.Errorf("the error %q does not name the object", err)
		}
		if err := loc.Delete(ctx, "no/such/object"); !errors.Is(err, ifrt.ErrNotFound) {
			t.Errorf("Delete of a missing object: %v; want NOT_FOUND", err)
		}
	})
	t.Run("BadNames", func(t *testing.T) {
		for _, name := range []string{"", "/abs", "a/../b", "a//b", "dir/", "."} {
			if err := loc.Put(ctx, name, nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
				t.Errorf("Put(%q): %v; want INVALID_ARGUMENT", name, err)
			}
		}
	})
	t.Run("Stream", func(t *testing.T) {
		w, err := loc.NewWriter(ctx, "stream/big")
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 5<<20+3)
		for i := range want {
			want[i] = byte(i * 7)
		}
		for off := 0; off < len(want); off += 1 << 20 {
			if _, err := w.Write(want[off:min(off+1<<20, len(want))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := loc.NewReader(ctx, "stream/big")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(want))
		}
	})
	t.Run("ParallelListDelete", func(t *testing.T) {
		var objs []storage.Object
		var names []string
		for i := range 50 {
			name := fmt.Sprintf("par/%02d", i)
			objs = append(objs, storage.Object{Name: name, Data: []byte(name)})
			names = append(names, name)
		}
		if err := loc.PutAll(ctx, objs); err != nil {
			t.Fatal(err)
		}
		got, err := loc.GetAll(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if string(g) != names[i] {
				t.Fatalf("GetAll[%d] = %q, want %q", i, g, names[i])
			}
		}
		listed, err := loc.List(ctx, "par")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(names, listed); diff != "" {
			t.Errorf("List(par) (-want +got):\n%s", diff)
		}
		sub, err := loc.Sub("par")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := sub.Get(ctx, "07"); err != nil || string(got) != "par/07" {
			t.Errorf("Sub(par).Get(07) = %q, %v", got, err)
		}
		if err := loc.Delete(ctx, "par/07"); err != nil {
			t.Fatal(err)
		}
		if _, err := sub.Get(ctx, "07"); !errors.Is(err, ifrt.ErrNotFound) {
			t.Errorf("Get after Delete: %v; want NOT_FOUND", err)
		}
		if listed, _ := loc.List(ctx, "par"); len(listed) != 49 {
			t.Errorf("List after a Delete has %d names, want 49", len(listed))
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := loc.Put(cctx, "canceled", []byte("x"))
		if c := ifrt.CodeOf(err); c != ifrt.Canceled {
			t.Fatalf("Put with a canceled context: %v (%v); want CANCELED", err, c)
		}
		if _, err := loc.Get(ctx, "canceled"); !errors.Is(err, ifrt.ErrNotFound) {
			t.Errorf("a canceled Put left an object behind: %v", err)
		}
	})
}
