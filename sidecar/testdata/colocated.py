"""Colocated Python through the proxy server, as a JAX user writes it.

Prints one JSON object per line. Steps: the colocated CPU devices; a function
that adds 1 and returns the host's name; a colocated object's counter; a
function that raises; a call during which the test kills the sidecar, then a
call after its restart.
"""

import json
import os

import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top


def emit(**kv):
  print(json.dumps(kv), flush=True)


devices = jax.devices()
cpus = cp.colocated_cpu_devices(devices)
every = devices[0].client._get_all_devices()
emit(devices=len(devices), all_devices=len(every),
     cpu_ids=sorted({d.id for d in cpus}), cpu_kind=cpus[0].device_kind,
     accelerator_kind=devices[0].device_kind)
cpu = cpus[0]

# On the host's CPU device, from numpy and from an accelerator.
x = jax.device_put(np.arange(8, dtype=np.float32), cpu)
from_accel = jax.device_put(jax.device_put(np.arange(8, dtype=np.float32) * 2, devices[0]), cpu)
emit(on_cpu=[d.id for d in x.devices()], from_accel=np.asarray(from_accel).tolist(),
     back=np.asarray(jax.device_put(from_accel, devices[1])).tolist())

NAME = 16


@cp.colocated_python
def add_one_and_name(v):
  import os  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  import numpy as np  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  name = os.environ.get("PATHWAYS_HOST_NAME", "?").encode().ljust(NAME)[:NAME]
  return v + 1, np.frombuffer(name, np.uint8).copy()


add = add_one_and_name.specialize(
    out_specs_fn=lambda v: (v, jax.ShapeDtypeStruct((NAME,), np.uint8, sharding=v.sharding)))
y, name = add(x)
emit(add_one=np.asarray(y).tolist(), host=bytes(np.asarray(name)).decode().strip(),
     result_device=[d.id for d in y.devices()])


@cp.colocated_python_class
class Counter:

  def __init__(self):
    self.n = 0

  def bump(self, v):
    self.n += 1
    return v + self.n


counter = Counter()
bump = counter.bump.specialize(out_specs_fn=lambda v: v)
emit(counter=[float(np.asarray(bump(x))[0]) for _ in range(3)])


@cp.colocated_python
def boom(v):
  raise ValueError(f"colocated boom on {v.shape}")


try:
  np.asarray(boom.specialize(out_specs_fn=lambda v: v)(x))
  emit(raised="nothing")
except Exception as e:  # pylint: disable=broad-exception-caught
  emit(raised=str(e))


@cp.colocated_python
def slow(v):
  import time  # pylint: disable=g-import-not-at-top
  open(os.environ["SIDECAR_TEST_MARK"], "w").close()
  time.sleep(600)
  return v


try:
  np.asarray(slow.specialize(out_specs_fn=lambda v: v)(x))
  emit(killed="nothing")
except Exception as e:  # pylint: disable=broad-exception-caught
  emit(killed=str(e))

y, _ = add(x)
emit(after_restart=np.asarray(y).tolist())
