package fake_test

import (
	"testing"

	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkRestore restores the snapshot of a world of 1,000 databases
// (each with its production branch): the whole Restore (restore), and its
// pre-pass alone (decode_cost), which walks the JSON as it will be decoded,
// checking each value's kind and what decoding it will cost.
func BenchmarkRestore(b *testing.B) {
	src := scaleWorld(b, 1000)
	defer src.Close()
	data, err := src.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := src.Restore(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode_cost", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := fake.SnapshotDecodeCost(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
