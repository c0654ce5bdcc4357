"""Colocated Python through the proxy server, as a JAX user writes it.

Prints one JSON object per line. Steps: the colocated CPU devices; a function
that adds 1 and returns the host's name; a colocated object's counter; a
function that raises; a call during which the test kills the sidecar, then a
call after its restart.
"""

import colocated_steps as steps  # initializes pathwaysutils
# The colocated functions call host_name itself, not through steps, so that the
# function travels with them and not the whole module.
from colocated_steps import host_name
import jax
from jax.experimental import colocated_python as cp
import numpy as np

devices = jax.devices()
cpus = cp.colocated_cpu_devices(devices)
every = devices[0].client._get_all_devices()
steps.emit(devices=len(devices), all_devices=len(every),
           cpu_ids=sorted({d.id for d in cpus}), cpu_kind=cpus[0].device_kind,
           accelerator_kind=devices[0].device_kind)
cpu = cpus[0]

# On the host's CPU device, from numpy and from an accelerator.
x = jax.device_put(np.arange(8, dtype=np.float32), cpu)
from_accel = jax.device_put(jax.device_put(np.arange(8, dtype=np.float32) * 2, devices[0]), cpu)
steps.emit(on_cpu=[d.id for d in x.devices()], from_accel=np.asarray(from_accel).tolist(),
           back=np.asarray(jax.device_put(from_accel, devices[1])).tolist())


@cp.colocated_python
def add_one_and_name(v):
  return v + 1, host_name()


add = add_one_and_name.specialize(
    out_specs_fn=lambda v: (v, jax.ShapeDtypeStruct((steps.NAME,), np.uint8, sharding=v.sharding)))
y, name = add(x)
steps.emit(add_one=np.asarray(y).tolist(), host=steps.decode_name(name),
           result_device=[d.id for d in y.devices()])

bump = steps.Counter().bump.specialize(out_specs_fn=lambda v: v)
steps.emit(counter=[float(np.asarray(bump(x))[0]) for _ in range(3)])
steps.emit_raised(x)
steps.emit_killed(x, "host-0")
y, _ = add(x)
steps.emit(after_restart=np.asarray(y).tolist())
