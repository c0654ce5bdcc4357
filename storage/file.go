package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openpathways/pathways/ifrt"
)

// fileBucket is a local directory; object names are relative file paths. A
// write goes to a temporary file beside the object and is renamed over it on
// Close, so readers never see part of it.
type fileBucket struct{ root string }

func absPath(p string) (string, error) { return filepath.Abs(p) }

func openFileBucket(_ context.Context, u *url.URL) (Bucket, error) {
	st, err := os.Stat(u.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Created by the first write.
	case err != nil:
		return nil, fileError(err, u.Path)
	case !st.IsDir():
		return nil, ifrt.Errorf(ifrt.FailedPrecondition, "storage: %s is not a directory", u.Path)
	}
	return &fileBucket{root: u.Path}, nil
}

func (b *fileBucket) path(name string) string { return filepath.Join(b.root, filepath.FromSlash(name)) }

// fileError gives an os error its code, naming the file.
func fileError(err error, name string) error {
	code := ifrt.Internal
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = ifrt.NotFound
	case errors.Is(err, fs.ErrPermission):
		code = ifrt.PermissionDenied
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = ifrt.CodeOf(err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is named once, below
	}
	return ifrt.Errorf(code, "storage: file://%s: %w", name, err)
}

func (b *fileBucket) NewReader(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fileError(err, b.path(name))
	}
	f, err := os.Open(b.path(name))
	if err != nil {
		return nil, fileError(err, b.path(name))
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, ifrt.Errorf(ifrt.NotFound, "storage: file://%s is a directory, not an object", b.path(name))
	}
	return &fileReader{f: f, ctx: ctx}, nil
}

// fileReader stops reading when its context ends.
type fileReader struct {
	f   *os.File
	ctx context.Context
}

func (r *fileReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, fileError(err, r.f.Name())
	}
	return r.f.Read(p)
}

func (r *fileReader) Close() error { return r.f.Close() }

func (b *fileBucket) NewWriter(ctx context.Context, name string) (io.WriteCloser, error) {
	final := b.path(name)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, fileError(err, filepath.Dir(final))
	}
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".tmp*")
	if err != nil {
		return nil, fileError(err, final)
	}
	return &fileWriter{f: f, final: final, ctx: ctx}, nil
}

type fileWriter struct {
	f     *os.File
	final string
	ctx   context.Context
	done  bool
}

func (w *fileWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, fileError(err, w.final)
	}
	n, err := w.f.Write(p)
	if err != nil {
		return n, fileError(err, w.final)
	}
	return n, nil
}

// Abort discards the write.
func (w *fileWriter) Abort() {
	if !w.done {
		w.done = true
		// Discarding: the temporary file's fate is all that matters.
		_ = w.f.Close()
		_ = os.Remove(w.f.Name())
	}
}

func (w *fileWriter) Close() error {
	if w.done {
		return nil
	}
	if err := w.ctx.Err(); err != nil {
		w.Abort()
		return fileError(err, w.final)
	}
	w.done = true
	err := w.f.Close()
	if err == nil {
		err = os.Rename(w.f.Name(), w.final)
	}
	if err != nil {
		_ = os.Remove(w.f.Name()) // the write's error is the one to report
		return fileError(err, w.final)
	}
	return nil
}

func (b *fileBucket) List(ctx context.Context, prefix string) ([]string, error) {
	// Walk the deepest directory the prefix names, then filter.
	dir := prefix
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		dir = dir[:i]
	} else {
		dir = ""
	}
	var names []string
	err := filepath.WalkDir(b.path(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp") {
			return nil
		}
		rel, err := filepath.Rel(b.root, p)
		if err != nil {
			return err
		}
		if name := filepath.ToSlash(rel); strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, fileError(err, b.path(dir))
	}
	sort.Strings(names)
	return names, nil
}

func (b *fileBucket) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fileError(err, b.path(name))
	}
	if err := os.Remove(b.path(name)); err != nil {
		return fileError(err, b.path(name))
	}
	return nil
}

func (b *fileBucket) Close() error { return nil }
