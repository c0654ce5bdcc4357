package gcs

import (
	"context"
	"slices"

	gstorage "cloud.google.com/go/storage"
)

// ExpireAfter sets the bucket's lifecycle rule that deletes objects under
// prefix once they are days old (storage.Expirer). It needs the
// storage.buckets.get and storage.buckets.update permissions.
func (b *Bucket) ExpireAfter(ctx context.Context, prefix string, days int) error {
	h := b.client.Bucket(b.name)
	attrs, err := h.Attrs(ctx)
	if err != nil {
		return b.Error(err, prefix)
	}
	rules := withExpiry(attrs.Lifecycle.Rules, prefix, days)
	if _, err := h.Update(ctx, gstorage.BucketAttrsToUpdate{Lifecycle: &gstorage.Lifecycle{Rules: rules}}); err != nil {
		return b.Error(err, prefix)
	}
	return nil
}

// withExpiry replaces the delete rules for exactly prefix with one for days,
// keeping every other rule.
func withExpiry(rules []gstorage.LifecycleRule, prefix string, days int) []gstorage.LifecycleRule {
	out := slices.DeleteFunc(slices.Clone(rules), func(r gstorage.LifecycleRule) bool {
		return r.Action.Type == gstorage.DeleteAction && slices.Equal(r.Condition.MatchesPrefix, []string{prefix})
	})
	return append(out, gstorage.LifecycleRule{
		Action:    gstorage.LifecycleAction{Type: gstorage.DeleteAction},
		Condition: gstorage.LifecycleCondition{AgeInDays: int64(days), MatchesPrefix: []string{prefix}},
	})
}
