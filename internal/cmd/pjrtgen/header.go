package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// header is what pjrtgen reads from pjrt_c_api.h.
type header struct {
	minor int // PJRT_API_MINOR

	// slots lists the function pointers of struct PJRT_Api in order; slot i
	// follows the fixed fields (struct_size, extension_start, pjrt_api_version).
	slots []string

	// funcs maps a function type (the name of its PJRT_Api field) to its
	// signature.
	funcs map[string]signature

	// structs maps a struct name to the names of its members in order (a
	// member of an anonymous union is not listed).
	structs map[string][]string

	// traits maps a struct name to the last_field of its
	// PJRT_DEFINE_STRUCT_TRAITS, which defines <name>_STRUCT_SIZE.
	traits map[string]string
}

// signature is a function type: typedef <ret> Name(<args>* args).
type signature struct {
	returnsError bool   // PJRT_Error*; otherwise void
	args         string // the argument struct's name
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	minorDefine  = regexp.MustCompile(`#define\s+PJRT_API_MINOR\s+(\d+)`)
	apiStruct    = regexp.MustCompile(`(?s)typedef\s+struct\s+PJRT_Api\s*\{(.*?)\}\s*PJRT_Api\s*;`)
	apiField     = regexp.MustCompile(`_PJRT_API_STRUCT_FIELD\(\s*(\w+)\s*\)`)
	funcTypedef  = regexp.MustCompile(`typedef\s+(void|PJRT_Error\s*\*)\s*(\w+)\s*\(\s*(\w+)\s*\*\s*\w*\s*\)\s*;`)
	structDef    = regexp.MustCompile(`(?s)struct\s+(\w+)\s*\{`)
	traitsMacro  = regexp.MustCompile(`PJRT_DEFINE_STRUCT_TRAITS\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*;`)
	// The fixed fields before the first function pointer of PJRT_Api.
	apiPrologue = regexp.MustCompile(`^\s*size_t\s+struct_size\s*;\s*PJRT_Extension_Base\s*\*\s*extension_start\s*;\s*PJRT_Api_Version\s+pjrt_api_version\s*;`)
	identAtEnd  = regexp.MustCompile(`(\w+)\s*(\[[^\]]*\]\s*)*$`)
	funcPtrName = regexp.MustCompile(`\(\s*\*\s*(\w+)\s*\)`)
)

// parseHeader reads the parts of pjrt_c_api.h that pjrtgen needs. It is not a C
// parser: it relies on the header's regular layout and fails loudly when that
// layout changes.
func parseHeader(src string) (*header, error) {
	src = blockComment.ReplaceAllString(src, " ")
	src = lineComment.ReplaceAllString(src, "")
	h := &header{
		funcs:   make(map[string]signature),
		structs: make(map[string][]string),
		traits:  make(map[string]string),
	}

	m := minorDefine.FindStringSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("no #define PJRT_API_MINOR")
	}
	h.minor, _ = strconv.Atoi(m[1])

	api := apiStruct.FindStringSubmatch(src)
	if api == nil {
		return nil, fmt.Errorf("no typedef struct PJRT_Api { ... } PJRT_Api;")
	}
	if !apiPrologue.MatchString(api[1]) {
		return nil, fmt.Errorf("PJRT_Api does not start with struct_size, extension_start, pjrt_api_version")
	}
	for _, f := range apiField.FindAllStringSubmatch(api[1], -1) {
		h.slots = append(h.slots, f[1])
	}
	if len(h.slots) == 0 {
		return nil, fmt.Errorf("PJRT_Api has no _PJRT_API_STRUCT_FIELD members")
	}

	for _, f := range funcTypedef.FindAllStringSubmatch(src, -1) {
		h.funcs[f[2]] = signature{returnsError: f[1] != "void", args: f[3]}
	}
	for _, t := range traitsMacro.FindAllStringSubmatch(src, -1) {
		h.traits[t[1]] = t[2]
	}
	for _, loc := range structDef.FindAllStringSubmatchIndex(src, -1) {
		name := src[loc[2]:loc[3]]
		body, ok := braced(src[loc[1]-1:])
		if !ok {
			return nil, fmt.Errorf("struct %s: unbalanced braces", name)
		}
		h.structs[name] = members(body)
	}
	return h, nil
}

// braced returns the text between s's leading '{' and its matching '}'.
func braced(s string) (string, bool) {
	depth := 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

// members returns the names of the members declared at the top level of a
// struct body, in order. An anonymous union ends in "}", so it has no name and
// is left out.
func members(body string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range body {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ';':
			if depth != 0 {
				continue
			}
			decl := strings.TrimSpace(body[start:i])
			start = i + 1
			if m := funcPtrName.FindStringSubmatch(decl); m != nil {
				out = append(out, m[1])
			} else if m := identAtEnd.FindStringSubmatch(decl); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// slot returns the index of fn in PJRT_Api, or -1.
func (h *header) slot(fn string) int {
	for i, s := range h.slots {
		if s == fn {
			return i
		}
	}
	return -1
}

// checkArgs checks that the argument struct of a function has struct traits
// whose last_field is the struct's last member, so that its _STRUCT_SIZE
// covers every field the package may set.
func (h *header) checkArgs(fn string, sig signature) error {
	last, ok := h.traits[sig.args]
	if !ok {
		return fmt.Errorf("%s: no PJRT_DEFINE_STRUCT_TRAITS(%s, ...), so no %s_STRUCT_SIZE", fn, sig.args, sig.args)
	}
	fields, ok := h.structs[sig.args]
	if !ok || len(fields) == 0 {
		return fmt.Errorf("%s: no definition of struct %s", fn, sig.args)
	}
	if len(fields) < 2 || fields[0] != "struct_size" || fields[1] != "extension_start" {
		return fmt.Errorf("%s: struct %s does not start with struct_size, extension_start", fn, sig.args)
	}
	if got := fields[len(fields)-1]; got != last {
		return fmt.Errorf("%s: PJRT_DEFINE_STRUCT_TRAITS(%s, %s) but the struct's last member is %s: its _STRUCT_SIZE would leave fields out",
			fn, sig.args, last, got)
	}
	return nil
}
