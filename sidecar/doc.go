// Package sidecar runs user Python next to a host's devices:
// jax.experimental.colocated_python functions, executed by a sidecar process
// (sidecar/python/pathways_sidecar.py) that the worker starts and supervises.
//
// # Usage
//
// A worker starts the sidecar and wraps its backend:
//
//	proc, err := sidecar.Start(ctx, sidecar.Config{Command: []string{"python3", "sidecar/python/pathways_sidecar.py"}})
//	host, err := sidecar.NewClient(backend, sidecar.ClientConfig{Process: proc, ColocationID: 7})
//
// The Client lists the backend's devices and, after them, the host's CPU
// device (kind "cpu", NonPrimary, so JAX leaves it out of jax.devices()); all of
// them carry the host's colocation_id, which is how JAX's
// colocated_cpu_devices pairs them. Arrays on the CPU device live in host
// memory (a one-device gocpu client); copies between it and the backend's
// devices go through host memory on this host. A colocated Python program
// (ifrt.CustomCallProgram of type ifrt.ColocatedPythonType) compiles for the
// CPU device; executing it sends its arguments' bytes to the sidecar through
// shared-memory files, runs the unpickled function there and makes its outputs
// on the CPU device. Everything else goes to the backend.
//
// Colocated state (loaded functions, results, colocated objects) is kept per
// client session: by the session key of each call's context
// (ifrt.SessionKey, which proxy servers set) and by session view
// (Client.Session). Client.EndSession (ifrt.EndSession) frees a key's state,
// a view's Close all of the view's.
//
// The sidecar and the worker speak the protocol described at ProtocolVersion.
// The function is unpickled by the sidecar's Python, which must have the
// client's JAX and cloudpickle versions (Process.Versions says which it has).
//
// # Errors
//
// An exception raised by the user's function fails the execution with
// UNKNOWN and a message naming the function, the exception's type and its
// message. When the sidecar dies, the executions in flight fail with
// DATA_LOSS; the Process starts it again, and the next execution loads its
// function anew (what the old process held, such as colocated objects, is
// gone).
//
// # Concurrency and lifetimes
//
// Process and Client are safe for concurrent use; the sidecar serves one
// request at a time. Close of a Client's session view ends that session in
// the sidecar; Close of the Client from NewClient also frees the arrays on the
// CPU device; neither closes the backend or the Process, whose own Close stops
// the sidecar.
package sidecar
