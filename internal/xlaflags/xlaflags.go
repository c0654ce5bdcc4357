// Package xlaflags passes XLA compiler flags given on a command line
// (--xla_tpu_scoped_vmem_limit_kib=98304, as Pathways' proxy server takes them)
// into every compile of an ifrt.Client.
//
// The flags travel in the serialized xla.CompileOptionsProto of
// ifrt.CompileOptions.XLA, as its env_option_overrides: the map XLA applies to
// the DebugOptions of a compile, keyed by the DebugOptions field name (the flag
// without its dashes). XLA checks each value's type against the field's, and
// does not parse "true" or "false" from a string for a bool field, so values
// are typed by their spelling as JAX types compiler_options: true or false is a
// bool, an integer an int, a decimal number a double, anything else a string.
// An override the client already set for the same field wins: a flag is the
// default for every program, a jit's compiler_options are specific.
package xlaflags

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
)

// Flags maps an XLA DebugOptions field ("xla_cpu_enable_fast_math") to the
// flag's value as written ("true").
type Flags map[string]string

// Split takes the --xla_* flags out of args. They must be written
// --xla_name=value (or -xla_name=value); a bare --xla_name means true. The
// other arguments come back in order. A malformed name is an error.
func Split(args []string) (Flags, []string, error) {
	flags := Flags{}
	var rest []string
	for i, a := range args {
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		if !ok || !strings.HasPrefix(name, "xla_") {
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(name, "=")
		if !hasValue {
			value = "true"
		}
		if !validName(name) {
			return nil, nil, fmt.Errorf("XLA flag %q: want --xla_<name>=<value>", a)
		}
		flags[name] = value
	}
	return flags, rest, nil
}

func validName(n string) bool {
	if len(n) <= len("xla_") {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// String lists the flags as a command line would, sorted.
func (f Flags) String() string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(f)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "--%s=%s", k, f[k])
	}
	return b.String()
}

// Merge returns the serialized CompileOptionsProto xla (nil or empty: a fresh
// one) with the flags added to its env_option_overrides, keeping any override
// it already has. Other fields are kept as they were.
func (f Flags) Merge(xla []byte) ([]byte, error) {
	if len(f) == 0 {
		return xla, nil
	}
	opts := &xlapb.CompileOptionsProto{}
	if len(xla) > 0 {
		if err := proto.Unmarshal(xla, opts); err != nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "xlaflags: the compile options are not an xla.CompileOptionsProto: %v", err)
		}
	}
	if opts.EnvOptionOverrides == nil {
		opts.EnvOptionOverrides = map[string]*xlapb.OptionOverrideProto{}
	}
	for k, v := range f {
		if _, set := opts.EnvOptionOverrides[k]; set {
			continue
		}
		opts.EnvOptionOverrides[k] = override(v)
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(opts)
}

// override types a flag's value by its spelling.
func override(v string) *xlapb.OptionOverrideProto {
	switch v {
	case "true", "True":
		return &xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_BoolField{BoolField: true}}
	case "false", "False":
		return &xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_BoolField{BoolField: false}}
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return &xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_IntField{IntField: n}}
	}
	if strings.ContainsAny(v, ".eE") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return &xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_DoubleField{DoubleField: f}}
		}
	}
	return &xlapb.OptionOverrideProto{Value: &xlapb.OptionOverrideProto_StringField{StringField: v}}
}

// Wrap returns a client that compiles every program on c with the flags merged
// into its compile options; everything else goes to c unchanged. With no flags
// it returns c.
func Wrap(c ifrt.Client, f Flags) ifrt.Client {
	if len(f) == 0 {
		return c
	}
	return &client{Client: c, flags: f}
}

type client struct {
	ifrt.Client
	flags Flags
}

func (c *client) Compile(ctx context.Context, program ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	var o ifrt.CompileOptions
	if opts != nil {
		o = *opts
	}
	xla, err := c.flags.Merge(o.XLA)
	if err != nil {
		return nil, err
	}
	o.XLA = xla
	return c.Client.Compile(ctx, program, &o)
}

// As gives the wrapped client's handles.
func (c *client) As(target any) bool { return c.Client.As(target) }
