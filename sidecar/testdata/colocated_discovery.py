"""Colocated Python without out_specs_fn, through a cluster of two hosts.

JAX discovers the output specs with a first call whose output is a string
array (the specs, serialized) and takes the results with a second program;
later calls use the specs found. Each function runs on one host's CPU device.
Prints one JSON object per line.
"""

import json

import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top


def emit(**kv):
  print(json.dumps(kv), flush=True)


hosts = list(dict.fromkeys(cp.colocated_cpu_devices(jax.devices())))
NAME = 16


@cp.colocated_python
def double_and_name(v):
  import os  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  name = os.environ.get("PATHWAYS_HOST_NAME", "?").encode().ljust(NAME)[:NAME]
  return {"doubled": v * 2, "name": jax.device_put(np.frombuffer(name, np.uint8).copy(), v.sharding)}


x = np.arange(4, dtype=np.float32)
first = double_and_name(jax.device_put(x, hosts[0]))
second = double_and_name(jax.device_put(x + 1, hosts[0]))
other = double_and_name(jax.device_put(x + 2, hosts[1]))
emit(first=np.asarray(first["doubled"]).tolist(), second=np.asarray(second["doubled"]).tolist(),
     other=np.asarray(other["doubled"]).tolist(),
     names=[bytes(np.asarray(r["name"])).decode().strip() for r in (first, other)],
     devices=[d.id for r in (first, other) for d in r["doubled"].devices()], host_ids=[h.id for h in hosts])


@cp.colocated_python_class
class Counter:

  def __init__(self):
    self.n = 0

  def bump(self, v):
    self.n += 1
    return v * 0 + self.n


counter = Counter()
on_host_0 = jax.device_put(x, hosts[0])
emit(counter=[float(np.asarray(counter.bump(on_host_0))[0]) for _ in range(3)])

both = jax.device_put(np.zeros((2, 4), np.float32), NamedSharding(Mesh(np.array(hosts), ("host",)), P("host")))
try:
  np.asarray(double_and_name(both)["doubled"])
  emit(across_hosts="nothing")
except Exception as e:  # pylint: disable=broad-exception-caught
  emit(across_hosts=str(e))
