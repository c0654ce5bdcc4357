"""Real JAX against a cluster of gocpu workers (no PJRT plugin): devices,
transfers per slice and across slices, a worker killed and restarted. No jit:
the proxy's interop tests run JAX programs on gocpu."""

import time

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from steps import emit, err, wait_for_go


devs = jax.devices()
emit(devices=[{"id": d.id, "slice_index": d.slice_index, "platform": d.platform} for d in devs])
by_slice = elastic.get_slice_to_devices(devs)
meshes = {s: Mesh(np.array(ds), ("d",)) for s, ds in by_slice.items()}
a = np.arange(16, dtype=np.float32)


def on_slice(s):
  return jax.device_put(a, NamedSharding(meshes[s], P("d")))


emit(on_slices={s: bool(np.array_equal(np.asarray(on_slice(s)), a)) for s in sorted(by_slice)})
x8 = jax.device_put(a, NamedSharding(Mesh(np.array(devs), ("d",)), P("d")))
emit(across=bool(np.array_equal(np.asarray(x8), a)))
x1 = jax.device_put(on_slice(0), NamedSharding(meshes[1], P("d")))
emit(copied_to_slice1=bool(np.array_equal(np.asarray(x1), a)))

on1 = on_slice(1)
on1.block_until_ready()
wait_for_go("killed")
lost = None
start = time.time()
while time.time() - start < 30:
  try:
    np.asarray(jax.device_put(on1, NamedSharding(meshes[1], P())))
  except jax.errors.JaxRuntimeError as e:
    if "DATA_LOSS" in str(e):
      lost = err(e)
      break
  time.sleep(0.05)
emit(lost=lost)
emit(slice0_after_loss=bool(np.array_equal(np.asarray(on_slice(0)), a)))

wait_for_go("restarted")
ok = False
start = time.time()
while time.time() - start < 30 and not ok:
  try:
    ok = bool(np.array_equal(np.asarray(on_slice(1)), a))
  except jax.errors.JaxRuntimeError:
    time.sleep(0.05)
emit(slice1_after_restart=ok)
try:
  np.asarray(on1)
  emit(old_array_after_restart=None)
except jax.errors.JaxRuntimeError as e:
  emit(old_array_after_restart=err(e))
