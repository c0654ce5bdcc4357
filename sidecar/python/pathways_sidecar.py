"""The OpenPathways sidecar: runs colocated Python next to a worker.

A worker starts one sidecar per host (see docs/sidecar.md) and talks to it over a
Unix socket with protocol PROTOCOL_VERSION, described in sidecar/protocol.go.
The sidecar unpickles the functions that jax.experimental.colocated_python ships
(cloudpickle, through JAX's own colocated_python serialization, so this Python
must have the client's JAX and cloudpickle versions) and runs them on the
host's shards, which arrive as files in shared memory (tmpfs).

Usage: python pathways_sidecar.py --socket PATH [--devices N]

It serves one connection, one request at a time, and exits when the worker
closes the connection.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import socket
import struct
import sys
import traceback

PROTOCOL_VERSION = 2

# The most bytes of a header or payload frame; larger frames are refused.
MAX_FRAME = 1 << 30


def _parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--socket", required=True, help="the worker's Unix socket")
  p.add_argument(
      "--devices",
      type=int,
      default=8,
      help="local CPU devices that stand in for the CPU devices a program names",
  )
  return p.parse_args(argv)


class ProtocolError(Exception):
  """The worker sent something this sidecar cannot read."""


class Connection:
  """Frames on a stream socket: a 4-byte big-endian length, a JSON header, and
  the header's "payload" bytes after it when it says so."""

  def __init__(self, sock):
    self._sock = sock
    self._file = sock.makefile("rb")

  def _read_exact(self, n):
    data = self._file.read(n)
    if data is None or len(data) < n:
      raise EOFError
    return data

  def read(self):
    (n,) = struct.unpack(">I", self._read_exact(4))
    if n > MAX_FRAME:
      raise ProtocolError(f"header of {n} bytes is too large")
    header = json.loads(self._read_exact(n))
    if not isinstance(header, dict):
      raise ProtocolError("header is not a JSON object")
    payload = b""
    size = header.get("payload", 0)
    if not isinstance(size, int) or size < 0 or size > MAX_FRAME:
      raise ProtocolError(f"bad payload size {size!r}")
    if size:
      payload = self._read_exact(size)
    return header, payload

  def write(self, header):
    data = json.dumps(header).encode()
    self._sock.sendall(struct.pack(">I", len(data)) + data)


class Session:
  """What one client session holds: its loaded programs and the stores that
  colocated_python keeps in module globals (results of the first call, live
  objects), swapped in while the session's requests run."""

  def __init__(self, func_backend, obj_backend, stand_ins):
    self.programs = {}
    self.result_store = func_backend._ResultStore()
    self.object_store = obj_backend._ObjectStore()
    self.device_map = _DeviceMap(stand_ins)

  def stats(self):
    objects = getattr(self.object_store, "_storage", {})
    return {"programs": len(self.programs), "objects": len(objects)}


class _DeviceMap(dict):
  """Maps the client's CPU device ids, as pickled, to local stand-in devices:
  each new id takes the next free one."""

  def __init__(self, stand_ins):
    super().__init__()
    self._stand_ins = stand_ins
    self.client_ids = {}  # stand-in device id -> the client's device id

  def get(self, device_id, default=None):
    if device_id not in self:
      if len(self) == len(self._stand_ins):
        raise ValueError(
            f"the program names more than {len(self._stand_ins)} CPU devices;"
            " start the sidecar with a larger --devices"
        )
      self[device_id] = self._stand_ins[len(self)]
      self.client_ids[self[device_id].id] = device_id
    return self[device_id]


