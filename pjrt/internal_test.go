package pjrt

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
)

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		size         uintptr
		major, minor int
		wantErr      string // substring of the message naming the version; "" for success
	}{
		{984, 0, 81, ""},
		{1144, 0, 115, ""},
		{1144, 0, 57, ""},
		{900, 0, 56, "0.56"},
		{900, 0, 29, "0.29"},
		{1144, 1, 0, "1.0"},
		{64, 0, 81, "too short"},
	}
	for _, tc := range tests {
		err := checkVersion(tc.size, tc.major, tc.minor)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("checkVersion(%d, %d.%d) = %v", tc.size, tc.major, tc.minor, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("checkVersion(%d, %d.%d) = %v, want ErrUnsupportedVersion naming %q", tc.size, tc.major, tc.minor, err, tc.wantErr)
		}
	}
}

// buildFakePlugin compiles testdata/fakeplugin.c into a shared library;
// defines are more -D flags.
func buildFakePlugin(t *testing.T, minor int, last string, defines ...string) string {
	t.Helper()
	if !haveCgo {
		t.Skip("needs cgo")
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build the fake plugin", cc)
	}
	out := filepath.Join(t.TempDir(), "fake.so")
	args := []string{"-shared", "-fPIC", "-O1", "-I.", "-o", out, "-DFAKE_MINOR=" + itoa(minor), "-DFAKE_LAST=" + last}
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	cmd := exec.Command(cc, append(args, "testdata/fakeplugin.c")...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building fake plugin: %v\n%s", err, b)
	}
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestFakePluginTooOld(t *testing.T) {
	path := buildFakePlugin(t, 50, "PJRT_Executable_OutputDimensions")
	_, err := Load(path)
	if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "0.50") {
		t.Fatalf("Load(0.50 plugin) = %v, want ErrUnsupportedVersion naming 0.50", err)
	}
	t.Logf("refused: %v", err)
}

func TestFakePluginShortTable(t *testing.T) {
	// A 0.60 plugin whose table ends at PJRT_Client_Destroy (slot 11).
	path := buildFakePlugin(t, 60, "PJRT_Client_Destroy")
	p, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if major, minor := p.Version(); major != 0 || minor != 60 || p.TableSize() != 40+12*8 {
		t.Errorf("Version %d.%d table %d", major, minor, p.TableSize())
	}
	want := map[string]any{"fake_name": "fake", "stablehlo_current_version": []int64{1, 2, 3}}
	if diff := cmp.Diff(want, p.Attributes()); diff != "" {
		t.Errorf("Attributes diff (-want +got):\n%s", diff)
	}
	// Slots past the table's end are never called.
	for _, fn := range []string{"PJRT_Client_Compile", "PJRT_Executable_GetCompileOptions", "PJRT_Buffer_ToHostBuffer"} {
		if p.Has(fn) {
			t.Errorf("Has(%s) = true beyond the table's end", fn)
		}
	}
	// Inside the table but NULL.
	if p.Has("PJRT_Event_Await") {
		t.Error("Has(PJRT_Event_Await) = true for a NULL slot")
	}
	err = p.api.need(fnExecutableGetCompileOptions)
	var perr *Error
	if !errors.As(err, &perr) || perr.Code != ifrt.Unimplemented || !strings.Contains(perr.Msg, "0.87") || !strings.Contains(perr.Msg, "0.60") {
		t.Errorf("need(PJRT_Executable_GetCompileOptions) = %v, want UNIMPLEMENTED naming 0.87 and 0.60", err)
	}
	// The plugin's own error, code and message, through Client_Create.
	_, err = p.NewClient(context.Background(), nil)
	if !errors.As(err, &perr) || perr.Code != ifrt.FailedPrecondition || perr.Msg != "fake plugin: no devices here" {
		t.Errorf("NewClient = %v, want FAILED_PRECONDITION from the plugin", err)
	}
	if !errors.Is(err, ifrt.ErrFailedPrecondition) || ifrt.CodeOf(err) != ifrt.FailedPrecondition {
		t.Errorf("errors.Is/ifrt.CodeOf do not see FAILED_PRECONDITION in %v", err)
	}
	if LiveClients() != 0 {
		t.Errorf("LiveClients = %d after a failed create", LiveClients())
	}
}

func TestCompileOptionsMarshal(t *testing.T) {
	tests := []struct {
		opts CompileOptions
		want string
	}{
		// executable_build_options {device_ordinal: -1 num_replicas: 1 num_partitions: 1}
		{CompileOptions{}, "1a0f08ffffffffffffffffff0120012801"},
		// ... + compile_portable_executable: true
		{CompileOptions{Portable: true}, "1a0f08ffffffffffffffffff01200128012001"},
		// num_partitions 2, use_spmd, device_assignment {replica_count 1 computation_count 2
		// computation_devices {replica_device_ids [0]} computation_devices {replica_device_ids [1]}}, shardy
		{CompileOptions{NumPartitions: 2, UseSPMDPartitioning: true, UseShardyPartitioner: true, DeviceAssignment: [][]int{{0, 1}}},
			"1a2408ffffffffffffffffff012001280230014a0e08011002" + "1a030a0100" + "1a030a0101" + "9801" + "01"},
	}
	for _, tc := range tests {
		if got := hex.EncodeToString(tc.opts.Marshal()); got != tc.want {
			t.Errorf("%+v.Marshal() = %s, want %s", tc.opts, got, tc.want)
		}
	}
}

func TestBufferTypes(t *testing.T) {
	for _, c := range []struct {
		t     BufferType
		name  string
		bytes int
	}{{PRED, "pred", 1}, {S8, "s8", 1}, {BF16, "bf16", 2}, {F32, "f32", 4}, {C128, "c128", 16}, {S4, "s4", 1},
		{F6E3M2FN, "f6e3m2fn", 1}, {Token, "token", 0}, {InvalidType, "invalid", 0}, {BufferType(99), "BufferType(99)", 0}} {
		if c.t.String() != c.name || c.t.ByteSize() != c.bytes {
			t.Errorf("%d: %q %d bytes, want %q %d", int(c.t), c.t.String(), c.t.ByteSize(), c.name, c.bytes)
		}
	}
}

func TestErrors(t *testing.T) {
	err := error(&Error{Code: ifrt.NotFound, Msg: "no such device"})
	if !errors.Is(err, ifrt.ErrNotFound) || errors.Is(err, ifrt.ErrInternal) {
		t.Errorf("errors.Is on %v", err)
	}
	if got := err.Error(); got != "pjrt: NOT_FOUND: no such device" {
		t.Errorf("Error() = %q", got)
	}
	if wrapped := errors.Join(errors.New("context"), err); ifrt.CodeOf(wrapped) != ifrt.NotFound {
		t.Errorf("ifrt.CodeOf(%v) = %v", wrapped, ifrt.CodeOf(wrapped))
	}
}

func TestWithoutCgo(t *testing.T) {
	if haveCgo {
		t.Skip("built with cgo")
	}
	if _, err := Load("/nonexistent/plugin.so"); !errors.Is(err, ErrCgoUnavailable) {
		t.Errorf("Load without cgo = %v, want ErrCgoUnavailable", err)
	}
}
