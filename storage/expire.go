package storage

import (
	"context"
	"strings"

	"github.com/openpathways/pathways/ifrt"
)

// Expirer is implemented by buckets that can delete old objects themselves,
// with a lifecycle rule (Cloud Storage's object lifecycle management).
type Expirer interface {
	// ExpireAfter makes the storage delete objects whose names start with
	// prefix once they are days old, replacing an earlier such rule for the
	// same prefix and keeping every other rule.
	ExpireAfter(ctx context.Context, prefix string, days int) error
}

// ExpireAfter asks the storage to delete the objects under dir (relative to
// l) once they are days old. Storage that cannot, such as a local directory,
// answers UNIMPLEMENTED.
func (l *Location) ExpireAfter(ctx context.Context, dir string, days int) error {
	if days <= 0 {
		return ifrt.Errorf(ifrt.InvalidArgument, "storage: expiring after %d days", days)
	}
	e, ok := l.bucket.(Expirer)
	if !ok {
		return ifrt.Errorf(ifrt.Unimplemented, "storage: %s cannot expire objects by itself", l.url)
	}
	full, err := l.full(dir)
	if err != nil {
		return err
	}
	return e.ExpireAfter(ctx, strings.TrimSuffix(full, "/")+"/", days)
}
