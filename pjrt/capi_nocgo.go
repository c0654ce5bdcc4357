//go:build !cgo

package pjrt

// Without cgo no plugin can be loaded: loadAPI fails with ErrCgoUnavailable,
// so no *capi ever exists and the methods below are never reached.

import (
	"unsafe"

	"github.com/openpathways/pathways/ifrt"
)

const haveCgo = false

// capi is a loaded plugin's function table (never created without cgo).
type capi struct {
	structSize uintptr
	major      int
	minor      int
	has        [numFns]bool
}

func loadAPI(string) (*capi, error) { return nil, ErrCgoUnavailable }

func cNoop() {}

func signalSnapshot(n int) ([]uintptr, []int) { return make([]uintptr, n), make([]int, n) }

func (a *capi) initialize() error {
	return ErrCgoUnavailable
}

func (a *capi) attributes() (map[string]any, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) extensionTypes() []int {
	return nil
}

func (a *capi) createClient(opts []namedValue, kv *kvBridge) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) destroyClient(c unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) clientStrings(c unsafe.Pointer) (name, version string, process int, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) clientList(c unsafe.Pointer, which int) ([]unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) defaultDeviceAssignment(c unsafe.Pointer, replicas, partitions int) ([]int, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) deviceInfo(d unsafe.Pointer) (deviceInfo, error) {
	return deviceInfo{}, ErrCgoUnavailable
}

func (a *capi) deviceMemories(d unsafe.Pointer) (mems []unsafe.Pointer, def unsafe.Pointer, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) memoryInfo(m unsafe.Pointer) (memoryInfo, error) {
	return memoryInfo{}, ErrCgoUnavailable
}

func (a *capi) compile(c unsafe.Pointer, program []byte, format string, opts []byte) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) deserializeAndLoad(c unsafe.Pointer, data []byte) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) getExecutable(le unsafe.Pointer) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) destroyLoaded(le unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) destroyExecutable(e unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) loadedDevices(le unsafe.Pointer) ([]unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) executableName(e unsafe.Pointer) (string, error) {
	return "", ErrCgoUnavailable
}

func (a *capi) executableFingerprint(e unsafe.Pointer) (string, error) {
	return "", ErrCgoUnavailable
}

func (a *capi) executableCount(e unsafe.Pointer, which int) (int64, error) {
	return 0, ErrCgoUnavailable
}

func (a *capi) outputTypes(e unsafe.Pointer) ([]BufferType, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) outputDims(e unsafe.Pointer, numOutputs int) ([][]int64, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) memoryKinds(e unsafe.Pointer, which, n int) ([]string, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) costAnalysis(e unsafe.Pointer) (map[string]any, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) compiledMemoryStats(e unsafe.Pointer) (ifrt.CompiledMemoryStats, error) {
	return ifrt.CompiledMemoryStats{}, ErrCgoUnavailable
}

func (a *capi) optimizedProgram(e unsafe.Pointer) (string, []byte, error) {
	return "", nil, ErrCgoUnavailable
}

func (a *capi) serialize(e unsafe.Pointer) ([]byte, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) compileOptions(e unsafe.Pointer) ([]byte, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) deviceAssignment(le unsafe.Pointer) ([]byte, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) shardings(e unsafe.Pointer, which int) (out [][]byte, ok bool, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) execute(le unsafe.Pointer, args []unsafe.Pointer, numDevices, numArgs, numOutputs int, device unsafe.Pointer, nonDonatable []int64, launchID int, wantEvents bool) (outs, events []unsafe.Pointer, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) bufferFromHost(c unsafe.Pointer, data unsafe.Pointer, t BufferType, dims, strides []int64, sem HostBufferSemantics, dev, mem unsafe.Pointer, keepDone bool) (buf, done unsafe.Pointer, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) destroyBuffer(b unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) deleteBuffer(b unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) bufferInfo(b unsafe.Pointer) (bufferInfo, error) {
	return bufferInfo{}, ErrCgoUnavailable
}

func (a *capi) bufferIsDeleted(b unsafe.Pointer) (bool, error) {
	return false, ErrCgoUnavailable
}

func (a *capi) bufferReadyEvent(b unsafe.Pointer) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) bufferHostSize(b unsafe.Pointer) (int64, error) {
	return 0, ErrCgoUnavailable
}

func (a *capi) bufferToHost(b unsafe.Pointer, dst unsafe.Pointer, n int, wait bool) (event unsafe.Pointer, err error) {
	err = ErrCgoUnavailable
	return
}

func (a *capi) bufferCopyToDevice(b, dev unsafe.Pointer) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) bufferCopyToMemory(b, mem unsafe.Pointer) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) destroyEvent(e unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) awaitEvent(e unsafe.Pointer) error {
	return ErrCgoUnavailable
}

func (a *capi) onReady(e unsafe.Pointer, st *eventState) error {
	return ErrCgoUnavailable
}

func (a *capi) logicalIDs(le unsafe.Pointer) ([][2]int, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) createTopology(name string, opts []namedValue) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) destroyTopology(t unsafe.Pointer) error { return ErrCgoUnavailable }

func (a *capi) topologyInfo(t unsafe.Pointer) (name, version string, devices []deviceInfo, err error) {
	return "", "", nil, ErrCgoUnavailable
}

func (a *capi) compileForTopology(t, client unsafe.Pointer, program []byte, format string, opts []byte) (unsafe.Pointer, error) {
	return nil, ErrCgoUnavailable
}

func (a *capi) registerFFI(int, string, string) error { return ErrCgoUnavailable }
