package jsonread

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// This file reads the tokens of JSON's grammar (RFC 8259) as strictly as
// encoding/json's scanner: what it does not accept, neither does this.

// space skips the whitespace JSON allows between tokens.
func (d *decoder) space() {
	for d.off < len(d.data) {
		switch d.data[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// literal reads the word at d.off, which must be lit.
func (d *decoder) literal(lit string) error {
	if len(d.data)-d.off < len(lit) || string(d.data[d.off:d.off+len(lit)]) != lit {
		return errFallback
	}
	d.off += len(lit)
	return nil
}

// boolean reads true or false.
func (d *decoder) boolean() (bool, error) {
	if d.off < len(d.data) && d.data[d.off] == 't' {
		return true, d.literal("true")
	}
	return false, d.literal("false")
}

// each reads the object or array at d.off (its '{' or '['), which ends
// with end, calling member to read each member.
func (d *decoder) each(end byte, member func() error) error {
	if d.depth++; d.depth > maxDepth {
		return errFallback
	}
	d.off++
	d.space()
	if d.off < len(d.data) && d.data[d.off] == end {
		d.off++
		d.depth--
		return nil
	}
	for {
		if err := member(); err != nil {
			return err
		}
		d.space()
		if d.off >= len(d.data) {
			return errFallback
		}
		switch d.data[d.off] {
		case ',':
			d.off++
		case end:
			d.off++
			d.depth--
			return nil
		default:
			return errFallback
		}
	}
}

// key reads a struct member's name and the colon after it. The name is
// returned as it is written, so it must need no decoding: a name with an
// escape or a byte outside ASCII goes to encoding/json, which folds its
// case by Unicode's rules.
func (d *decoder) key() ([]byte, error) {
	d.space()
	if d.off >= len(d.data) || d.data[d.off] != '"' {
		return nil, errFallback
	}
	start := d.off + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.off = i + 1
			return d.data[start:i], d.colon()
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, errFallback
		}
	}
	return nil, errFallback
}

// mapKey reads a map key, any string, and the colon after it.
func (d *decoder) mapKey() (string, error) {
	d.space()
	if d.off >= len(d.data) || d.data[d.off] != '"' {
		return "", errFallback
	}
	k, err := d.str()
	if err != nil {
		return "", err
	}
	return k, d.colon()
}

// colon reads the ':' between a member's name and its value.
func (d *decoder) colon() error {
	d.space()
	if d.off >= len(d.data) || d.data[d.off] != ':' {
		return errFallback
	}
	d.off++
	return nil
}

// str reads the string at d.off (its opening quote). The common string,
// ASCII with no escapes, is copied as it is; any other is decoded by
// encoding/json, so that escapes and invalid UTF-8 come out as it makes
// them.
func (d *decoder) str() (string, error) {
	start := d.off + 1
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			d.off = i + 1
			return string(d.data[start:i]), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	begin := d.off
	if err := d.skipString(); err != nil {
		return "", err
	}
	var s string
	if json.Unmarshal(d.data[begin:d.off], &s) != nil {
		return "", errFallback
	}
	return s, nil
}

// skipString reads past the string at d.off, checking its escapes.
func (d *decoder) skipString() error {
	for i := d.off + 1; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.off = i + 1
			return nil
		case c < 0x20:
			return errFallback
		case c == '\\':
			i++
			if i >= len(d.data) {
				return errFallback
			}
			switch d.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d.data) {
					return errFallback
				}
				for _, h := range d.data[i+1 : i+5] {
					if !isHex(h) {
						return errFallback
					}
				}
				i += 4
			default:
				return errFallback
			}
		}
	}
	return errFallback
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads the number at d.off and returns its text.
func (d *decoder) number() ([]byte, error) {
	data, i := d.data, d.off
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	default:
		return nil, errFallback
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return nil, errFallback
		}
		for ; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return nil, errFallback
		}
		for ; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	num := data[d.off:i]
	d.off = i
	return num, nil
}

// integer reads a number that must be an integer, as encoding/json reads
// one into an int: no fraction, no exponent, within 64 bits.
func (d *decoder) integer() (int64, error) {
	num, err := d.number()
	if err != nil {
		return 0, err
	}
	neg := num[0] == '-'
	digits := num
	if neg {
		digits = num[1:]
	}
	if len(digits) > 18 { // may not fit: let strconv say
		n, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil {
			return 0, errFallback
		}
		return n, nil
	}
	var n int64
	for _, c := range digits {
		if !isDigit(c) {
			return 0, errFallback // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// unsigned reads a number that must be a non-negative integer.
func (d *decoder) unsigned() (uint64, error) {
	num, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil {
		return 0, errFallback
	}
	return n, nil
}

// float reads a number as a float of bits bits.
func (d *decoder) float(bits int) (float64, error) {
	num, err := d.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(num), bits)
	if err != nil {
		return 0, errFallback
	}
	return f, nil
}

// raw reads past the value at d.off, checking it, and returns its text.
func (d *decoder) raw() ([]byte, error) {
	start := d.off
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.off], nil
}

// skip reads past the value at d.off, checking it.
func (d *decoder) skip() error {
	d.space()
	if d.off >= len(d.data) {
		return errFallback
	}
	switch c := d.data[d.off]; c {
	case '{':
		return d.each('}', func() error {
			d.space()
			if d.off >= len(d.data) || d.data[d.off] != '"' {
				return errFallback
			}
			if err := d.skipString(); err != nil {
				return err
			}
			if err := d.colon(); err != nil {
				return err
			}
			return d.skip()
		})
	case '[':
		return d.each(']', d.skip)
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		_, err := d.number()
		return err
	}
}
