// Package clock is a clock for a simulated world: virtual, standing still
// until a caller moves it, or real, following the wall clock. Either way,
// jobs scheduled for a time run once the clock reaches it, in time order
// (ties in the order scheduled).
//
// The clock is generic over its jobs, which it never looks into: it hands
// each due job to the function the caller gave [New]. It knows nothing of
// what a job acts on, nor of how a caller saves and restores its jobs
// ([Clock.Pending] and [Clock.Restore] carry them as [Timer] values).
// It takes no lock: its caller serialises every call, the wake-up
// function included.
package clock
