package storage

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Bucket is a storage backend: a flat namespace of objects. Names passed to it
// are already validated and joined with the Location's prefix. Every method must
// be safe for concurrent use and return errors with codes (ifrt.Errorf) that name the object.
type Bucket interface {
	// NewReader opens the object for reading; NOT_FOUND if it does not exist.
	NewReader(ctx context.Context, name string) (io.ReadCloser, error)
	// NewWriter starts replacing the object; the new bytes become visible,
	// whole, when Close returns nil. Cancelling ctx abandons the write.
	NewWriter(ctx context.Context, name string) (io.WriteCloser, error)
	// List returns the names of the objects that start with prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object; NOT_FOUND if it does not exist.
	Delete(ctx context.Context, name string) error
	// Close releases the backend's connections.
	Close() error
}

// Opener opens the bucket of a URL of its scheme: u.Host is the bucket (empty
// for file URLs), and the Location adds u.Path as the prefix of every name.
type Opener func(ctx context.Context, u *url.URL) (Bucket, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{"file": openFileBucket}
)

// Register makes Open serve URLs of scheme with open. It is meant to be called
// from an init function; registering a scheme twice panics.
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	if _, ok := openers[scheme]; ok {
		panic("storage: scheme " + scheme + " registered twice")
	}
	openers[scheme] = open
}

// Location is a directory of a storage: objects named relative to its prefix.
type Location struct {
	bucket Bucket
	url    string // for messages: scheme://bucket/prefix
	prefix string // "" or ending in "/"
}

// Open opens the location a URL names: "gs://bucket/prefix" (with storage/gcs
// linked), "file:///dir" or a plain directory path. An unknown scheme or a
// malformed URL is INVALID_ARGUMENT.
func Open(ctx context.Context, rawURL string) (*Location, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	openersMu.RLock()
	open, ok := openers[u.Scheme]
	openersMu.RUnlock()
	if !ok {
		hint := ""
		if u.Scheme == "gs" {
			hint = " (link package storage/gcs)"
		}
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: %q: scheme %q is not served by this program%s", rawURL, u.Scheme, hint)
	}
	b, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	prefix := strings.Trim(u.Path, "/")
	if u.Scheme == "file" {
		// The file bucket is rooted at the directory itself.
		prefix = ""
	}
	return NewLocation(b, u.Scheme+"://"+u.Host+u.Path, prefix), nil
}

// NewLocation wraps a bucket: names are joined to prefix, and name is how
// messages refer to it. For backends that Open does not know.
func NewLocation(b Bucket, name, prefix string) *Location {
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Location{bucket: b, url: strings.TrimSuffix(name, "/"), prefix: prefix}
}

// ParseURL parses a location URL; a plain path becomes a file URL. The path
// of a file URL is absolute and cleaned.
func ParseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: empty location")
	}
	if !strings.Contains(raw, "://") {
		abs, err := absPath(raw)
		if err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: %q: %v", raw, err)
		}
		return &url.URL{Scheme: "file", Path: abs}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: %q is not a URL: %v", raw, err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" || !strings.HasPrefix(u.Path, "/") {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: %q: a file URL needs an absolute path (file:///dir)", raw)
		}
		u.Host, u.Path = "", path.Clean(u.Path)
	default:
		if u.Host == "" {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "storage: %q names no bucket", raw)
		}
	}
	return u, nil
}

// String returns the location's URL.
func (l *Location) String() string { return l.url }

// Sub returns the location of the directory dir under l, on the same storage.
func (l *Location) Sub(dir string) (*Location, error) {
	full, err := l.full(dir)
	if err != nil {
		return nil, err
	}
	return &Location{bucket: l.bucket, url: l.url + "/" + strings.TrimPrefix(full, l.prefix), prefix: full + "/"}, nil
}

// Close closes the storage the location was opened on.
func (l *Location) Close() error { return l.bucket.Close() }

// full validates name and joins it to the prefix.
func (l *Location) full(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return "", ifrt.Errorf(ifrt.InvalidArgument, "storage: %q is not an object name under %s", name, l.url)
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || el == "." || el == ".." {
			return "", ifrt.Errorf(ifrt.InvalidArgument, "storage: %q is not an object name under %s (empty, . or .. element)", name, l.url)
		}
	}
	return l.prefix + name, nil
}

// NewReader opens the object for streaming reads.
func (l *Location) NewReader(ctx context.Context, name string) (io.ReadCloser, error) {
	full, err := l.full(name)
	if err != nil {
		return nil, err
	}
	return l.bucket.NewReader(ctx, full)
}

// NewWriter starts replacing the object; it is written when Close returns nil.
func (l *Location) NewWriter(ctx context.Context, name string) (io.WriteCloser, error) {
	full, err := l.full(name)
	if err != nil {
		return nil, err
	}
	return l.bucket.NewWriter(ctx, full)
}

// Put replaces the object with data.
func (l *Location) Put(ctx context.Context, name string, data []byte) error {
	w, err := l.NewWriter(ctx, name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		abandon(w)
		return err
	}
	return w.Close()
}

// abandon drops a write that failed part way: a writer with Abort discards
// what it wrote, others are closed.
func abandon(w io.WriteCloser) {
	if a, ok := w.(interface{ Abort() }); ok {
		a.Abort()
		return
	}
	_ = w.Close() // the write already failed with the error the caller reports
}

// Get reads the whole object.
func (l *Location) Get(ctx context.Context, name string) ([]byte, error) {
	r, err := l.NewReader(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.CodeOf(err), "storage: reading %s/%s: %w", l.url, name, err)
	}
	return data, nil
}

// List returns the names (relative to l) of the objects under dir ("" for all),
// sorted.
func (l *Location) List(ctx context.Context, dir string) ([]string, error) {
	prefix := l.prefix
	if dir != "" {
		full, err := l.full(dir)
		if err != nil {
			return nil, err
		}
		prefix = full + "/"
	}
	names, err := l.bucket.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		names[i] = strings.TrimPrefix(n, l.prefix)
	}
	return names, nil
}

// Delete removes the object.
func (l *Location) Delete(ctx context.Context, name string) error {
	full, err := l.full(name)
	if err != nil {
		return err
	}
	return l.bucket.Delete(ctx, full)
}
