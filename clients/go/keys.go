package tollgate

import (
	"strings"
	"unicode/utf8"
)

// MaxIDBytes is the longest user or action id, in bytes.
const MaxIDBytes = 1024

// plainASCII: the ASCII bytes ids keep as they are in keys (lua/README.md, "Ids are escaped").
var plainASCII = func() (t [128]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-_.@+=!~,;#&$()'/<>|^`\"" {
		t[c] = true
	}
	return t
}()

// EscapeID writes an id as keys hold it: plain ASCII and well-formed UTF-8 stay, every other
// byte becomes %XX (upper-case hex), so no id holds ':' '{' '}' '*' or whitespace and every key
// parses back exactly.
func EscapeID(id string) string {
	i := 0
	for i < len(id) && id[i] < 0x80 && plainASCII[id[i]] {
		i++
	}
	if i == len(id) {
		return id // the common case: nothing to escape, nothing allocated
	}
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(id) + 16)
	b.WriteString(id[:i])
	for i < len(id) {
		c := id[i]
		if c < 0x80 && plainASCII[c] {
			b.WriteByte(c)
			i++
			continue
		}
		if c >= 0x80 {
			// DecodeRune refuses overlong forms, surrogates and anything past U+10FFFF, as
			// the contract does; a real U+FFFD decodes with size 3 and stays raw.
			if r, size := utf8.DecodeRuneInString(id[i:]); r != utf8.RuneError || size > 1 {
				b.WriteString(id[i : i+size])
				i += size
				continue
			}
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xF])
		i++
	}
	return b.String()
}

// unescapeID is EscapeID's inverse for the ids in events and keys; false for anything EscapeID
// would not have written.
func unescapeID(escaped string) (string, bool) {
	if !strings.Contains(escaped, "%") {
		return escaped, EscapeID(escaped) == escaped
	}
	var b strings.Builder
	for i := 0; i < len(escaped); i++ {
		if escaped[i] != '%' {
			b.WriteByte(escaped[i])
			continue
		}
		if i+2 >= len(escaped) {
			return "", false
		}
		hi, lo := hexValue(escaped[i+1]), hexValue(escaped[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	id := b.String()
	return id, EscapeID(id) == escaped
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func validateID(id, what string) error {
	if id == "" {
		return newError(ErrInvalid, "%s must not be empty", what)
	}
	if len(id) > MaxIDBytes {
		return newError(ErrInvalid, "%s is %d bytes long; at most %d bytes are allowed", what, len(id), MaxIDBytes)
	}
	return nil
}

// validatePrefix: 1..64 bytes of printable ASCII without glob characters, braces, '%' or ':',
// the rule every Tollgate client keeps (lua/README.md, "The key prefix").
func validatePrefix(prefix string) error {
	if prefix == "" || len(prefix) > 64 {
		return newError(ErrInvalid, "key prefix must be 1 to 64 bytes")
	}
	for i := 0; i < len(prefix); i++ {
		if c := prefix[i]; c <= 0x20 || c >= 0x7F || strings.IndexByte("*?[]\\{}%:", c) >= 0 {
			return newError(ErrInvalid, "key prefix %q may hold only printable ASCII other than : * ? [ ] \\ { } %%", prefix)
		}
	}
	return nil
}

// keySchema builds the keys of lua/README.md "Conventions" for one prefix and layout.
type keySchema struct {
	prefix  string
	cluster bool // policy keys under "{:}", audit mirrors in the call's own slot
}

func (k keySchema) userBase(escapedUser string) string { return k.prefix + ":{" + escapedUser + "}" }

func (k keySchema) policyBase() string {
	if k.cluster {
		return k.prefix + ":{:}:"
	}
	return k.prefix + ":"
}

func (k keySchema) policyKey(action string) string {
	return k.policyBase() + "policy:" + EscapeID(action)
}
func (k keySchema) policyHistoryKey(action string) string { return k.policyKey(action) + ":history" }
func (k keySchema) policyIndexKey() string                { return k.policyBase() + "policies" }
func (k keySchema) policyAuditKey() string                { return k.policyBase() + "audit" }
func (k keySchema) auditKey() string                      { return k.prefix + ":audit" }
func (k keySchema) overrideIndexKey() string {
	return k.policyBase() + "overrides"
}
func (k keySchema) eventsChannel() string { return k.prefix + ":events" }

// auditMirror is the global audit key of a call whose own stream is ownStream: on a cluster the
// stream again ("no mirror"), since a script may touch one slot only.
func (k keySchema) auditMirror(ownStream string) string {
	if k.cluster {
		return ownStream
	}
	return k.auditKey()
}

func algorithmCode(a Algorithm) string {
	switch a {
	case SlidingLog:
		return "sl"
	case SlidingWindow:
		return "sw"
	case TokenBucket:
		return "tb"
	}
	return "fw"
}
