package main

import (
	"fmt"
	"strconv"
	"strings"
)

// function is one PJRT_Api function the package calls, as functions.txt lists
// it and the header describes it.
type function struct {
	name  string // PJRT_Client_Create
	minor int    // the minor API version that added it
	// raw: the Go wrapper returns the PJRT_Error* unconverted (the error
	// conversion itself uses it).
	raw bool

	slot int
	sig  signature
}

// parseList reads functions.txt: one function a line, "name minor [flag...]",
// with # comments and blank lines ignored. Every name must be a PJRT_Api
// member, in table order, each at most once, with a minor version no newer
// than the header's; because new functions are only ever appended to the
// table, minor versions may not decrease down the list.
func parseList(src string, h *header) ([]function, error) {
	var out []function
	for n, line := range strings.Split(src, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		at := func(format string, args ...any) error {
			return fmt.Errorf("line %d: %s", n+1, fmt.Sprintf(format, args...))
		}
		if len(fields) < 2 {
			return nil, at("want \"name minor [flags]\", got %q", strings.TrimSpace(line))
		}
		f := function{name: fields[0], slot: h.slot(fields[0])}
		minor, err := strconv.Atoi(fields[1])
		if err != nil || minor < 0 {
			return nil, at("%s: minor version %q is not a non-negative integer", f.name, fields[1])
		}
		f.minor = minor
		for _, flag := range fields[2:] {
			switch flag {
			case "raw":
				f.raw = true
			default:
				return nil, at("%s: unknown flag %q (the only flag is raw)", f.name, flag)
			}
		}
		if f.slot < 0 {
			return nil, at("%s is not a member of PJRT_Api", f.name)
		}
		sig, ok := h.funcs[f.name]
		if !ok {
			return nil, at("%s: no typedef of its function type", f.name)
		}
		f.sig = sig
		if f.raw && !sig.returnsError {
			return nil, at("%s: raw applies only to functions that return PJRT_Error*", f.name)
		}
		if err := h.checkArgs(f.name, sig); err != nil {
			return nil, at("%v", err)
		}
		if f.minor > h.minor {
			return nil, at("%s: minor version %d is newer than the header's 0.%d", f.name, f.minor, h.minor)
		}
		if len(out) > 0 {
			prev := out[len(out)-1]
			if f.slot <= prev.slot {
				return nil, at("%s (slot %d) must come after %s (slot %d): list functions once each, in PJRT_Api order",
					f.name, f.slot, prev.name, prev.slot)
			}
			if f.minor < prev.minor {
				return nil, at("%s: minor version %d is older than that of %s before it (%d), but PJRT_Api only grows at its end",
					f.name, f.minor, prev.name, prev.minor)
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no functions listed")
	}
	return out, nil
}

// goName turns PJRT_LoadedExecutable_AddressableDeviceLogicalIds into
// LoadedExecutableAddressableDeviceLogicalIDs: the parts without the PJRT_
// prefix, joined, with Go's spelling of the initialisms Id and Ids.
func goName(c string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.TrimPrefix(c, "PJRT_"), "_") {
		for _, w := range camelWords(part) {
			switch w {
			case "Id":
				w = "ID"
			case "Ids":
				w = "IDs"
			}
			b.WriteString(w)
		}
	}
	return b.String()
}

// camelWords splits "AddressableDeviceLogicalIds" into its capitalised words.
func camelWords(s string) []string {
	var words []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			words = append(words, s[start:i])
			start = i
		}
	}
	return append(words, s[start:])
}
