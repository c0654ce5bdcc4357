package proxyserver_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

func newLargeTransferHarness(t *testing.T) (*harness, string) {
	dir := t.TempDir()
	return newHarness(t, func(c *proxyserver.Config) { c.LargeTransferDirectory = dir }), dir
}

func (s *sess) readFromDisk(handle uint64, size int64) error {
	_, err := s.h.client.HostBufferReadFromDisk(ctxT(s.t), &proxypb.GrpcHostBufferReadFromDiskRequest{
		Metadata: &proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: handle, BufferSize: size}})
	return err
}

// TestLargeTransferFromDisk: a host buffer the client wrote to the shared
// directory becomes an array with its exact bytes, and its file is gone.
func TestLargeTransferFromDisk(t *testing.T) {
	h, dir := newLargeTransferHarness(t)
	s := h.session(t)
	data := iota32(1 << 16)
	path := filepath.Join(dir, proxyserver.LargeTransferFileName(7))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.readFromDisk(7, int64(len(data))); err != nil {
		t.Fatalf("HostBufferReadFromDisk: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the read, Stat(%s) = %v, want not exist", path, err)
	}
	mustOK(t, s.call(makeArrayReq(t, 7, ifrt.F32, ifrt.Shape{1 << 16}, h.single(0))))
	got, err := s.fetch(7, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("the array read back differs from the file's bytes")
	}
}

func TestLargeTransferFileName(t *testing.T) {
	for h, want := range map[uint64]string{1: "lt_1", 1<<31 - 1: "lt_2147483647", 1<<31 + 5: "lt_-2147483643", 1<<32 + 3: "lt_3"} {
		if got := proxyserver.LargeTransferFileName(h); got != want {
			t.Errorf("LargeTransferFileName(%d) = %q, want %q (jaxlib's C int formatting)", h, got, want)
		}
	}
}

// TestLargeTransferRefusals: what the server will not read fails with a code
// and a message, removes the transfer's file (not what a link points at), and
// leaves the session working.
func TestLargeTransferRefusals(t *testing.T) {
	h, dir := newLargeTransferHarness(t)
	s := h.session(t)
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(handle uint64) string { return filepath.Join(dir, proxyserver.LargeTransferFileName(handle)) }
	write := func(handle uint64, n int) {
		if err := os.WriteFile(file(handle), make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		handle uint64
		size   int64
		setup  func(handle uint64)
		want   codes.Code
		kept   bool // the file stays: the request was not the session's to make
	}{
		{name: "missing", handle: 1, size: 16, setup: func(uint64) {}, want: codes.NotFound},
		{name: "short", handle: 2, size: 16, setup: func(h uint64) { write(h, 8) }, want: codes.DataLoss},
		{name: "long", handle: 3, size: 16, setup: func(h uint64) { write(h, 32) }, want: codes.DataLoss},
		{name: "symlink", handle: 4, size: 16, setup: func(h uint64) {
			if err := os.Symlink(outside, file(h)); err != nil {
				t.Fatal(err)
			}
		}, want: codes.InvalidArgument},
		{name: "hard link", handle: 5, size: 16, setup: func(h uint64) {
			if err := os.Link(outside, file(h)); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
		}, want: codes.InvalidArgument},
		{name: "directory", handle: 6, size: 16, setup: func(h uint64) {
			if err := os.Mkdir(file(h), 0o700); err != nil {
				t.Fatal(err)
			}
		}, want: codes.InvalidArgument},
		{name: "server handle", handle: 1 << 48, size: 16, setup: func(h uint64) { write(h, 16) }, want: codes.InvalidArgument, kept: true},
		{name: "negative size", handle: 8, size: -1, setup: func(h uint64) { write(h, 0) }, want: codes.InvalidArgument, kept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(tc.handle)
			err := s.readFromDisk(tc.handle, tc.size)
			if !errorsIsCode(err, tc.want) {
				t.Fatalf("HostBufferReadFromDisk = %v, want %v", err, tc.want)
			}
			_, statErr := os.Lstat(file(tc.handle))
			if kept := statErr == nil; kept != tc.kept && tc.name != "missing" {
				t.Errorf("after the refusal the file exists = %v, want %v", kept, tc.kept)
			}
		})
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "0123456789abcdef" {
		t.Errorf("the file a link pointed at: %q, %v; want it untouched", b, err)
	}
	// The session still works.
	s.makeArray(20, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, h.single(0))
}

func TestLargeTransferUnknownSession(t *testing.T) {
	h, dir := newLargeTransferHarness(t)
	s := h.session(t)
	path := filepath.Join(dir, proxyserver.LargeTransferFileName(1))
	if err := os.WriteFile(path, make([]byte, 4), 0o600); err != nil {
		t.Fatal(err)
	}
	s.id++
	if err := s.readFromDisk(1, 4); !errorsIsCode(err, codes.NotFound) {
		t.Fatalf("HostBufferReadFromDisk on an unknown session = %v, want NotFound", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("another session's request removed the file: %v", err)
	}
}

func TestLargeTransferWithoutDirectory(t *testing.T) {
	s := newHarness(t, nil).session(t)
	if err := s.readFromDisk(1, 4); !errorsIsCode(err, codes.Unimplemented) {
		t.Fatalf("HostBufferReadFromDisk without a directory = %v, want Unimplemented", err)
	}
}

func TestLargeTransferDirectoryValidated(t *testing.T) {
	cfg := proxyserver.Config{Backend: newHarness(t, nil).backend, LargeTransferDirectory: filepath.Join(t.TempDir(), "absent")}
	if err := cfg.Validate(); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("Validate with a missing directory = %v, want InvalidArgument", err)
	}
}
