package proxyserver_test

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// TestProgramTextAndAnalyses compiles a JAX program (bytecode) through the
// proxy on each CPU plugin and asks for what compiled.as_text(),
// compiled.cost_analysis() and compiled.memory_analysis() show: the compiled
// HLO, and the plugin's estimates (or, where the plugin makes none, the
// interpreter's estimate of the module).
func TestProgramTextAndAnalyses(t *testing.T) {
	module, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(), "pjrt", "pjrtifrt", "testdata", "mul_add.mlirbc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		plugin, env string
		costs       bool // the plugin implements PJRT_Executable_GetCostAnalysis
	}{
		{"cpu.so", "PATHWAYS_PJRT_CPU_PLUGIN", true},
		{"lammps_cpu.so", "PATHWAYS_PJRT_LAMMPS_PLUGIN", false},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			path := os.Getenv(tc.env)
			if path == "" {
				path = filepath.Join(testenv.ModuleRoot(), ".plugins", tc.plugin)
			}
			if _, err := os.Stat(path); err != nil {
				testenv.Missing(t, testenv.RequirePluginsVar, "PJRT CPU plugin not found at "+path+" (set "+tc.env+" or run scripts/setup_plugins.sh)")
			}
			ctx := ctxT(t)
			backend, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: 1})
			if errors.Is(err, pjrt.ErrCgoUnavailable) {
				t.Skip("built without cgo")
			}
			if err != nil {
				t.Fatal(err)
			}
			defer backend.Close()
			client := dialServer(t, proxyserver.Config{Backend: backend})
			exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: module}, &ifrt.CompileOptions{Devices: client.AddressableDevices()[:1]})
			if err != nil {
				t.Fatal(err)
			}
			text, err := exe.(ifrt.ProgramTexter).ProgramText()
			if err != nil || !strings.HasPrefix(text, "HloModule ") || !strings.Contains(text, "ENTRY ") || !strings.Contains(text, "multiply(") {
				t.Errorf("ProgramText() = %q, %v; want the compiled HLO", text, err)
			}
			// mul_add multiplies and adds 4 elements: 8 flops by the
			// interpreter's count.
			costs, err := exe.(ifrt.CostAnalyzer).CostAnalysis()
			t.Logf("CostAnalysis() = %v, %v", costs, err)
			switch {
			case err != nil || costs["flops"] == nil:
				t.Errorf("CostAnalysis() = %v, %v; want flops", costs, err)
			case !tc.costs && fmt.Sprint(costs["flops"]) != "8":
				t.Errorf("CostAnalysis() = %v; want the interpreter's 8 flops where the plugin makes no estimate", costs)
			}
			// mul_add takes two f32[4] and returns one.
			mem, err := exe.(ifrt.MemoryAnalyzer).CompiledMemoryStats()
			if err != nil || mem.ArgumentSizeInBytes != 32 || mem.OutputSizeInBytes != 16 {
				t.Errorf("CompiledMemoryStats() = %+v, %v; want the plugin's 32 argument and 16 output bytes", mem, err)
			}
		})
	}
}

// dialServer serves cfg on a loopback port and returns a proxy client of it.
func dialServer(t *testing.T, cfg proxyserver.Config) *proxy.Client {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv, err := proxyserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, err := proxy.Dial(ctxT(t), proxyservertest.Serve(t, srv), proxy.WithDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}
