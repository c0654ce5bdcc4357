// Package ifrttest is the conformance suite every ifrt backend runs.
//
// A backend's test calls RunConformance with a Harness that makes clients:
//
//	func TestConformance(t *testing.T) {
//		ifrttest.RunConformance(t, ifrttest.Harness{
//			NewClient: func(t *testing.T) ifrt.Client { ... },
//		})
//	}
//
// The suite checks bit-exact host round trips for every dtype (bf16 and sub-byte
// types included), strided copies, assemble and disassemble, copies across devices
// and memories, reshards between shardings and device sets, remaps, use after delete
// (always an error, never a crash), futures, bad input, and concurrent use from many
// goroutines (run it under -race). Tests that need more devices than the client has
// skip. With Harness.Programs set it also compiles and runs StableHLO text programs.
package ifrttest
