// Package interop holds no code: its tests run the real JAX client (the pinned
// jax and jaxlib of every environment `make setup` makes) against proxy
// servers over each backend — gocpu, the PJRT CPU plugin, and in-process
// clusters of both — and compare what JAX sees with local CPU JAX. The scripts
// they run are in testdata/; the benchmarks beside them (TestDataplaneFigures,
// TestStepFigures, TestDataplaneMemory) run under `make bench`.
//
// They are a package of their own, apart from proxy/proxyserver's unit tests,
// because each starts Python processes: `go test ./proxy/proxyserver` stays
// quick, and the two run side by side under `go test ./...`. Without a JAX
// environment the tests skip, saying so; with PATHWAYS_REQUIRE_INTEROP=1 they
// fail instead.
package interop
