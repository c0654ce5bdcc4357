"""Colocated Python without out_specs_fn, through a cluster of two hosts.

JAX discovers the output specs with a first call whose output is a string
array (the specs, serialized) and takes the results with a second program;
later calls use the specs found. Each function runs on one host's CPU device.
Prints one JSON object per line.
"""

import colocated_steps as steps  # initializes pathwaysutils
# The colocated functions call host_name itself, not through steps, so that the
# function travels with them and not the whole module.
from colocated_steps import host_name
import jax
from jax.experimental import colocated_python as cp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np

hosts = steps.host_cpus()


@cp.colocated_python
def double_and_name(v):
  return {"doubled": v * 2, "name": jax.device_put(host_name(), v.sharding)}


x = np.arange(4, dtype=np.float32)
first = double_and_name(jax.device_put(x, hosts[0]))
second = double_and_name(jax.device_put(x + 1, hosts[0]))
other = double_and_name(jax.device_put(x + 2, hosts[1]))
steps.emit(first=np.asarray(first["doubled"]).tolist(), second=np.asarray(second["doubled"]).tolist(),
           other=np.asarray(other["doubled"]).tolist(),
           names=[steps.decode_name(r["name"]) for r in (first, other)],
           devices=[d.id for r in (first, other) for d in r["doubled"].devices()], host_ids=[h.id for h in hosts])

counter = steps.Counter()
on_host_0 = jax.device_put(x, hosts[0])
steps.emit(counter=[float(np.asarray(counter.bump(on_host_0))[0]) for _ in range(3)])

both = jax.device_put(np.zeros((2, 4), np.float32), NamedSharding(Mesh(np.array(hosts), ("host",)), P("host")))
steps.emit_outcome("across_hosts", lambda: np.asarray(double_and_name(both)["doubled"]))
