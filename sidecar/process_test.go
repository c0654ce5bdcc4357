package sidecar_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/sidecar"
)

// TestPythonSuite runs the sidecar's own unittest suite (sidecar/python).
func TestPythonSuite(t *testing.T) { forEachJAX(t, testPythonSuite) }

func testPythonSuite(t *testing.T, py string) {
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_sidecar")
	cmd.Dir = filepath.Join(testenv.ModuleRoot(), "sidecar", "python")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python -m unittest test_sidecar: %v\n%s", err, out)
	}
	t.Logf("%s", lastLine(string(out)))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func pickles(t *testing.T, py string) map[string][]byte {
	t.Helper()
	out, err := exec.Command(py, filepath.Join("testdata", "make_pickles.py")).Output()
	if err != nil {
		t.Fatalf("make_pickles.py: %v", err)
	}
	var enc map[string]string
	if err := json.Unmarshal(out, &enc); err != nil {
		t.Fatal(err)
	}
	res := map[string][]byte{}
	for k, v := range enc {
		if res[k], err = base64.StdEncoding.DecodeString(v); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func f32(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

var vec4 = sidecar.Tensor{DType: ifrt.F32, Shape: ifrt.Shape{4}}

func in4(vs ...float32) []sidecar.Tensor {
	return []sidecar.Tensor{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Data: f32(vs...)}}
}

// TestProcess runs functions in a real sidecar: a result, the user's
// exception with its type and message, and the sidecar killed in the middle
// of a call: DATA_LOSS for that call, and the next call runs in the restarted
// sidecar, which loads the function again.
func TestProcess(t *testing.T) { forEachJAX(t, testProcess) }

func testProcess(t *testing.T, py string) {
	progs := pickles(t, py)
	mark := filepath.Join(t.TempDir(), "started")
	p := startSidecar(t, py, "SIDECAR_TEST_MARK="+mark)
	ctx := ctxT(t)
	if v := p.Versions(); v.Protocol != sidecar.ProtocolVersion || v.Cloudpickle == "" || v.JAX == "" {
		t.Errorf("versions = %+v", v)
	}

	out, err := p.Call(ctx, "s", 1, progs["add_one"], 0, in4(1, 2, 3, 4), []sidecar.Tensor{vec4})
	if err != nil {
		t.Fatal(err)
	}
	if string(out[0]) != string(f32(2, 3, 4, 5)) {
		t.Errorf("add_one = %v, want 2 3 4 5", out[0])
	}

	_, err = p.Call(ctx, "s", 2, progs["fail"], 0, in4(0, 0, 0, 0), []sidecar.Tensor{vec4})
	var ue *sidecar.UserError
	if !errors.As(err, &ue) || ue.Type != "ValueError" || ue.Message != "no good: (4,)" || ifrt.CodeOf(err) != ifrt.Unknown {
		t.Errorf("fail: got %v (%T), want UNKNOWN ValueError: no good: (4,)", err, err)
	}

	if _, err := p.Call(ctx, "s", 1, progs["add_one"], 0, in4(1, 2, 3), []sidecar.Tensor{vec4}); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("short input: got %v, want INVALID_ARGUMENT", err)
	}

	pid := p.PID()
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(ctx, "s", 3, progs["slow"], 0, in4(0, 0, 0, 0), []sidecar.Tensor{vec4})
		done <- err
	}()
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("slow returned before it was killed: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("the call in flight when the sidecar died: got %v, want DATA_LOSS", err)
	}
	out, err = p.Call(ctx, "s", 1, progs["add_one"], 0, in4(5, 6, 7, 8), []sidecar.Tensor{vec4})
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if string(out[0]) != string(f32(6, 7, 8, 9)) {
		t.Errorf("add_one after the restart = %v, want 6 7 8 9", out[0])
	}
	if p.PID() == pid || p.PID() == 0 {
		t.Errorf("pid %d after the restart, %d before", p.PID(), pid)
	}
}

func TestStartFails(t *testing.T) {
	ctx := ctxT(t)
	if _, err := sidecar.Start(ctx, sidecar.Config{}); ifrt.CodeOf(err) != ifrt.InvalidArgument {
		t.Errorf("no command: got %v, want INVALID_ARGUMENT", err)
	}
	_, err := sidecar.Start(ctx, sidecar.Config{Command: []string{"false"}})
	if ifrt.CodeOf(err) != ifrt.Unavailable {
		t.Errorf("a command that exits: got %v, want UNAVAILABLE", err)
	}
}
