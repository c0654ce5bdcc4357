"""Stock JAX over a cluster of gocpu worker processes, one program across
both slices (a gang): shard_map with psum over all 8 devices in a loop while
the test kills (SIGKILL) slice 1's worker, a jit over slice 0 alone while
slice 1 is down, and the spanning program again once the worker is back."""

import threading
import time

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from steps import emit, err, wait_for_go


devs = jax.devices()
by_slice = elastic.get_slice_to_devices(devs)
everywhere = Mesh(np.array(devs), ("d",))
slice0 = Mesh(np.array(by_slice[0]), ("d",))
a = np.arange(8 * len(devs), dtype=np.float32).reshape(len(devs), 8)


def psum_on(mesh):
  f = jax.jit(jax.shard_map(lambda x: lax.psum(x, "d"), mesh=mesh, in_specs=P("d"), out_specs=P()))
  n = mesh.devices.size
  x = jax.device_put(a[:n], NamedSharding(mesh, P("d")))
  return f, x, a[:n].sum(0, keepdims=True)


f, x, want = psum_on(everywhere)
emit(spanning=bool(np.allclose(np.asarray(f(x)), want)))

failure = {}
running = threading.Event()


def loop():
  while True:
    try:
      np.asarray(f(x))
      running.set()
    except Exception as e:  # what the loop sees when a participant dies
      failure["error"] = err(e)
      failure["at"] = time.time()
      return


t = threading.Thread(target=loop, daemon=True)
t.start()
running.wait(60)
wait_for_go("killed")
killed_at = time.time()
t.join(60)
emit(lost=failure.get("error"), lost_after_s=round(failure["at"] - killed_at, 3) if "at" in failure else None,
     hung=t.is_alive())

f0, x0, want0 = psum_on(slice0)
emit(slice0_while_down=bool(np.allclose(np.asarray(f0(x0)), want0)))

wait_for_go("restarted")
ok = False
start = time.time()
while time.time() - start < 60 and not ok:
  try:
    f, x, want = psum_on(everywhere)
    ok = bool(np.allclose(np.asarray(f(x)), want))
  except jax.errors.JaxRuntimeError:
    time.sleep(0.1)
emit(spanning_after_restart=ok)
