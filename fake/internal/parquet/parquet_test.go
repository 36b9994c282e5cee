package parquet

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestWriteLayout checks the file's frame: the magic at both ends, the
// footer's length, the values of each column in the PLAIN encoding in
// order, and the column names in the metadata. (A reader of the format,
// outside this repository, read these files back value for value.)
func TestWriteLayout(t *testing.T) {
	t.Parallel()
	cols := []string{"username", "source_ip"}
	rows := [][]string{{"postgres", "192.0.2.1"}, {"", "2001:db8::1"}}
	var b bytes.Buffer
	if err := Write(&b, cols, rows); err != nil {
		t.Fatal(err)
	}
	f := b.Bytes()
	if !bytes.HasPrefix(f, []byte(magic)) || !bytes.HasSuffix(f, []byte(magic)) {
		t.Fatalf("no magic at the ends: %q", f)
	}
	n := int(binary.LittleEndian.Uint32(f[len(f)-8:]))
	meta := f[len(f)-8-n : len(f)-8]
	for _, c := range append([]string{"schema", createdByWriter}, cols...) {
		if !bytes.Contains(meta, []byte(c)) {
			t.Errorf("the metadata lacks %q", c)
		}
	}
	for j := range cols {
		var plain []byte
		for _, r := range rows {
			plain = binary.LittleEndian.AppendUint32(plain, uint32(len(r[j])))
			plain = append(plain, r[j]...)
		}
		if !bytes.Contains(f[:len(f)-8-n], plain) {
			t.Errorf("column %s's values are not in the file", cols[j])
		}
	}
}

func TestWriteRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cols []string
		rows [][]string
		want string
	}{
		{"no columns", nil, nil, "no columns"},
		{"empty name", []string{"a", ""}, nil, `column name ""`},
		{"repeated name", []string{"a", "a"}, nil, `column name "a"`},
		{"short row", []string{"a", "b"}, [][]string{{"x"}}, "row 0 has 1 values, want 2"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := Write(&b, tt.cols, tt.rows); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", tt.name, b.Len())
		}
	}
}

// TestCompactFieldHeaders checks the compact protocol's field headers: a
// delta of 1 to 15 in the high nibble, otherwise the type then the ID.
func TestCompactFieldHeaders(t *testing.T) {
	t.Parallel()
	var c compact
	c.i32(1, 3)  // delta 1: 0x15, zigzag 3 = 6
	c.i32(20, 0) // delta 19: 0x05, zigzag 20 = 40, value 0
	c.i64(2, -1) // a negative delta: 0x06, zigzag 2 = 4, zigzag -1 = 1
	c.stop()
	want := []byte{0x15, 6, 0x05, 40, 0, 0x06, 4, 1, 0}
	if !bytes.Equal(c.b, want) {
		t.Errorf("got % x, want % x", c.b, want)
	}
}

// TestCompactListHeaders checks the compact protocol's list headers: a
// size under 15 in the high nibble with the element type, otherwise 0xf
// there and the size as a varint after it.
func TestCompactListHeaders(t *testing.T) {
	t.Parallel()
	var c compact
	c.beginList(1, tStruct, 3)   // delta 1, list: 0x19; 3 structs: 0x3c
	c.beginList(2, tBinary, 20)  // delta 1, list: 0x19; 0xf8, varint 20
	c.beginList(3, tBinary, 200) // 0x19; 0xf8, varint 200: 0xc8 0x01
	want := []byte{0x19, 0x3c, 0x19, 0xf8, 20, 0x19, 0xf8, 0xc8, 0x01}
	if !bytes.Equal(c.b, want) {
		t.Errorf("got % x, want % x", c.b, want)
	}
}
