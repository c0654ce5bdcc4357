// Package rm is the OpenPathways resource manager (RM): it knows which slices
// the cluster should have, which workers hold which hosts of them, whether
// each worker is alive, and the global id of every device. Workers register
// with it and keep a heartbeat stream open; the Pathways client watches it to
// learn the cluster's devices and when slices go down or come back.
//
// The protocol is in package rmpb (openpathways.rm.v1.ResourceManager). This
// package holds the server, a client for workers and for the Pathways
// client, and the instance-type parser.
//
// # Usage
//
// The server, as examples/server runs it with --node_type=resource_manager:
//
//	srv, err := rm.New(rm.Config{InstanceType: "tpuv5e:4x4", InstanceCount: 2})
//	if err != nil { ... }
//	go srv.ListenAndServe(":29001")
//	<-srv.Ready() // every slice is up
//	...
//	srv.Shutdown(ctx)
//
// Or mounted on a grpc.Server the application owns, next to other services:
//
//	srv.Register(grpcServer) // call srv.Shutdown before grpcServer.GracefulStop
//
// A worker:
//
//	c, err := rm.NewClient("grpc://rm-host:29001")
//	reg, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{
//		Slice: sliceID, Host: hostIndex, Address: "10.0.0.7:29005",
//		Platform: "tpu", Devices: localDevices,
//	})
//	ids := reg.Assignment().DeviceIDs // global ids of the local devices
//
// The Pathways client:
//
//	for ev, err := range c.Watch(ctx) {
//		// ev.Type == rm.EventSnapshot: replace the view with ev.Cluster;
//		// otherwise apply the change (worker joined or lost, slice up or down).
//	}
//
// # Instance types and device ids
//
// Config.InstanceType is "<kind>:<topology>" as Pathways' --instance_type:
// tpuv4, tpuv5 (v5p), tpuv5e, tpuv5e1t, tpuv6e, tpuv6e1t, tpu7x; cpu for
// slices of one host with N CPU devices (cpu:4, cpu:2x2) or of H hosts of N
// devices each (cpu:2hx4: 2 hosts of 4 devices); or gpu for slices of one
// host with N GPUs on the CUDA plugin (gpu:8, platform "cuda").
// ParseInstanceType documents hosts per slice and chips per host for each
// kind, with sources.
//
// Device ids are a pure function of where a device sits:
//
//	id = slice*DevicesPerSlice + host*DevicesPerHost + local
//
// where local is the device's position in the worker's registration. A
// worker that registers again after it or the RM restarted therefore gets
// the same ids, and ids are known (Cluster lists every device) before any
// worker registered.
//
// # Membership and health
//
// A slice is up when a live worker holds each of its hosts. A worker is live
// from its registration until it is lost: at once when its heartbeat stream
// ends (the process died, the connection broke, or the worker left by
// closing the stream), or when no heartbeat arrived within
// Config.HeartbeatTimeout (default 5s; workers send one every quarter of it),
// which catches hung workers and silent network partitions. A lost worker's
// devices stay in the view, state StateLost, with their ids.
//
// A registration for a host that a live worker holds is accepted when it
// comes from the same incarnation (the same process asking again) or from the
// same address (a new run of that worker, which replaces the old one: the old
// one is reported lost). Otherwise it is refused with ALREADY_EXISTS until
// the holder is lost. A worker that rejoins with its old incarnation is the
// same process and kept its state; a new incarnation means it did not.
//
// The RM keeps no state across its own restarts: workers (through
// Registration) register again on their own, and watchers (through
// Client.Watch) reconnect and receive a fresh snapshot; Cluster.RMIncarnation
// tells one run of the RM from the next.
//
// # Gang scheduling and coordination
//
// Besides membership the RM serves the gang scheduler (Client.Sequence): one
// sequence number per worker for each launch of a program spanning workers,
// handed out atomically, so that launches whose workers overlap start in one
// order on all of them; and a small key-value store (Client.KeyValue) with a
// blocking Get, scoped by launch group, through which the processes of a
// multi-process runtime exchange what they need before they can talk (PJRT's
// kv callbacks). Neither survives a restart of the RM: sequence numbers start
// again (with a new incarnation) and the store starts empty.
//
// # Suspend and resume
//
// Each slice has a SliceState, in Cluster.Slices and in EventSliceState
// events. SuspendSlice (Server or Client; the SliceControl service) moves an
// up slice to SliceSuspending; its workers, which follow the state through
// their own watch, save their arrays to the scratch location, free their
// devices and report (Registration.ReportSliceState); once every host has,
// the slice is SliceSuspended. ResumeSlice moves it to SliceResuming, and to
// SliceActive once every host has a live worker that reported it took its
// arrays back; a slice suspended with SuspendOptions.AutoResume (by a
// preempted worker) resumes on its own once a replacement makes every host
// live again. A worker lost mid-suspend makes its host unsaved
// (Slice.UnsavedHosts) and SuspendSlice DATA_LOSS rather than a hang; a
// worker that cannot save (no scratch location) fails the suspension and the
// slice goes back to active. See docs/cluster.md.
//
// # Errors
//
// Errors are *ifrt.Error values whose code is the gRPC code on the wire
// (internal/rpc's codec, the one every server and client of the module uses),
// so errors.Is(err, ifrt.ErrAlreadyExists) works on both sides:
//
//   - INVALID_ARGUMENT: a malformed registration (empty address or
//     incarnation, coordinates outside the topology, bad memory kinds), a bad
//     Config or instance type;
//   - OUT_OF_RANGE: a slice index not below Config.InstanceCount, or a host
//     index not below the hosts per slice;
//   - FAILED_PRECONDITION: topology mismatch, a worker whose device count is
//     not the instance type's devices per host;
//   - ALREADY_EXISTS: another live worker holds the host;
//   - UNAUTHENTICATED: a call without the cluster's credentials
//     (Config.Security; see Security);
//   - RESOURCE_EXHAUSTED: Host: AnyHost and every host of the slice is live;
//     also a watcher that fell too far behind (Client.Watch reconnects), and a
//     Watch past Config.MaxWatchers;
//   - NOT_FOUND, ABORTED, DEADLINE_EXCEEDED end a heartbeat stream whose
//     lease is unknown, replaced or expired (Registration registers again);
//   - UNAVAILABLE: the RM is shutting down or unreachable.
//
// # Concurrency
//
// Server, Client and Registration are safe for concurrent use by multiple
// goroutines.
//
// # Lifetimes
//
// New validates its Config and starts nothing. The RM shares its lifecycle
// with the worker and the proxy server: Serve runs until Shutdown (graceful:
// heartbeat and watch streams end with UNAVAILABLE, other calls finish; Serve
// returns nil; if Shutdown's context ends first the rest is cut off and its
// error returned) or Close (immediate; Serve returns ErrServerClosed). Serve
// called after either returns ErrServerClosed at once. Both are idempotent.
// ErrServerClosed is the same value as worker.ErrServerClosed and
// proxyserver.ErrServerClosed. A panic in a handler fails that call with
// INTERNAL (logged at Error with its stack); the RM goes on. Stopping the RM
// does not mark workers lost; its state simply ends with it.
//
// A Registration lives until its context ends, Registration.Close or
// Client.Close; each makes the worker leave (close its heartbeat stream), so
// the RM reports it lost at once. Registration.Done and Err report a
// registration that ended on its own (a permanent error after an RM restart,
// for example a changed instance type). Client.Watch's stream lives until the
// loop over it stops or its context ends.
//
// # Observability
//
// Logs go to Config.Logger and the client's WithLogger (default
// slog.Default()), with a "component" attribute of "rm" or "rm-client".
// Routine events (a worker joined, a refused registration, stream attach) are
// Debug; serving, stopping, a slice up, all slices up, re-registrations and a
// watching client regaining the RM are Info; a worker lost, a slice down,
// failed registration attempts and a watching client losing the RM are Warn;
// a registration that ended for good is Error. Nothing is logged per
// heartbeat. Serve also serves the standard gRPC health service.
package rm
