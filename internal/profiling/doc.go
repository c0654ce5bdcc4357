// Package profiling records what a server does while a trace is taken
// (jax.profiler.start_trace through the proxy: the profileRequest plugin
// program of package proxyserver) and writes the traces of several hosts as
// one Chrome trace-event JSON file, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open.
//
// A Recorder belongs to one server: the proxy server has one, and each
// worker one, shared by its IFRT Proxy server, its gang and peer services and
// its Profiler service (worker/workerpb), which the cluster client drives
// (Hosts). Start begins a Trace, Record adds events while one is taken (a
// single atomic load otherwise), and Trace.Stop ends it and returns its
// events. Encode merges the hosts' traces: one process per host, one thread
// per session or service, timestamps on a common time line.
//
// A Recorder is safe for concurrent use; its zero value is ready, and a nil
// *Recorder records nothing. One trace at a time per Recorder: Start fails
// with FAILED_PRECONDITION while another is taken.
package profiling
