// Package parquet writes a table of strings as an Apache Parquet file: one
// row group, one uncompressed data page per column, every column a
// required UTF-8 string (BYTE_ARRAY) in the PLAIN encoding, the file's
// metadata in Thrift's compact protocol, as the format's specification
// lays them out. It writes what the fake exports in the parquet format and
// reads nothing.
//
// The package knows nothing of the fake that uses it.
package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// magic starts and ends every Parquet file.
const magic = "PAR1"

// The values of the format's enumerations this writer uses.
const (
	typeByteArray   = 6 // Type.BYTE_ARRAY
	repRequired     = 0 // FieldRepetitionType.REQUIRED
	convertedUTF8   = 0 // ConvertedType.UTF8
	encodingPlain   = 0 // Encoding.PLAIN
	encodingRLE     = 3 // Encoding.RLE
	codecNone       = 0 // CompressionCodec.UNCOMPRESSED
	pageTypeData    = 0 // PageType.DATA_PAGE
	formatVersion   = 1
	createdByWriter = "platform-go fake"
)

// Write writes rows, each a value for every one of columns, as a Parquet
// file to w. Column names must be unique and not empty.
func Write(w io.Writer, columns []string, rows [][]string) error {
	if len(columns) == 0 {
		return errors.New("parquet: no columns")
	}
	seen := map[string]bool{}
	for _, c := range columns {
		if c == "" || seen[c] {
			return fmt.Errorf("parquet: column name %q is empty or repeated", c)
		}
		seen[c] = true
	}
	for i, r := range rows {
		if len(r) != len(columns) {
			return fmt.Errorf("parquet: row %d has %d values, want %d", i, len(r), len(columns))
		}
	}
	out := []byte(magic)
	chunks := make([]chunk, len(columns))
	var total int64
	for j := range columns {
		var data []byte
		for _, r := range rows {
			data = binary.LittleEndian.AppendUint32(data, uint32(len(r[j])))
			data = append(data, r[j]...)
		}
		var h compact
		h.i32(1, pageTypeData)
		h.i32(2, int32(len(data)))
		h.i32(3, int32(len(data)))
		h.beginStruct(5) // data_page_header
		h.i32(1, int32(len(rows)))
		h.i32(2, encodingPlain)
		h.i32(3, encodingRLE)
		h.i32(4, encodingRLE)
		h.endStruct()
		h.stop()
		c := chunk{offset: int64(len(out)), size: int64(len(h.b) + len(data))}
		out = append(out, h.b...)
		out = append(out, data...)
		chunks[j] = c
		total += c.size
	}
	var m compact
	m.i32(1, formatVersion)
	m.beginList(2, tStruct, len(columns)+1) // schema: the root, then each column
	m.beginElem()
	m.binary(4, "schema")
	m.i32(5, int32(len(columns)))
	m.endElem()
	for _, c := range columns {
		m.beginElem()
		m.i32(1, typeByteArray)
		m.i32(3, repRequired)
		m.binary(4, c)
		m.i32(6, convertedUTF8)
		m.endElem()
	}
	m.endList()
	m.i64(3, int64(len(rows)))
	m.beginList(4, tStruct, 1) // row_groups
	m.beginElem()
	m.beginList(1, tStruct, len(columns)) // columns
	for j, c := range columns {
		ch := chunks[j]
		m.beginElem()
		m.i64(2, ch.offset) // file_offset
		m.beginStruct(3)    // meta_data
		m.i32(1, typeByteArray)
		m.beginList(2, tI32, 2)
		m.listI32(encodingPlain)
		m.listI32(encodingRLE)
		m.endList()
		m.beginList(3, tBinary, 1)
		m.listBinary(c)
		m.endList()
		m.i32(4, codecNone)
		m.i64(5, int64(len(rows)))
		m.i64(6, ch.size)
		m.i64(7, ch.size)
		m.i64(9, ch.offset) // data_page_offset
		m.endStruct()
		m.endElem()
	}
	m.endList()
	m.i64(2, total)
	m.i64(3, int64(len(rows)))
	m.endElem()
	m.endList()
	m.binary(6, createdByWriter)
	m.stop()
	out = append(out, m.b...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.b)))
	out = append(out, magic...)
	_, err := w.Write(out)
	return err
}

// chunk is where a column's one page lies in the file.
type chunk struct{ offset, size int64 }

// The compact protocol's types.
const (
	tI32    = 5
	tI64    = 6
	tBinary = 8
	tList   = 9
	tStruct = 12
)

// compact writes Thrift's compact protocol: last holds, for each struct
// being written, the ID of its last field, from which a field header's
// delta is counted.
type compact struct {
	b    []byte
	last []int16
}

func (c *compact) field(id int16, typ byte) {
	if len(c.last) == 0 {
		c.last = append(c.last, 0)
	}
	prev := c.last[len(c.last)-1]
	if d := id - prev; d > 0 && d <= 15 {
		c.b = append(c.b, byte(d)<<4|typ)
	} else {
		c.b = append(c.b, typ)
		c.b = binary.AppendVarint(c.b, int64(id)) // zigzag, as i16
	}
	c.last[len(c.last)-1] = id
}

func (c *compact) i32(id int16, v int32) {
	c.field(id, tI32)
	c.b = binary.AppendVarint(c.b, int64(v))
}

func (c *compact) i64(id int16, v int64) {
	c.field(id, tI64)
	c.b = binary.AppendVarint(c.b, v)
}

func (c *compact) binary(id int16, s string) {
	c.field(id, tBinary)
	c.listBinary(s)
}

func (c *compact) beginStruct(id int16) {
	c.field(id, tStruct)
	c.last = append(c.last, 0)
}

func (c *compact) endStruct() {
	c.b = append(c.b, 0)
	c.last = c.last[:len(c.last)-1]
}

// stop ends the outermost struct.
func (c *compact) stop() { c.b = append(c.b, 0) }

func (c *compact) beginList(id int16, elem byte, n int) {
	c.field(id, tList)
	if n < 15 {
		c.b = append(c.b, byte(n)<<4|elem)
	} else {
		c.b = append(c.b, 0xf0|elem)
		c.b = binary.AppendUvarint(c.b, uint64(n))
	}
}

func (c *compact) endList() {}

// beginElem and endElem bound a struct that is an element of a list.
func (c *compact) beginElem() { c.last = append(c.last, 0) }

func (c *compact) endElem() {
	c.b = append(c.b, 0)
	c.last = c.last[:len(c.last)-1]
}

func (c *compact) listI32(v int32) { c.b = binary.AppendVarint(c.b, int64(v)) }

func (c *compact) listBinary(s string) {
	c.b = binary.AppendUvarint(c.b, uint64(len(s)))
	c.b = append(c.b, s...)
}
