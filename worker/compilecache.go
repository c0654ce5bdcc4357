package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

// CompileCacheDir is where, under the scratch location, workers keep compiled
// executables.
const CompileCacheDir = "compilation_cache"

// compileCacheMagic starts every entry; the key's digest follows it, so an
// entry copied under another name is recognised as foreign.
var compileCacheMagic = []byte("openpathways compiled executable v1\n")

// compileCache is a backend whose compiles go through a cache in storage,
// shared by every worker of the cluster and kept across restarts. An entry is
// keyed by the program bytes, the compile options, the devices' kinds and
// the backend's topology, and the compiler's version; a hit loads the
// serialized executable instead of compiling. Entries that cannot be read or
// loaded are ignored with a warning and overwritten.
type compileCache struct {
	ifrt.Client
	ser    ifrt.ExecutableSerializer
	loc    *storage.Location
	log    *slog.Logger
	hits   atomic.Int64
	misses atomic.Int64
}

// CompileCacheStats counts the compiles that a cache served and those it did
// not (each was compiled and stored).
type CompileCacheStats struct{ Hits, Misses int64 }

func newCompileCache(backend ifrt.Client, ser ifrt.ExecutableSerializer, loc *storage.Location, log *slog.Logger) *compileCache {
	return &compileCache{Client: backend, ser: ser, loc: loc, log: log}
}

// key digests everything the compiled bytes depend on.
func (c *compileCache) key(program *ifrt.MLIRProgram, opts *ifrt.CompileOptions) string {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	id := func(d *ifrt.Device) { h.Write(binary.LittleEndian.AppendUint64(nil, uint64(d.ID))) }
	field([]byte(c.ser.CompilerVersion()))
	p := c.Platform()
	field([]byte(p.Name + "\x00" + p.Version + "\x00" + p.RuntimeType))
	field(program.Module)
	var devs ifrt.DeviceList
	if opts != nil {
		field(canonicalOptions(opts.XLA))
		devs = opts.Devices
	}
	for _, d := range devs {
		field([]byte(d.Kind))
		id(d)
	}
	// The topology: every device of the backend, by kind and id.
	for _, d := range c.Devices() {
		field([]byte(d.Kind))
		id(d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Compile loads the program from the cache, or compiles and stores it.
func (c *compileCache) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	p, ok := program.(*ifrt.MLIRProgram)
	if !ok {
		return c.Client.Compile(ctx, program, opts)
	}
	key := c.key(p, opts)
	digest, _ := hex.DecodeString(key)
	if exe := c.lookup(ctx, key, digest, p, opts); exe != nil {
		c.hits.Add(1)
		countCacheLookup(ctx, true)
		c.log.Info("compilation cache hit: not compiling", "key", key, "program", exe.Name())
		return exe, nil
	}
	exe, err := c.Client.Compile(ctx, program, opts)
	if err != nil {
		return nil, err
	}
	c.misses.Add(1)
	countCacheLookup(ctx, false)
	data, err := c.ser.SerializeExecutable(exe)
	if err != nil {
		c.log.Warn("compilation cache: cannot serialize the executable; not cached", "key", key, "error", err)
		return exe, nil
	}
	entry := append(append(append([]byte(nil), compileCacheMagic...), digest...), data...)
	if err := c.loc.Put(ctx, key, entry); err != nil {
		c.log.Warn("compilation cache: cannot store the executable", "key", key, "error", err)
	} else {
		c.log.Info("compilation cache miss: compiled and stored", "key", key, "program", exe.Name(), "bytes", len(entry))
	}
	return exe, nil
}

// lookup returns the cached executable, or nil when there is none usable.
func (c *compileCache) lookup(ctx context.Context, key string, digest []byte, p *ifrt.MLIRProgram, opts *ifrt.CompileOptions) ifrt.LoadedExecutable {
	entry, err := c.loc.Get(ctx, key)
	switch {
	case ifrt.CodeOf(err) == ifrt.NotFound:
		return nil
	case err != nil:
		c.log.Warn("compilation cache: cannot read an entry; compiling", "key", key, "error", err)
		return nil
	}
	rest, ok := bytes.CutPrefix(entry, compileCacheMagic)
	if !ok || len(rest) < len(digest) || !bytes.Equal(rest[:len(digest)], digest) {
		c.log.Warn("compilation cache: ignoring a corrupt or foreign entry; compiling", "key", key, "bytes", len(entry))
		return nil
	}
	exe, err := c.ser.LoadExecutable(ctx, rest[len(digest):], p, opts)
	if err != nil {
		c.log.Warn("compilation cache: the backend cannot load an entry; compiling", "key", key, "error", err)
		return nil
	}
	return exe
}

func (c *compileCache) stats() CompileCacheStats {
	return CompileCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// As reaches the backend; a **compileCache target gets the cache.
func (c *compileCache) As(target any) bool {
	if p, ok := target.(**compileCache); ok {
		*p = c
		return true
	}
	return c.Client.As(target)
}

// withCompileCache returns the backend the worker serves: cfg.Backend behind
// a compilation cache in cfg.ScratchLocation, when there is one and the
// backend can serialize executables.
func withCompileCache(cfg Config, log *slog.Logger) (ifrt.Client, *compileCache, error) {
	if cfg.ScratchLocation == "" {
		return cfg.Backend, nil, nil
	}
	ser, ok := cfg.Backend.(ifrt.ExecutableSerializer)
	if !ok && !cfg.Backend.As(&ser) {
		log.Info("the backend cannot serialize executables; no compilation cache", "backend", cfg.Backend.Platform().RuntimeType)
		return cfg.Backend, nil, nil
	}
	root, err := storage.Open(context.Background(), cfg.ScratchLocation)
	if err != nil {
		return nil, nil, err
	}
	loc, err := root.Sub(CompileCacheDir)
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	c := newCompileCache(cfg.Backend, ser, loc, log)
	return c, c, nil
}

// CompileCacheStats returns the counts of the worker's compilation cache
// (zero without one).
func (s *Server) CompileCacheStats() CompileCacheStats {
	if s.cache == nil {
		return CompileCacheStats{}
	}
	return s.cache.stats()
}
