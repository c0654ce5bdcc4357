package cluster_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

const module = "github.com/openpathways/pathways"

// serverSide are the packages the cluster client must neither import nor link,
// with the reason: a program that only connects to a cluster stays small.
var serverSide = map[string]string{
	module + "/worker":             "the worker server (the client speaks worker/workerpb and proxy)",
	module + "/proxy/proxyserver":  "the IFRT Proxy server",
	module + "/ifrt/gocpu":         "a backend: the client holds no arrays itself",
	module + "/internal/stablehlo": "the StableHLO interpreter",
	module + "/internal/mlirbc":    "the interpreter's bytecode reader",
	module + "/pjrt":               "the cgo PJRT loader",
	module + "/cluster/local":      "the in-process cluster",
	"cloud.google.com/go/storage":  "the GCS SDK",
}

// TestDeps keeps package cluster a client: no server, no backend, no cgo.
func TestDeps(t *testing.T) { testenv.CheckDeps(t, ".", serverSide) }

// TestConnectLinksNoServer builds a program that only calls Connect and looks
// at its symbols: package rm holds the resource manager's server next to its
// client, and the server must not be linked with the client.
func TestConnectLinksNoServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "connectonly")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/connectonly").CombinedOutput(); err != nil {
		t.Skipf("go build is not available: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	server := []string{module + "/rm.(*Server).", module + "/rm.(*service).", module + "/rm.New."}
	for bad := range serverSide {
		server = append(server, bad+".")
	}
	found := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		sym := fields[len(fields)-1] + "."
		for _, bad := range server {
			if strings.HasPrefix(sym, bad) {
				found[bad]++
			}
		}
	}
	for bad, n := range found {
		t.Errorf("a program that only calls Connect links %d symbols of %s", n, bad)
	}
}
