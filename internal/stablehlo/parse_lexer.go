package stablehlo

import (
	"fmt"
	"strconv"
	"strings"
)

type tokKind int

var sigilKinds = [256]tokKind{'%': tokValue, '@': tokSymbol, '#': tokHash, '!': tokBang, '^': tokCaret}

const (
	tokEOF    tokKind = iota
	tokIdent          // bare identifier: stablehlo.add, tensor, dense, x
	tokValue          // %name or %name#3
	tokSymbol         // @name or @"quoted"
	tokHash           // #alias or #dialect.attr
	tokBang           // !dialect.type
	tokCaret          // ^bb0
	tokInt            // 12, -3, 0xFF
	tokFloat          // 1.5e+00
	tokString         // "text" (unquoted in tok.text)
	tokArrow          // ->
	tokPunct          // one of ( ) [ ] { } < > , : = * ? + |
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset
}

// lexer turns MLIR text into tokens on demand. The parser scans tensor
// shapes ("4x3xf32") directly from the source, so lexing is lazy.
type lexer struct {
	src []byte
	off int
}

// lineIndex maps byte offsets to 1-based line and column numbers.
type lineIndex []int // byte offset of the start of each line

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (idx lineIndex) position(off int) (line, col int) {
	lo, hi := 0, len(idx)-1
	for lo < hi { // last line start <= off
		mid := (lo + hi + 1) / 2
		if idx[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - idx[lo] + 1
}

type parseError struct {
	off         int
	msg         string
	unsupported bool // valid MLIR this package cannot represent (Unimplemented)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) skipSpace() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.off++
		case c == '/' && l.off+1 < len(l.src) && l.src[l.off+1] == '/':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.off++
			}
		default:
			return
		}
	}
}

func (l *lexer) identEnd(i int) int {
	for i < len(l.src) && isIdentChar(l.src[i]) {
		i++
	}
	return i
}

// next lexes one token.
func (l *lexer) next() (token, *parseError) {
	l.skipSpace()
	start := l.off
	if l.off >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.off]
	switch {
	case c == '%' || c == '@' || c == '#' || c == '!' || c == '^':
		kind := sigilKinds[c]
		if l.off+1 < len(l.src) && l.src[l.off+1] == '"' {
			l.off++
			s, err := l.lexString()
			if err != nil {
				return token{}, err
			}
			return token{kind: kind, text: s, pos: start}, nil
		}
		end := l.identEnd(l.off + 1)
		if kind == tokValue && end < len(l.src) && l.src[end] == '#' {
			end = l.identEnd(end + 1)
		}
		if end == l.off+1 {
			return token{}, &parseError{off: start, msg: fmt.Sprintf("expected a name after %q", c)}
		}
		l.off = end
		return token{kind: kind, text: string(l.src[start+1 : end]), pos: start}, nil
	case c == '"':
		s, err := l.lexString()
		if err != nil {
			return token{}, err
		}
		return token{kind: tokString, text: s, pos: start}, nil
	case c == '-' && l.off+1 < len(l.src) && l.src[l.off+1] == '>':
		l.off += 2
		return token{kind: tokArrow, text: "->", pos: start}, nil
	case isDigit(c) || ((c == '-' || c == '+') && l.off+1 < len(l.src) && isDigit(l.src[l.off+1])):
		return l.lexNumber()
	case isIdentStart(c):
		l.off = l.identEnd(l.off)
		return token{kind: tokIdent, text: string(l.src[start:l.off]), pos: start}, nil
	case strings.IndexByte("()[]{}<>,:=*?+|-", c) >= 0:
		l.off++
		return token{kind: tokPunct, text: string(c), pos: start}, nil
	}
	return token{}, &parseError{off: start, msg: fmt.Sprintf("unexpected character %q", c)}
}

func (l *lexer) lexString() (string, *parseError) {
	start := l.off
	i := l.off + 1
	var b strings.Builder
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '"':
			l.off = i + 1
			return b.String(), nil
		case c == '\n':
			return "", &parseError{off: start, msg: "unterminated string"}
		case c == '\\' && i+1 < len(l.src):
			n := l.src[i+1]
			switch {
			case n == 'n':
				b.WriteByte('\n')
				i += 2
			case n == 't':
				b.WriteByte('\t')
				i += 2
			case n == '\\' || n == '"':
				b.WriteByte(n)
				i += 2
			case i+2 < len(l.src) && isHex(n) && isHex(l.src[i+2]):
				v, _ := strconv.ParseUint(string(l.src[i+1:i+3]), 16, 8)
				b.WriteByte(byte(v))
				i += 3
			default:
				return "", &parseError{off: i, msg: "bad escape in string"}
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", &parseError{off: start, msg: "unterminated string"}
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (l *lexer) lexNumber() (token, *parseError) {
	start := l.off
	i := l.off
	if l.src[i] == '-' || l.src[i] == '+' {
		i++
	}
	if i+1 < len(l.src) && l.src[i] == '0' && (l.src[i+1] == 'x' || l.src[i+1] == 'X') && i+2 < len(l.src) && isHex(l.src[i+2]) {
		i += 2
		for i < len(l.src) && isHex(l.src[i]) {
			i++
		}
		l.off = i
		return token{kind: tokInt, text: string(l.src[start:i]), pos: start}, nil
	}
	for i < len(l.src) && isDigit(l.src[i]) {
		i++
	}
	kind := tokInt
	if i < len(l.src) && l.src[i] == '.' {
		kind = tokFloat
		i++
		for i < len(l.src) && isDigit(l.src[i]) {
			i++
		}
	}
	if i < len(l.src) && (l.src[i] == 'e' || l.src[i] == 'E') {
		j := i + 1
		if j < len(l.src) && (l.src[j] == '+' || l.src[j] == '-') {
			j++
		}
		if j < len(l.src) && isDigit(l.src[j]) {
			kind = tokFloat
			i = j
			for i < len(l.src) && isDigit(l.src[i]) {
				i++
			}
		}
	}
	l.off = i
	return token{kind: kind, text: string(l.src[start:i]), pos: start}, nil
}
