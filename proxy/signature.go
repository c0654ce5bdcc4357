package proxy

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/openpathways/pathways/ifrt"
)

// The protocol tells a client the shardings, layouts and memory kinds of an
// executable's parameters and outputs, but not their dtypes and shapes (jaxlib
// knows them from its own tracing). For programs sent as MLIR text the client
// reads them from the signature of @main, so that Parameters and Outputs are
// complete before the first execution; for bytecode, outputs learn them from the
// first execution's response.

// typeInfo is a tensor type of a signature.
type typeInfo struct {
	dtype ifrt.DType
	shape ifrt.Shape
}

// fillSignature completes the parameters' and outputs' dtypes and shapes from the
// MLIR text of the program, when it can be read and agrees with the metadata.
func (e *executable) fillSignature(module []byte) {
	params, results, ok := mlirSignature(module)
	if !ok {
		return
	}
	fill := func(infos []ifrt.ArgumentInfo, types []typeInfo) []ifrt.ArgumentInfo {
		if len(infos) == 0 {
			infos = make([]ifrt.ArgumentInfo, len(types))
		}
		if len(infos) != len(types) {
			return infos
		}
		for i, t := range types {
			infos[i].DType, infos[i].Shape = t.dtype, t.shape
		}
		return infos
	}
	e.params = fill(e.params, params)
	e.mu.Lock()
	e.outputs = fill(e.outputs, results)
	e.mu.Unlock()
}

// mlirSignature returns the argument and result types of @main in an MLIR text
// module, or ok=false if the signature is not a plain list of ranked tensors.
func mlirSignature(module []byte) (params, results []typeInfo, ok bool) {
	i := bytes.Index(module, []byte("@main("))
	if i < 0 {
		return nil, nil, false
	}
	s := string(module[i+len("@main"):])
	args, rest, ok := splitList(s)
	if !ok {
		return nil, nil, false
	}
	for _, a := range args {
		_, typ, found := strings.Cut(a, ":")
		if !found {
			return nil, nil, false
		}
		t, ok := parseTensorType(typ)
		if !ok {
			return nil, nil, false
		}
		params = append(params, t)
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "->") {
		return params, nil, true // no results
	}
	rest = strings.TrimSpace(rest[2:])
	var outs []string
	if strings.HasPrefix(rest, "(") {
		if outs, _, ok = splitList(rest); !ok {
			return nil, nil, false
		}
	} else {
		outs = []string{rest}
	}
	for _, o := range outs {
		t, ok := parseTensorType(o)
		if !ok {
			return nil, nil, false
		}
		results = append(results, t)
	}
	return params, results, true
}

// splitList splits the parenthesized list at the start of s into its top-level
// comma-separated items and returns what follows the closing parenthesis.
// String literals and nested brackets are skipped over.
func splitList(s string) (items []string, rest string, ok bool) {
	if !strings.HasPrefix(s, "(") {
		return nil, "", false
	}
	depth, start, inString := 0, 1, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inString {
			switch ch {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch ch {
		case '"':
			inString = true
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			if ch == '>' && i > 0 && s[i-1] == '-' {
				continue // the arrow of a function type
			}
			depth--
			if depth == 0 {
				if item := strings.TrimSpace(s[start:i]); item != "" {
					items = append(items, item)
				}
				return items, s[i+1:], true
			}
		case ',':
			if depth == 1 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, "", false
}

// parseTensorType reads "tensor<2x3xf32>" (optionally followed by attributes) or
// a bare element type such as "f32" (a scalar).
func parseTensorType(s string) (typeInfo, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "tensor<") {
		end := strings.IndexAny(s, " {")
		if end >= 0 {
			s = s[:end]
		}
		d, ok := elementType(s)
		return typeInfo{dtype: d, shape: ifrt.Shape{}}, ok
	}
	body := s[len("tensor<"):]
	depth, end := 1, -1
	for i := 0; i < len(body) && end < 0; i++ {
		switch body[i] {
		case '<':
			depth++
		case '>':
			if depth--; depth == 0 {
				end = i
			}
		}
	}
	if end < 0 || strings.ContainsAny(body[:end], ",?*") {
		return typeInfo{}, false
	}
	body = body[:end]
	shape := ifrt.Shape{}
	for {
		x := strings.IndexByte(body, 'x')
		if x <= 0 {
			break
		}
		n, err := strconv.ParseInt(body[:x], 10, 64)
		if err != nil {
			break
		}
		shape = append(shape, n)
		body = body[x+1:]
	}
	d, ok := elementType(body)
	return typeInfo{dtype: d, shape: shape}, ok
}

// elementType maps an MLIR element type to a dtype.
func elementType(s string) (ifrt.DType, bool) {
	switch s {
	case "i1":
		return ifrt.PRED, true
	case "complex<f32>":
		return ifrt.C64, true
	case "complex<f64>":
		return ifrt.C128, true
	}
	name := strings.ToLower(s)
	switch {
	case strings.HasPrefix(name, "ui"):
		name = "u" + name[2:]
	case strings.HasPrefix(name, "si"):
		name = "s" + name[2:]
	case strings.HasPrefix(name, "i"):
		name = "s" + name[1:]
	}
	d, err := ifrt.ParseDType(name)
	if err != nil || d == ifrt.TOKEN || d == ifrt.STRING {
		return ifrt.InvalidDType, false
	}
	return d, true
}
