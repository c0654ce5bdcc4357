// Package gcs serves "gs://bucket/prefix" locations of package storage on
// Google Cloud Storage. Linking it registers the scheme:
//
//	import _ "github.com/openpathways/pathways/storage/gcs"
//
// It is the only package of the module that imports the Cloud Storage client.
// Credentials are the application default ones; STORAGE_EMULATOR_HOST points
// the client at an emulator such as fake-gcs-server, without credentials.
// Idempotent and whole-object requests are retried on transient errors with
// the client's backoff. A Bucket is safe for concurrent use.
package gcs

import (
	"context"
	"errors"
	"io"
	"net/url"

	gstorage "cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

func init() {
	storage.Register("gs", func(ctx context.Context, u *url.URL) (storage.Bucket, error) {
		return Open(ctx, u.Host)
	})
}

// Bucket is one Cloud Storage bucket.
type Bucket struct {
	client *gstorage.Client
	name   string
	owned  bool
}

// Open connects to the bucket with a client of its own, closed by Close.
func Open(ctx context.Context, bucket string, opts ...option.ClientOption) (*Bucket, error) {
	// JSON reads: the same API as every other request (the emulator serves
	// XML reads only under its public host name).
	c, err := gstorage.NewClient(ctx, append([]option.ClientOption{gstorage.WithJSONReads()}, opts...)...)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Unavailable, "storage: gs://%s: cannot create a Cloud Storage client: %w", bucket, err)
	}
	b := New(c, bucket)
	b.owned = true
	return b, nil
}

// New serves the bucket through an existing client, which Close leaves open.
// Every request is retried on transient errors: the module only writes whole
// objects, so repeating one is harmless.
func New(c *gstorage.Client, bucket string) *Bucket {
	c.SetRetry(gstorage.WithPolicy(gstorage.RetryAlways))
	return &Bucket{client: c, name: bucket}
}

func (b *Bucket) object(name string) *gstorage.ObjectHandle {
	return b.client.Bucket(b.name).Object(name)
}

// Error gives a Cloud Storage error its code and names the object.
func (b *Bucket) Error(err error, name string) error { return objectError(b.name, name, err) }

func objectError(bucket, name string, err error) error {
	code := ifrt.Unknown
	var ge *googleapi.Error
	switch {
	case errors.Is(err, gstorage.ErrBucketNotExist):
		return ifrt.Errorf(ifrt.NotFound, "storage: gs://%s/%s: the bucket does not exist: %w", bucket, name, err)
	case errors.Is(err, gstorage.ErrObjectNotExist):
		code = ifrt.NotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = ifrt.CodeOf(err)
	case errors.As(err, &ge):
		code = httpCode(ge.Code)
	}
	return ifrt.Errorf(code, "storage: gs://%s/%s: %w", bucket, name, err)
}

// httpCodes maps the HTTP statuses of the JSON API to gRPC codes; any
// other 5xx is Unavailable.
var httpCodes = map[int]ifrt.Code{
	400: ifrt.InvalidArgument, 401: ifrt.Unauthenticated, 403: ifrt.PermissionDenied,
	404: ifrt.NotFound, 409: ifrt.Aborted, 412: ifrt.FailedPrecondition, 429: ifrt.ResourceExhausted,
}

func httpCode(status int) ifrt.Code {
	if c, ok := httpCodes[status]; ok {
		return c
	}
	if status >= 500 {
		return ifrt.Unavailable
	}
	return ifrt.Unknown
}

func (b *Bucket) NewReader(ctx context.Context, name string) (io.ReadCloser, error) {
	r, err := b.object(name).NewReader(ctx)
	if err != nil {
		return nil, b.Error(err, name)
	}
	return &reader{r: r, b: b, name: name}, nil
}

type reader struct {
	r    *gstorage.Reader
	b    *Bucket
	name string
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = r.b.Error(err, r.name)
	}
	return n, err
}

func (r *reader) Close() error { return r.r.Close() }

func (b *Bucket) NewWriter(ctx context.Context, name string) (io.WriteCloser, error) {
	ctx, cancel := context.WithCancel(ctx)
	return &writer{w: b.object(name).NewWriter(ctx), cancel: cancel, b: b, name: name}, nil
}

// writer commits the object on Close; Abort cancels the upload.
type writer struct {
	w      *gstorage.Writer
	cancel context.CancelFunc
	b      *Bucket
	name   string
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, w.b.Error(err, w.name)
	}
	return n, nil
}

func (w *writer) Abort() {
	w.cancel()
	_ = w.w.Close() // cancelled first, so the object is not written; the error says only that

}

func (w *writer) Close() error {
	defer w.cancel()
	if err := w.w.Close(); err != nil {
		return w.b.Error(err, w.name)
	}
	return nil
}

func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	it := b.client.Bucket(b.name).Objects(ctx, &gstorage.Query{Prefix: prefix})
	var names []string
	for {
		attrs, err := it.Next()
		if err == iterator.Done {
			return names, nil // the API lists in name order
		}
		if err != nil {
			return nil, b.Error(err, prefix+"*")
		}
		names = append(names, attrs.Name)
	}
}

func (b *Bucket) Delete(ctx context.Context, name string) error {
	if err := b.object(name).Delete(ctx); err != nil {
		return b.Error(err, name)
	}
	return nil
}

// Close closes the client when Open made it.
func (b *Bucket) Close() error {
	if b.owned {
		return b.client.Close()
	}
	return nil
}
