"""Colocated Python through the proxy server of a cluster of two hosts.

Prints one JSON object per line: the colocated CPU devices; a function that
adds 1 to each host's shard and returns the host's name; a colocated
object's counter on each host; a function that raises; a call during which the
test kills host-1's sidecar, then a call after its restart.
"""

import colocated_steps as steps  # initializes pathwaysutils
# The colocated functions call host_name itself, not through steps, so that the
# function travels with them and not the whole module.
from colocated_steps import host_name
import jax
from jax.experimental import colocated_python as cp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np

devices = jax.devices()
cpus = cp.colocated_cpu_devices(devices)
hosts = steps.host_cpus()
steps.emit(devices=len(devices), cpu_ids=[d.id for d in cpus], hosts=len(hosts))

# An ordinary program over both workers' accelerators runs as before.
spread = NamedSharding(Mesh(np.array(devices), ("d",)), P("d"))
doubled = jax.jit(lambda a: a * 2)(jax.device_put(np.arange(8, dtype=np.float32), spread))
steps.emit(gang=np.asarray(doubled).tolist())

rows = NamedSharding(Mesh(np.array(hosts), ("host",)), P("host"))
x = jax.device_put(np.arange(8, dtype=np.float32).reshape(2, 4), rows)


@cp.colocated_python
def add_one_and_name(v):
  return v + 1, host_name().reshape(1, -1)


add = add_one_and_name.specialize(
    out_specs_fn=lambda v: (v, jax.ShapeDtypeStruct((len(hosts), steps.NAME), np.uint8, sharding=v.sharding)))
y, names = add(x)
steps.emit(add_one=np.asarray(y).tolist(), names=[steps.decode_name(r) for r in np.asarray(names)])

bump = steps.Counter().bump.specialize(out_specs_fn=lambda v: v)
steps.emit(counter=[np.asarray(bump(x))[:, 0].tolist() for _ in range(3)])
steps.emit_raised(x)
steps.emit_killed(x, "host-1")
y, names = add(x)
steps.emit(after_restart=np.asarray(y).tolist())