class Sidecar:

  def __init__(self, devices):
    os.environ["JAX_PLATFORMS"] = "cpu"
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = (
        f"{flags} --xla_force_host_platform_device_count={devices}".strip()
    )
    import jax  # pylint: disable=g-import-not-at-top
    import numpy as np  # pylint: disable=g-import-not-at-top
    from jax.experimental.colocated_python import func_backend  # pylint: disable=g-import-not-at-top
    from jax.experimental.colocated_python import obj_backend  # pylint: disable=g-import-not-at-top
    from jax.experimental.colocated_python import serialization  # pylint: disable=g-import-not-at-top
    from jax._src import tree_util  # pylint: disable=g-import-not-at-top

    self.jax, self.np, self.tree_util = jax, np, tree_util
    self.func_backend, self.obj_backend = func_backend, obj_backend
    self.serialization = serialization
    self.stand_ins = jax.devices("cpu")
    self.sessions = {}
    self.current = None
    # Unpickled device ids resolve through the current session's map, and
    # what the sidecar pickles (output specs found by a first call) names the
    # client's devices again.
    serialization._get_cpu_device_map = lambda: self.current.device_map
    for name in ("_reduce_mesh", "_reduce_device_list", "_reduce_single_device_sharding"):
      setattr(serialization, name, self._to_client_ids(getattr(serialization, name)))

  def _to_client_ids(self, reduce):
    """Wraps one of serialization's device reducers so that the device ids it
    writes are the client's rather than the stand-ins'."""
    raw = reduce.__wrapped__  # the reducer without its common-object wrapper
    np = self.np

    def client_id(i):
      return self.current.device_map.client_ids.get(int(i), int(i))

    def reduce_with_client_ids(obj):
      unreduce, args = raw(obj)
      ids = args[0]
      if isinstance(ids, np.ndarray):
        ids = np.vectorize(client_id, otypes=[int])(ids)
      elif isinstance(ids, (list, tuple)):
        ids = [client_id(i) for i in ids]
      else:
        ids = client_id(ids)
      return unreduce, (ids,) + tuple(args[1:])

    return self.serialization._make_reduce_func_with_common_obj(reduce_with_client_ids)

  def versions(self):
    import cloudpickle  # pylint: disable=g-import-not-at-top

    return {
        "protocol": PROTOCOL_VERSION,
        "python": ".".join(map(str, sys.version_info[:3])),
        "jax": self.jax.__version__,
        "jaxlib": __import__("jaxlib").__version__,
        "cloudpickle": cloudpickle.__version__,
        "numpy": self.np.__version__,
        "pid": os.getpid(),
    }

  def enter(self, session_id):
    s = self.sessions.get(session_id)
    if s is None:
      s = Session(self.func_backend, self.obj_backend, self.stand_ins)
      self.sessions[session_id] = s
    self.current = s
    self.func_backend.SINGLETON_RESULT_STORE = s.result_store
    self.obj_backend.SINGLETON_OBJECT_STORE = s.object_store
    return s

  def handle(self, header, payload):
    op = header.get("op")
    if op == "hello":
      return self.versions()
    if op == "end_session":
      self.sessions.pop(header.get("session", ""), None)
      return {}
    if op == "stats":
      return {"sessions": {k: s.stats() for k, s in self.sessions.items()}}
    session = self.enter(header.get("session", ""))
    if op == "load":
      fun, in_treedef, _, out_treedef, _, devices = (
          self.serialization._deserialize(payload)
      )
      session.programs[header["program"]] = (fun, in_treedef, out_treedef, list(devices))
      return {}
    if op == "unload":
      session.programs.pop(header["program"], None)
      return {}
    if op == "call":
      return self.call(session, header)
    raise ProtocolError(f"unknown op {op!r}")

  def call(self, session, header):
    np, jax = self.np, self.jax
    program = session.programs.get(header["program"])
    if program is None:
      raise ProtocolError(f"program {header['program']} is not loaded")
    fun, in_treedef, out_treedef, devices = program
    if len(devices) == 1:
      # The program's own device: what its results' shardings name.
      device = devices[0]
    else:
      device = session.device_map.get(header.get("device_id", 0))
      if any(w["dtype"] == "string" for w in header.get("outputs", [])):
        raise ValueError(
            "finding the output specs of a colocated Python function by a"
            f" first call works on one host's CPU device, not {len(devices)}:"
            " give it out_specs_fn (see docs/sidecar.md)"
        )
    leaves = []
    for spec in header.get("inputs", []):
      host = _read_shared(np, spec)
      leaves.append(jax.device_put(host, device))
    args, kwargs = self.tree_util.tree_unflatten(in_treedef, leaves)
    result = fun(*args, **kwargs)
    outs = out_treedef.flatten_up_to(result)
    wants = header.get("outputs", [])
    if len(outs) != len(wants):
      raise ValueError(
          f"the function returned {len(outs)} arrays, its output specs declare"
          f" {len(wants)}"
      )
    written = []
    for i, (out, want) in enumerate(zip(outs, wants)):
      value = np.asarray(out)
      if want["dtype"] == "string":
        dtype = np.dtypes.StringDType()
        same = value.dtype.kind == "T"
      else:
        dtype = jax.numpy.dtype(want["dtype"])
        same = value.dtype == dtype
      if not same or list(value.shape) != list(want["shape"]):
        raise ValueError(
            f"output {i} is {value.dtype}{list(value.shape)}, the output specs"
            f" declare {dtype}{list(want['shape'])} for this host's shard"
        )
      if want["dtype"] == "string":
        data = _string_array_contents(value)
        with open(want["path"], "wb") as f:
          f.write(data)
        written.append({"size": len(data)})
        continue
      _write_shared(np, want["path"], value)
      written.append({"size": value.nbytes})
    return {"outputs": written}


def _read_shared(np, spec):
  """Maps an input file in shared memory as a read-only numpy array."""
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top

  dtype = jnp.dtype(spec["dtype"])
  shape = tuple(spec["shape"])
  if spec["size"] == 0:
    return np.zeros(shape, dtype)
  with open(spec["path"], "rb") as f:
    mem = mmap.mmap(f.fileno(), spec["size"], access=mmap.ACCESS_READ)
  return np.frombuffer(mem, dtype=dtype).reshape(shape)


def _string_array_contents(value):
  """A string array as a serialized xla.ifrt.proto.StringArrayContents: field
  1 (bytes) once per element, row-major."""
  out = bytearray()
  for element in value.reshape(-1):
    data = str(element).encode()
    out.append(0x0A)  # field 1, length-delimited
    n = len(data)
    while n >= 0x80:
      out.append((n & 0x7F) | 0x80)
      n >>= 7
    out.append(n)
    out += data
  return bytes(out)


def _write_shared(np, path, value):
  with open(path, "wb") as f:
    f.write(np.ascontiguousarray(value).data)


def _error(exc):
  cls = type(exc)
  name = cls.__qualname__
  if cls.__module__ not in ("builtins", "__main__"):
    name = f"{cls.__module__}.{name}"
  return {
      "type": name,
      "message": str(exc),
      "traceback": "".join(traceback.format_exception(exc)),
  }


def serve(conn, sidecar):
  while True:
    try:
      header, payload = conn.read()
    except EOFError:
      return
    reply = {"id": header.get("id", 0)}
    try:
      reply.update(sidecar.handle(header, payload))
    except ProtocolError as e:
      reply["protocol_error"] = str(e)
    except Exception as e:  # pylint: disable=broad-exception-caught
      # The user's function failed: its type and message go to the client.
      reply["error"] = _error(e)
    try:
      conn.write(reply)
    except OSError:
      return  # the worker closed the connection: it is stopping this sidecar


def main(argv=None):
  args = _parse_args(argv)
  sidecar = Sidecar(args.devices)
  sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
  sock.connect(args.socket)
  try:
    serve(Connection(sock), sidecar)
  finally:
    sock.close()


if __name__ == "__main__":
  main()
