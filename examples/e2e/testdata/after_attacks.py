"""A stock JAX client, run right after the hostile suite against the same proxy
server: devices, transfers within and across slices, and (with workers on a
PJRT plugin) a jit program on each slice. Prints one JSON object a line."""

import os

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from steps import emit


devs = jax.devices()
emit(devices=len(devs))
by_slice = elastic.get_slice_to_devices(devs)
a = np.arange(64, dtype=np.float32).reshape(8, 8)
ok = {}
for s, ds in sorted(by_slice.items()):
  x = jax.device_put(a, NamedSharding(Mesh(np.array(ds), ("d",)), P("d")))
  ok[s] = bool(np.array_equal(np.asarray(x), a))
emit(per_slice=ok)
everywhere = jax.device_put(a, NamedSharding(Mesh(np.array(devs), ("d",)), P("d")))
emit(across=bool(np.array_equal(np.asarray(everywhere), a)))
view = a[:, ::2]  # byte strides with gaps, as numpy views have
emit(view=bool(np.array_equal(np.asarray(jax.device_put(view, devs[0])), view)))
if os.environ.get("HOSTILE_JIT") == "1":
  jitted = {}
  for s, ds in sorted(by_slice.items()):
    x = jax.device_put(a, ds[0])
    jitted[s] = bool(np.allclose(np.asarray(jax.jit(lambda v: v * 2 + 1)(x)), a * 2 + 1))
  emit(jit=jitted)
emit(done=True)
