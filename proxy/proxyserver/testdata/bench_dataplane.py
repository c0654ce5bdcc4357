"""Step and transfer figures of the proxy against local CPU JAX, in one process.

JAX_PLATFORMS=proxy,cpu gives this process both the server under test and
jaxlib's own CPU backend, so every figure has its baseline from the same run:
the tiny step (jit of x*2+1 on f32[1024], then device_get) against the same
step on local CPU, and 64 MiB device_put / device_get against np.copy of the
same array. Medians; prints one JSON object.
"""

import os
import statistics
import time

import numpy as np

from _common import emit, init

jax = init()

STEPS = int(os.environ.get("BENCH_STEPS", "300"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
SIZE = 64 << 20


def median_s(f, n):
  times = []
  for _ in range(n):
    t = time.perf_counter()
    f()
    times.append(time.perf_counter() - t)
  return statistics.median(times)


def step_s(device):
  f = jax.jit(lambda x: x * 2 + 1)
  x = jax.device_put(np.arange(1024, dtype=np.float32), device)
  for _ in range(30):
    jax.device_get(f(x))
  return median_s(lambda: jax.device_get(f(x)), STEPS)


def transfer_s(device, host):
  put, get = [], []
  for _ in range(REPEATS + 1):
    t = time.perf_counter()
    a = jax.device_put(host, device).block_until_ready()
    put.append(time.perf_counter() - t)
    t = time.perf_counter()
    back = np.asarray(a)
    get.append(time.perf_counter() - t)
    if not np.array_equal(back, host):
      raise SystemExit("the 64 MiB round trip is not bit-exact")
    a.delete()
  return statistics.median(put[1:]), statistics.median(get[1:])


proxy = jax.devices()[0]
local = jax.devices("cpu")[0]
host = np.random.default_rng(0).integers(0, 255, SIZE, dtype=np.uint8)
copy = median_s(lambda: np.copy(host), REPEATS)
local_step, proxy_step = step_s(local), step_s(proxy)
put, get = transfer_s(proxy, host)
emit(
    local_step_ms=local_step * 1e3,
    proxy_step_ms=proxy_step * 1e3,
    added_step_ms=(proxy_step - local_step) * 1e3,
    copy_gbps=SIZE / copy / 1e9,
    put_gbps=SIZE / put / 1e9,
    get_gbps=SIZE / get / 1e9,
    put_vs_copy=copy / put,
    get_vs_copy=copy / get,
)
