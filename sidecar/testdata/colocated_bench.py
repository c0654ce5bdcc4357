"""Times numpy work on 64 MiB that lives on a host's CPU device: as a
colocated Python call (the bytes stay on the host) against device_get, the
same work in the client, and device_put back. Prints one JSON line."""

import json
import time

import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top

cpu = cp.colocated_cpu_devices(jax.devices()[:1])[0]
n = 64 << 20 >> 2  # 64 MiB of float32
x = jax.device_put(np.arange(n, dtype=np.float32), cpu)
x.block_until_ready()


def work(v):
  import numpy as np  # pylint: disable=g-import-not-at-top,redefined-outer-name,reimported
  return np.asarray(v) * 2 + 1


colocated = cp.colocated_python(work).specialize(out_specs_fn=lambda v: v)


def via_sidecar():
  return colocated(x).block_until_ready()


def via_client():
  return jax.device_put(work(jax.device_get(x)), cpu).block_until_ready()


def best(f, runs=3):
  f()  # warm: compiles and loads the function
  times = []
  for _ in range(runs):
    t = time.perf_counter()
    f()
    times.append(time.perf_counter() - t)
  return min(times)


a = np.asarray(via_sidecar())
b = np.asarray(via_client())
sidecar_s, client_s = best(via_sidecar), best(via_client)
print(json.dumps({"bytes": n * 4, "equal": bool(np.array_equal(a, b)),
                  "sidecar_s": sidecar_s, "client_s": client_s}), flush=True)
