"""Real JAX against the cluster of separate processes that e2e_test.go starts:
an RM, two workers (two cpu slices of 4 devices) and a proxy server.

Prints one JSON object per line; waits for the Go test on stdin at the two
points where it kills and restarts the worker of slice 1."""

import time

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from pathwaysutils import reshard as pw_reshard
from steps import emit, err, wait_for_go


devs = jax.devices()
emit(devices=[{"id": d.id, "slice_index": d.slice_index, "platform": d.platform} for d in devs])
by_slice = elastic.get_slice_to_devices(devs)
meshes = {s: Mesh(np.array(ds), ("d",)) for s, ds in by_slice.items()}


def on_slice(a, s):
  return jax.device_put(a, NamedSharding(meshes[s], P("d")))


step = jax.jit(lambda v: v * 2 + 1)
a = np.arange(16, dtype=np.float32)

# jit on each slice.
jit_ok = {}
for s in sorted(by_slice):
  y = step(on_slice(a, s))
  jit_ok[s] = bool(np.array_equal(np.asarray(y), a * 2 + 1)) and {d.slice_index for d in y.sharding.device_set} == {s}
emit(jit=jit_ok)

# device_put across both slices.
mesh8 = Mesh(np.array(devs), ("d",))
x8 = jax.device_put(a, NamedSharding(mesh8, P("d")))
emit(across=bool(np.array_equal(np.asarray(x8), a)), across_slices=sorted({d.slice_index for d in x8.sharding.device_set}))

# Reshard from slice 0 to slice 1: jax.device_put and pathwaysutils.reshard.
x0 = on_slice(a, 0)
reshard = {}
try:
  x1 = jax.device_put(x0, NamedSharding(meshes[1], P("d")))
  reshard["device_put"] = bool(np.array_equal(np.asarray(x1), a)) and {d.slice_index for d in x1.sharding.device_set} == {1}
except Exception as e:  # pylint: disable=broad-except
  reshard["device_put"] = err(e)
try:
  x1r = pw_reshard.reshard(x0, NamedSharding(meshes[1], P("d")))
  reshard["pathwaysutils"] = bool(np.array_equal(np.asarray(x1r), a)) and {d.slice_index for d in x1r.sharding.device_set} == {1}
except Exception as e:  # pylint: disable=broad-except
  reshard["pathwaysutils"] = err(e)
emit(reshard=reshard)
emit(active_before=sorted(elastic.get_active_slice_indices(by_slice)))

on1 = on_slice(a, 1)
on1.block_until_ready()
wait_for_go("killed")

# The arrays of the killed slice fail with DATA_LOSS; slice 0 keeps computing.
start = time.time()
lost = first_error = None
while time.time() - start < 30:
  try:
    np.asarray(step(on1))
  except jax.errors.JaxRuntimeError as e:
    first_error = first_error or err(e)
    if "DATA_LOSS" in str(e):
      lost = err(e)
      break
  time.sleep(0.05)
emit(lost=lost, first_error=first_error, lost_after_s=round(time.time() - start, 3))
y0 = step(on_slice(a, 0))
emit(slice0_after_loss=bool(np.array_equal(np.asarray(y0), a * 2 + 1)))
# pathwaysutils' health check dispatches a fresh pmap to every slice before it
# looks at the results. Here the dispatch to the lost slice already fails: the
# upload of its input fails, and the proxy server then fails the execution
# request, which jaxlib raises at once. The error is one pathwaysutils counts as
# "slice down"; the check of the live slice alone passes.
try:
  emit(active_after_loss=sorted(elastic.get_active_slice_indices(by_slice)))
except Exception as e:  # pylint: disable=broad-except
  emit(active_after_loss=err(e), active_after_loss_is_slice_down=elastic.is_error_due_to_slice_down(e, log_traceback=False))
try:
  emit(active_slice0_only=sorted(elastic.get_active_slice_indices({0: by_slice[0]})))
except Exception as e:  # pylint: disable=broad-except
  emit(active_slice0_only=err(e))

wait_for_go("restarted")

# pathwaysutils.elastic sees slice 1 healthy again; it computes again, with the
# program jit compiled (and cached) before the loss.
try:
  active = elastic.wait_for_slices(slice_count=2, poll_interval=1, timeout=60, slice_to_devices=by_slice)
  emit(active_after_restart=sorted(active))
except Exception as e:  # pylint: disable=broad-except
  emit(active_after_restart=err(e))
try:
  y1 = step(on_slice(a, 1))
  emit(slice1_after_restart=bool(np.array_equal(np.asarray(y1), a * 2 + 1)))
except Exception as e:  # pylint: disable=broad-except
  emit(slice1_after_restart=err(e))
try:
  x1 = jax.device_put(on_slice(a, 0), NamedSharding(meshes[1], P("d")))
  emit(reshard_after_restart=bool(np.array_equal(np.asarray(x1), a)))
except Exception as e:  # pylint: disable=broad-except
  emit(reshard_after_restart=err(e))
try:
  np.asarray(on1)
  emit(old_array_after_restart=None)
except jax.errors.JaxRuntimeError as e:
  emit(old_array_after_restart=err(e))

# Losing both slices is more than --num_elastic_instances=1 allows: the session
# fails, every request with UNAVAILABLE.
wait_for_go("killed_both")
failed = None
start = time.time()
while time.time() - start < 30:
  try:
    np.asarray(jax.device_put(a, devs[0]))
  except jax.errors.JaxRuntimeError as e:
    if "UNAVAILABLE" in str(e):
      failed = err(e)
      break
  time.sleep(0.05)
emit(session_failed=failed)
emit(done=True)
