// Package backend is what every implementation of ifrt.Client shares: the
// bookkeeping and the checks that must not differ from one backend to the
// next. gocpu, pjrtifrt, the proxy client, the cluster client and the proxy
// server use it; a new backend should too.
//
// It holds:
//
//   - Objects, the set of a client's live arrays or executables: Add
//     registers, Remove unregisters, Drain (from Close) empties it for good,
//     Live counts it for leak tests; Lifetime pairs two of them with the
//     client's closed state (CheckOpen, Close, Live).
//   - Own, the ownership check: an argument is an array of this client and
//     not deleted.
//   - Donate and Donated, donation: the inputs an operation consumes are
//     deleted, and an execution reports which it donated
//     (ifrt.ExecuteResult.Donated). Derive runs an operation that makes one
//     array per result spec (copy, reshard, remap, assemble): it builds
//     each array's shards, frees them all if one build fails, and donates.
//   - Shards, an array's per-device storage (bytes, device buffers) until
//     the array is deleted: Read lends it, Take deletes the array and hands
//     the shards over to be freed.
//   - One check per operation (CheckReshard, CheckAssemble, CheckCopy,
//     CheckRemap, CheckFullyReplicated, CheckExecute), together with what
//     ifrt already checks (ArraySpec.Validate, CheckHostBuffer,
//     CheckArguments); Checker runs them for a client, in one order, with
//     the client's own spec check.
//   - Shard-domain helpers: UniqueDomains, Intersect, Shift.
//   - Future, a value that is computed later; Described, the spec accessors
//     an array type embeds; DescribedExecutable, the accessors and deleted
//     flag of an executable whose array specs are its signature (a custom
//     call such as colocated Python).
//
// # Usage
//
// A backend makes one Checker and calls it first in every operation, then
// moves the data, then retires donated inputs:
//
//	c.check = backend.Checker[*array]{Name: "mybackend", Open: c.checkOpen, Owns: c.owns, Spec: c.checkSpec}
//
//	func (c *Client) Reshard(ctx context.Context, xs []ifrt.Array, specs []ifrt.ArraySpec, sem ifrt.CopySemantics) ([]ifrt.Array, error) {
//		arrays, err := c.check.Reshard(xs, specs)
//		if err != nil {
//			return nil, err
//		}
//		return backend.Derive(arrays, specs, sem, func(i int) ([]myShard, error) {
//			return ... // the backend's own work: array i's shards
//		}, freeShards, c.newArray)
//	}
//
// # Error codes
//
// Each condition has one code, whichever backend meets it, and the
// conformance suite (ifrt/ifrttest) asserts it:
//
//	condition                                               code
//	an array of another client (or nil)                     INVALID_ARGUMENT
//	a deleted or donated array                              INVALID_ARGUMENT (ErrArrayDeleted)
//	a deleted executable                                    INVALID_ARGUMENT (ErrExecutableDeleted)
//	any call on a closed client                             FAILED_PRECONDITION (ErrClientClosed)
//	a malformed spec (dtype, shape, sharding)               INVALID_ARGUMENT
//	a device that is not the client's (CheckSharding)       INVALID_ARGUMENT
//	a host buffer of the wrong size or strides              INVALID_ARGUMENT
//	Reshard: counts differ, or dtype or shape changes       INVALID_ARGUMENT
//	AssembleArray: a part of the wrong count, device,       INVALID_ARGUMENT
//	  dtype or shape
//	CopyArrays: another number of devices, a missing kind   INVALID_ARGUMENT
//	Remap: inputs that are not the plan's, a bad plan       INVALID_ARGUMENT
//	FullyReplicatedShard of an array that is not            FAILED_PRECONDITION
//	  fully replicated
//	Execute: wrong argument count, dtype or shape           INVALID_ARGUMENT
//	Execute: a donated argument passed at another position  INVALID_ARGUMENT
//	Execute: an argument on a device the program does       INVALID_ARGUMENT
//	  not run on
//	Compile of a kind of program the backend does not know  UNIMPLEMENTED
//	what the backend cannot do (layouts, string arrays)     UNIMPLEMENTED
//
// # Concurrency
//
// Objects, Shards and Future are safe for concurrent use; the checks are pure
// functions. Like ifrt, the package imports only the standard library.
package backend
