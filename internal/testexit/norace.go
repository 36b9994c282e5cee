//go:build !race

package testexit

// raceEnabled reports whether the binary runs under the race detector.
const raceEnabled = false
