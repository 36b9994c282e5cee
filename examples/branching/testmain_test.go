package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/testexit"
)

// TestMain ends the binary through testexit.Main, which skips the race
// detector's pause at a successful exit.
func TestMain(m *testing.M) { testexit.Main(m) }
