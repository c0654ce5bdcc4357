#!/usr/bin/env bash
# Runs the benchmarks that report ratios measured in one run: the interpreter
# against plain Go loops, StableHLO bytecode reading against the text parser
# (BenchmarkParseBytecodeVsText), PJRT transfers against memcpy and cgo
# overhead, the proxy against direct calls, pjrtifrt against raw PJRT, the
# corpus's compile time on gocpu against the PJRT CPU plugin
# (BenchmarkCompileCorpus), the cluster's dispatch against one worker, a gang
# launch over W workers against one worker, a 64 KiB all-reduce across 2
# workers of 4 devices against one worker of 8, one on PJRT CPU workers (host
# round trips) against gocpu workers, a 64 MiB all-reduce across two
# worker processes (one a launch, and eight in one launch) and a 64 MiB copy
# from slice 0 to slice 1
# (BenchmarkCopyAcrossSlices64MiB) against memcpy, auto-sharded programs spanning
# two slices against one slice, on gocpu and on PJRT CPU workers
# (BenchmarkAutoShardedSpanning*), and checkpoint writes and reads by the
# workers against plain Go file I/O (BenchmarkPersist256MiB), and the real JAX
# client's tiny step and 64 MiB device_put/device_get through the proxy (over
# one PJRT CPU backend and over a one-worker cluster) against local CPU JAX and
# np.copy in the same process, with client and server CPU per transfer
# (TestDataplaneFigures), the proxy's memory during a 1 GiB put, get and delete
# (TestDataplaneMemory), and the tiny step's added cost through the cluster
# against a proxy straight over one backend, with 4 JAX clients on 4 slices
# together against each alone (TestStepFigures).
#
#   scripts/bench.sh            all of them
#   BENCHTIME=5x scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-1s}
for pkg in ./internal/stablehlo ./pjrt ./pjrt/pjrtifrt ./proxy; do
  go test -run '^$' -bench . -benchtime "$benchtime" "$pkg"
done
go test -run '^$' -bench 'BenchmarkDispatch|BenchmarkGangLaunch|BenchmarkGangOnPJRT|BenchmarkGangAllReduce64KiB' -benchtime 100x ./cluster
# Best of 20: the first copies run on fresh memory (0.13 of memcpy at 5, 0.44 at 20).
go test -run '^$' -bench 'BenchmarkGangAllReduce64MiB|BenchmarkCopyAcrossSlices64MiB' -benchtime 20x ./cluster
go test -run '^$' -bench 'BenchmarkAutoShardedSpanning' -benchtime 10x ./cluster
go test -run '^$' -bench BenchmarkPersist256MiB -benchtime 3x ./cluster
go test -count=1 -run TestGangAllReduceAcrossProcesses -v ./examples/e2e | grep -E 'all-reduce|^(ok|FAIL|---)'
PATHWAYS_BENCH=1 go test -count=1 -run 'TestDataplaneFigures|TestDataplaneMemory' -v ./proxy/proxyserver/interop | grep -E 'tiny step|per 64 MiB|array size|^(ok|FAIL|---)'
PATHWAYS_BENCH=1 go test -count=1 -run TestStepFigures -v ./proxy/proxyserver/interop | grep -E 'tiny step|concurrent clients|CPU per step|^(ok|FAIL|---)'
