"""Tests of pathways_sidecar.py: a real sidecar process, spoken to as the
worker speaks to it. Run: python -m unittest test_sidecar (from this folder)."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # pylint: disable=g-import-not-at-top
from jax._src import tree_util  # pylint: disable=g-import-not-at-top
from jax.experimental.colocated_python import serialization  # pylint: disable=g-import-not-at-top
from jax.extend.ifrt_programs import ifrt_programs  # pylint: disable=g-import-not-at-top,unused-import
import numpy as np  # pylint: disable=g-import-not-at-top

DeviceList = serialization.DeviceList

import pathways_sidecar  # pylint: disable=g-import-not-at-top

HERE = os.path.dirname(os.path.abspath(__file__))


def pickled(fun, in_shapes, out_shapes):
  """What colocated_python ships: the function and its specs, pickled."""
  dev = jax.devices("cpu")[0]
  sharding = jax.sharding.SingleDeviceSharding(dev)
  ins = tuple(jax.ShapeDtypeStruct(s, np.float32, sharding=sharding) for s in in_shapes)
  outs = tuple(jax.ShapeDtypeStruct(s, np.float32, sharding=sharding) for s in out_shapes)
  _, in_treedef = tree_util.tree_flatten((ins, {}))
  out_treedef = tree_util.tree_structure(outs if len(outs) != 1 else outs[0])
  return serialization._serialize(
      (fun, in_treedef, ins, out_treedef, outs, DeviceList((dev,))))


class SidecarTest(unittest.TestCase):
  """One sidecar serves every test, as one serves a worker's sessions; each
  test uses sessions of its own."""

  @classmethod
  def setUpClass(cls):
    self = cls
    self.dir = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    path = os.path.join(self.dir, "s")
    lis = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lis.bind(path)
    lis.listen(1)
    self.proc = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "pathways_sidecar.py"), "--socket", path])
    lis.settimeout(60)
    sock, _ = lis.accept()
    lis.close()
    self.conn = pathways_sidecar.Connection(sock)
    self.sock = sock
    self.next_id = 0

  @classmethod
  def tearDownClass(cls):
    cls.conn._file.close()
    cls.sock.close()
    cls.proc.wait(timeout=30)
    shutil.rmtree(cls.dir, ignore_errors=True)  # /dev/shm is memory

  def request(self, header, payload=b""):
    self.next_id += 1
    header = dict(header, id=self.next_id)
    if payload:
      header["payload"] = len(payload)
    data = pathways_sidecar.json.dumps(header).encode()
    self.sock.sendall(pathways_sidecar.struct.pack(">I", len(data)) + data + payload)
    reply, _ = self.conn.read()
    self.assertEqual(reply["id"], self.next_id)
    return reply

  def call(self, session, program, x, out_shapes):
    src = os.path.join(self.dir, f"in{self.next_id}")
    with open(src, "wb") as f:
      f.write(x.tobytes())
    outs = [{"dtype": "float32", "shape": list(s), "path": os.path.join(self.dir, f"out{self.next_id}-{i}")}
            for i, s in enumerate(out_shapes)]
    reply = self.request({
        "op": "call", "session": session, "program": program,
        "inputs": [{"dtype": "float32", "shape": list(x.shape), "path": src, "size": x.nbytes}],
        "outputs": outs,
    })
    if "error" in reply or "protocol_error" in reply:
      return reply, None
    return reply, [np.fromfile(o["path"], np.float32).reshape(o["shape"]) for o in outs]

  def test_hello_reports_versions(self):
    reply = self.request({"op": "hello", "protocol": 1})
    self.assertEqual(reply["protocol"], pathways_sidecar.PROTOCOL_VERSION)
    self.assertEqual(reply["jax"], jax.__version__)

  def test_call_runs_the_function_on_the_input(self):
    prog = pickled(lambda x: x + 1, [(4,)], [(4,)])
    self.assertNotIn("error", self.request({"op": "load", "session": "1", "program": 7}, prog))
    reply, outs = self.call("1", 7, np.arange(4, dtype=np.float32), [(4,)])
    self.assertNotIn("error", reply)
    np.testing.assert_array_equal(outs[0], [1, 2, 3, 4])

  def test_user_error_carries_type_and_message(self):
    def boom(x):
      raise KeyError("no such shard")
    self.request({"op": "load", "session": "1", "program": 1}, pickled(boom, [(2,)], [(2,)]))
    reply, _ = self.call("1", 1, np.zeros(2, np.float32), [(2,)])
    self.assertEqual(reply["error"]["type"], "KeyError")
    self.assertIn("no such shard", reply["error"]["message"])

  def test_wrong_output_shape_is_an_error(self):
    self.request({"op": "load", "session": "1", "program": 1}, pickled(lambda x: x[:1], [(2,)], [(2,)]))
    reply, _ = self.call("1", 1, np.zeros(2, np.float32), [(2,)])
    self.assertIn("declare", reply["error"]["message"])

  def test_state_is_per_session_and_freed_with_it(self):
    def count(x):
      from jax.experimental.colocated_python import obj_backend
      ref = obj_backend.SINGLETON_OBJECT_STORE.get_or_create(42, lambda: [0])
      ref[0] += 1
      return x + ref[0]
    prog = pickled(count, [(1,)], [(1,)])
    for s in ("11", "12"):
      self.request({"op": "load", "session": s, "program": 1}, prog)
    one = np.zeros(1, np.float32)
    self.assertEqual(self.call("11", 1, one, [(1,)])[1][0][0], 1)
    self.assertEqual(self.call("11", 1, one, [(1,)])[1][0][0], 2)
    self.assertEqual(self.call("12", 1, one, [(1,)])[1][0][0], 1)
    stats = self.request({"op": "stats"})["sessions"]
    self.assertEqual(stats["11"], {"programs": 1, "objects": 1})
    self.request({"op": "end_session", "session": "11"})
    stats = self.request({"op": "stats"})["sessions"]
    self.assertNotIn("11", stats)
    self.assertEqual(stats["12"], {"programs": 1, "objects": 1})
    reply, _ = self.call("11", 1, one, [(1,)])
    self.assertIn("not loaded", reply["protocol_error"])

  def test_unknown_op_is_a_protocol_error(self):
    self.assertIn("unknown op", self.request({"op": "frobnicate", "session": 1})["protocol_error"])


if __name__ == "__main__":
  unittest.main()
