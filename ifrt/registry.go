package ifrt

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// OpenFunc opens a backend from the configuration part of a backend string (the text
// after "name:", possibly empty).
type OpenFunc func(ctx context.Context, config string) (Client, error)

var (
	registryMu sync.Mutex
	registry   = map[string]OpenFunc{}
)

// Register makes a backend available to Open under name. Call it only from an init
// function; it panics on an empty name, a nil function or a name registered twice.
func Register(name string, open OpenFunc) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || strings.Contains(name, ":") || open == nil {
		panic("ifrt: Register needs a name without ':' and a function")
	}
	if _, dup := registry[name]; dup {
		panic("ifrt: backend " + name + " registered twice")
	}
	registry[name] = open
}

// Backends returns the registered backend names, sorted.
func Backends() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Open opens a backend from a string "name" or "name:config", for example
// "gocpu:devices=8". The backend's package must be linked in (import it, perhaps
// blank) so that its init function registers it.
func Open(ctx context.Context, backend string) (Client, error) {
	name, config, _ := strings.Cut(backend, ":")
	registryMu.Lock()
	open, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return nil, Errorf(NotFound, "ifrt: no backend %q (registered: %s)", name, strings.Join(Backends(), ", "))
	}
	return open(ctx, config)
}

// ParseConfig splits a backend configuration "k1=v1,k2=v2" into a map. A key without
// "=" maps to "".
func ParseConfig(config string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(config, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}
