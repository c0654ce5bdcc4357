"""Prints, as one JSON object of base64 strings, the pickled functions that
process_test.go runs in a sidecar, pickled as colocated_python pickles them.
Each takes and returns one float32[4]."""

import base64
import json
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # pylint: disable=g-import-not-at-top
from jax._src import tree_util  # pylint: disable=g-import-not-at-top
from jax.experimental.colocated_python import serialization  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top


def pickled(fun):
  dev = jax.devices("cpu")[0]
  spec = jax.ShapeDtypeStruct((4,), np.float32, sharding=jax.sharding.SingleDeviceSharding(dev))
  _, in_treedef = tree_util.tree_flatten(((spec,), {}))
  out_treedef = tree_util.tree_structure(spec)
  data = serialization._serialize(
      (fun, in_treedef, (spec,), out_treedef, (spec,), serialization.DeviceList((dev,))))
  return base64.b64encode(data).decode()


def add_one(x):
  return x + 1


def fail(x):
  raise ValueError(f"no good: {x.shape}")


def slow(x):
  # Says it started, then outlasts the test, which kills the sidecar.
  open(os.environ["SIDECAR_TEST_MARK"], "w").close()
  time.sleep(600)
  return x


print(json.dumps({name: pickled(f) for name, f in
                  [("add_one", add_one), ("fail", fail), ("slow", slow)]}))
