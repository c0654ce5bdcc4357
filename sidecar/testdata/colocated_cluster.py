"""Colocated Python through the proxy server of a cluster of two hosts.

Prints one JSON object per line: the colocated CPU devices; a function that
adds 1 to each host's shard and returns the host's name; a colocated
object's counter on each host; a function that raises; a call during which the
test kills host-1's sidecar, then a call after its restart.
"""

import json
import os

import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top


def emit(**kv):
  print(json.dumps(kv), flush=True)


devices = jax.devices()
cpus = cp.colocated_cpu_devices(devices)
hosts = list(dict.fromkeys(cpus))  # one CPU device per host, in order
emit(devices=len(devices), cpu_ids=[d.id for d in cpus], hosts=len(hosts))

# An ordinary program over both workers' accelerators runs as before.
spread = NamedSharding(Mesh(np.array(devices), ("d",)), P("d"))
doubled = jax.jit(lambda a: a * 2)(jax.device_put(np.arange(8, dtype=np.float32), spread))
emit(gang=np.asarray(doubled).tolist())

mesh = Mesh(np.array(hosts), ("host",))
rows = NamedSharding(mesh, P("host"))
x = jax.device_put(np.arange(8, dtype=np.float32).reshape(2, 4), rows)
NAME = 16


@cp.colocated_python
def add_one_and_name(v):
  import os  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  import numpy as np  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  name = os.environ.get("PATHWAYS_HOST_NAME", "?").encode().ljust(NAME)[:NAME]
  return v + 1, np.frombuffer(name, np.uint8).reshape(1, NAME).copy()


add = add_one_and_name.specialize(
    out_specs_fn=lambda v: (v, jax.ShapeDtypeStruct((len(hosts), NAME), np.uint8, sharding=v.sharding)))
y, names = add(x)
emit(add_one=np.asarray(y).tolist(),
     names=[bytes(r).decode().strip() for r in np.asarray(names)])


@cp.colocated_python_class
class Counter:

  def __init__(self):
    self.n = 0

  def bump(self, v):
    self.n += 1
    return v * 0 + self.n


counter = Counter()
bump = counter.bump.specialize(out_specs_fn=lambda v: v)
emit(counter=[np.asarray(bump(x))[:, 0].tolist() for _ in range(3)])


@cp.colocated_python
def boom(v):
  raise ValueError(f"colocated boom on {v.shape}")


try:
  np.asarray(boom.specialize(out_specs_fn=lambda v: v)(x))
  emit(raised="nothing")
except Exception as e:  # pylint: disable=broad-exception-caught
  emit(raised=str(e))


@cp.colocated_python
def slow_on_host_1(v):
  import time  # pylint: disable=g-import-not-at-top
  if os.environ.get("PATHWAYS_HOST_NAME") == "host-1":
    open(os.environ["SIDECAR_TEST_MARK"], "w").close()
    time.sleep(600)
  return v


try:
  np.asarray(slow_on_host_1.specialize(out_specs_fn=lambda v: v)(x))
  emit(killed="nothing")
except Exception as e:  # pylint: disable=broad-exception-caught
  emit(killed=str(e))

y, names = add(x)
emit(after_restart=np.asarray(y).tolist())
