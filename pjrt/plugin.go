package pjrt

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Supported PJRT C API versions.
const (
	// MinMinorVersion is the oldest PJRT API minor version Load accepts: 0.57
	// rearranged the function table without a major bump, so older tables have
	// different slot offsets.
	MinMinorVersion = 57
	// HeaderMinorVersion is the minor version of the vendored pjrt_c_api.h the
	// package is built against. Newer plugins work (they accept the smaller
	// argument structs of older callers); their newer calls are not used.
	HeaderMinorVersion = 114
)

// Plugin is a loaded PJRT plugin: a shared library exporting GetPjrtApi. Plugins
// are never unloaded. A Plugin is safe for concurrent use.
type Plugin struct {
	path string
	api  *capi

	initOnce sync.Once
	initErr  error
	attrs    map[string]any
}

var plugins struct {
	mu     sync.Mutex
	byPath map[string]*Plugin
}

// Load loads the plugin at path (dlopen with RTLD_NOW|RTLD_LOCAL), checks its
// API version, calls PJRT_Plugin_Initialize and reads its attributes. Loading
// the same path again returns the same *Plugin.
//
// A plugin whose major version is not 0 or whose minor version is below
// MinMinorVersion is refused with an error that wraps ErrUnsupportedVersion and
// names the version found.
func Load(path string) (*Plugin, error) {
	p, err := Open(path)
	if err != nil {
		return nil, err
	}
	if err := p.Initialize(); err != nil {
		return nil, err
	}
	return p, nil
}

// Open loads the plugin and checks its version like Load, but does not
// initialize it; Initialize (or NewClient) does that later.
func Open(path string) (*Plugin, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("pjrt: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	plugins.mu.Lock()
	defer plugins.mu.Unlock()
	if p := plugins.byPath[abs]; p != nil {
		return p, nil
	}
	api, err := loadAPI(abs)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(api.structSize, api.major, api.minor); err != nil {
		return nil, fmt.Errorf("pjrt: plugin %s: %w", abs, err)
	}
	p := &Plugin{path: abs, api: api}
	if plugins.byPath == nil {
		plugins.byPath = make(map[string]*Plugin)
	}
	plugins.byPath[abs] = p
	return p, nil
}

// checkVersion is the load-time gate on a function table's header.
func checkVersion(structSize uintptr, major, minor int) error {
	if major != 0 {
		return fmt.Errorf("%w: plugin has %d.%d, this package supports 0.%d and later 0.x",
			ErrUnsupportedVersion, major, minor, MinMinorVersion)
	}
	if minor < MinMinorVersion {
		return fmt.Errorf("%w: plugin has %d.%d, older than the minimum 0.%d (the function table layout changed at 0.57)",
			ErrUnsupportedVersion, major, minor, MinMinorVersion)
	}
	// The error functions and the plugin/client entry points must be there.
	const minTable = 40 + 8*12 // through PJRT_Client_Destroy
	if structSize < minTable {
		return fmt.Errorf("%w: plugin 0.%d has a function table of %d bytes, too short", ErrUnsupportedVersion, minor, structSize)
	}
	return nil
}

// need returns nil if the plugin's function table has fn, and otherwise an
// UNIMPLEMENTED *Error naming the version the call needs.
func (a *capi) need(fn apiFn) error {
	if a.has[fn] {
		return nil
	}
	v := fnMinors[fn]
	if v < MinMinorVersion {
		return errorf(ifrt.Unimplemented, "%s is not provided by this plugin (PJRT API 0.%d)", fnNames[fn], a.minor)
	}
	return errorf(ifrt.Unimplemented, "%s needs PJRT API 0.%d or newer; the plugin has 0.%d", fnNames[fn], v, a.minor)
}

// Path returns the plugin's resolved file path.
func (p *Plugin) Path() string { return p.path }

// Version returns the plugin's PJRT C API version.
func (p *Plugin) Version() (major, minor int) { return p.api.major, p.api.minor }

// TableSize returns the byte size of the plugin's PJRT_Api function table.
func (p *Plugin) TableSize() int { return int(p.api.structSize) }

// Has reports whether the plugin's function table provides the named C API
// function (e.g. "PJRT_Event_Create"); only functions this package uses are
// known.
func (p *Plugin) Has(function string) bool {
	for i, n := range fnNames {
		if n == function {
			return p.api.has[i]
		}
	}
	return false
}

// Initialize calls PJRT_Plugin_Initialize once per process and reads the
// plugin's attributes; later calls return the first result.
func (p *Plugin) Initialize() error {
	p.initOnce.Do(func() {
		if err := p.api.initialize(); err != nil {
			p.initErr = fmt.Errorf("pjrt: initializing %s: %w", p.path, err)
			return
		}
		attrs, err := p.api.attributes()
		if err != nil {
			p.initErr = fmt.Errorf("pjrt: reading attributes of %s: %w", p.path, err)
			return
		}
		p.attrs = attrs
	})
	return p.initErr
}

// Attributes returns the plugin's attributes (PJRT_Plugin_Attributes): values
// are string, int64, []int64, float32 or bool. Known keys include "xla_version"
// (int64) and "stablehlo_current_version" / "stablehlo_minimum_version" ([]int64
// of 3). It initializes the plugin if needed and returns nil if that fails.
func (p *Plugin) Attributes() map[string]any {
	if p.Initialize() != nil {
		return nil
	}
	out := make(map[string]any, len(p.attrs))
	for k, v := range p.attrs {
		if l, ok := v.([]int64); ok {
			v = append([]int64(nil), l...)
		}
		out[k] = v
	}
	return out
}

// StableHLOVersions returns the plugin's current and minimum supported
// StableHLO versions; ok is false if the plugin does not report them.
func (p *Plugin) StableHLOVersions() (current, minimum []int64, ok bool) {
	attrs := p.Attributes()
	current, ok1 := attrs["stablehlo_current_version"].([]int64)
	minimum, ok2 := attrs["stablehlo_minimum_version"].([]int64)
	return current, minimum, ok1 && ok2
}

// XLAVersion returns the "xla_version" attribute; ok is false if absent.
func (p *Plugin) XLAVersion() (v int64, ok bool) {
	v, ok = p.Attributes()["xla_version"].(int64)
	return v, ok
}

// ExtensionType is a PJRT_Extension_Type.
type ExtensionType int

var extensionNames = [...]string{
	"GpuCustomCall", "Profiler", "CustomPartitioner", "Stream", "Layouts", "FFI",
	"MemoryDescriptions", "Triton", "RawBuffer", "PhaseCompile", "Example", "Unknown",
	"CrossHostTransfers", "ExecutableMetadata", "Callback", "HostAllocator",
	"TpuTopology", "TpuExecutable", "Megascale", "Shardings", "AbiVersion",
	"Collectives", "MultiSlice", "HostMemoryAllocator", "XlaTransform",
}

func (t ExtensionType) String() string {
	if t >= 0 && int(t) < len(extensionNames) {
		return extensionNames[t]
	}
	return fmt.Sprintf("Extension(%d)", int(t))
}

// Extensions lists the extensions in the plugin's extension chain, in order.
func (p *Plugin) Extensions() []ExtensionType {
	var out []ExtensionType
	for _, t := range p.api.extensionTypes() {
		out = append(out, ExtensionType(t))
	}
	return out
}

func (p *Plugin) String() string {
	return fmt.Sprintf("pjrt.Plugin(%s, API %d.%d)", p.path, p.api.major, p.api.minor)
}
