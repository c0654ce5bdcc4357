package ifrttest

import (
	"context"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
)

// Harness tells the suite how to reach a backend.
type Harness struct {
	// NewClient returns a client for one test, with at least one addressable device
	// (8 for full coverage). The suite closes it when the test ends.
	NewClient func(t *testing.T) ifrt.Client
	// Programs says the backend compiles StableHLO text programs.
	Programs bool
	// MaxProgramDevices bounds the devices one program may run on. Zero means
	// all addressable devices.
	MaxProgramDevices int
	// Collectives says the backend runs programs with collectives (an
	// all_reduce over every device the suite uses).
	Collectives bool
	// SkipMemoryKinds says the backend has only default memories.
	SkipMemoryKinds bool
}

// defaultTestTimeout bounds every blocking call of the suite.
const defaultTestTimeout = 60 * time.Second

type env struct {
	t      *testing.T
	ctx    context.Context
	client ifrt.Client
	devs   ifrt.DeviceList
}

func (h Harness) env(t *testing.T, minDevices int) *env {
	t.Helper()
	c := h.NewClient(t)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	devs := c.AddressableDevices()
	if len(devs) < minDevices {
		t.Skipf("needs %d addressable devices, the client has %d", minDevices, len(devs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	t.Cleanup(cancel)
	return &env{t: t, ctx: ctx, client: c, devs: devs}
}

// programEnv is env for a test that compiles src(n) for the first n devices
// a program may span (all of them unless MaxProgramDevices is set).
func (h Harness) programEnv(t *testing.T, minDevices int, src func(n int) string) (*env, ifrt.LoadedExecutable) {
	t.Helper()
	e := h.env(t, minDevices)
	if h.MaxProgramDevices > 0 && len(e.devs) > h.MaxProgramDevices {
		e.devs = e.devs[:h.MaxProgramDevices]
	}
	exe, err := e.client.Compile(e.ctx, &ifrt.MLIRProgram{Module: []byte(src(len(e.devs)))}, &ifrt.CompileOptions{Devices: e.devs})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return e, exe
}

// oneDeviceProgram skips the test unless the backend compiles programs,
// and compiles src, a program of one partition, for the first of at least
// minDevices devices.
func (h Harness) oneDeviceProgram(t *testing.T, minDevices int, src string) (*env, ifrt.LoadedExecutable) {
	t.Helper()
	if !h.Programs {
		t.Skip("the backend does not compile StableHLO text")
	}
	e := h.env(t, minDevices)
	exe, err := e.client.Compile(e.ctx, &ifrt.MLIRProgram{Module: []byte(src)}, &ifrt.CompileOptions{Devices: e.devs[:1]})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return e, exe
}

// RunConformance runs the whole suite as subtests of t.
func RunConformance(t *testing.T, h Harness) {
	if h.NewClient == nil {
		t.Fatal("ifrttest: Harness.NewClient is nil")
	}
	tests := []struct {
		name string
		run  func(*testing.T, Harness)
	}{
		{"Devices", testDevices},
		{"RoundTripAllDTypes", testRoundTripAllDTypes},
		{"TypedSlices", testTypedSlices},
		{"StridedCopies", testStridedCopies},
		{"AssembleDisassemble", testAssembleDisassemble},
		{"CopyAcrossDevices", testCopyAcrossDevices},
		{"CopyToMemoryKind", testCopyToMemoryKind},
		{"Reshard", testReshard},
		{"ReshardDeviceSets", testReshardDeviceSets},
		{"Remap", testRemap},
		{"FullyReplicatedShard", testFullyReplicatedShard},
		{"UseAfterDelete", testUseAfterDelete},
		{"Donation", testDonation},
		{"ExecuteShardedDonation", testExecuteShardedDonation},
		{"ExecuteDonationToOtherType", testExecuteDonationToOtherType},
		{"Futures", testFutures},
		{"BadInput", testBadInput},
		{"BadArguments", testBadArguments},
		{"ClosedClient", testClosedClient},
		{"Concurrent", testConcurrent},
		{"CompileAndExecute", testCompileAndExecute},
		{"ExecuteSharded", testExecuteSharded},
		{"ExecuteCollective", testExecuteCollective},
		{"ExecuteBadArguments", testExecuteBadArguments},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h) })
	}
}
