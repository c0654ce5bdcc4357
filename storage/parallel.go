package storage

import (
	"context"
	"sync"
)

// DefaultParallelism is how many requests PutAll and GetAll run at once.
const DefaultParallelism = 32

// Object is a named object's bytes.
type Object struct {
	Name string
	Data []byte
}

// PutAll writes the objects, DefaultParallelism at a time, and returns the
// first error (the others are abandoned when one fails).
func (l *Location) PutAll(ctx context.Context, objs []Object) error {
	return Parallel(ctx, len(objs), func(ctx context.Context, i int) error {
		return l.Put(ctx, objs[i].Name, objs[i].Data)
	})
}

// GetAll reads the named objects, DefaultParallelism at a time.
func (l *Location) GetAll(ctx context.Context, names []string) ([][]byte, error) {
	out := make([][]byte, len(names))
	err := Parallel(ctx, len(names), func(ctx context.Context, i int) (err error) {
		out[i], err = l.Get(ctx, names[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Parallel runs do(0..n-1), DefaultParallelism at a time; the first error
// cancels the rest and is returned.
func Parallel(ctx context.Context, n int, do func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		sem   = make(chan struct{}, DefaultParallelism)
	)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := do(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}
