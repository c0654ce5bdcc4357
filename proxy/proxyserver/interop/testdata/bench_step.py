"""The tiny step (jit of x*2+1 on f32[1024], then device_get): its median time
on the first device of slice SLICE (its slice_index; default 0).

With LOCAL=1 the process also has jaxlib's own CPU backend
(JAX_PLATFORMS=proxy,cpu) and measures the same step there, the baseline of
the same run. With PHASES=1 it measures twice, each time after the Go test
answers a pause: "solo" (the test lets one client run at a time) and
"together" (every client at once), so that concurrent clients can be
compared with themselves alone; solo_cpu_ms is the process's CPU time per
step alone (every thread: jaxlib's too). Prints one JSON object.
"""

import os
import statistics
import time

import numpy as np

from _common import emit, init

jax = init()

STEPS = int(os.environ.get("BENCH_STEPS", "300"))


def stepper(device):
  f = jax.jit(lambda x: x * 2 + 1)
  x = jax.device_put(np.arange(1024, dtype=np.float32), device)
  for _ in range(30):
    jax.device_get(f(x))

  def median_ms(cpu=None):
    times = []
    start = time.process_time()
    for _ in range(STEPS):
      t = time.perf_counter()
      jax.device_get(f(x))
      times.append(time.perf_counter() - t)
    if cpu is not None:
      cpu.append((time.process_time() - start) / STEPS * 1e3)
    return statistics.median(times) * 1e3

  return median_ms


want = int(os.environ.get("SLICE", "0"))
device = next(d for d in jax.devices() if getattr(d, "slice_index", 0) == want)
step = stepper(device)
if os.environ.get("PHASES") == "1":
  emit(waiting="solo")
  input()
  cpu = []
  solo = step(cpu)
  emit(waiting="together")
  input()
  emit(solo_step_ms=solo, solo_cpu_ms=cpu[0], together_step_ms=step(), steps=STEPS)
elif os.environ.get("LOCAL") == "1":
  local = stepper(jax.devices("cpu")[0])()
  proxy = step()
  emit(local_step_ms=local, proxy_step_ms=proxy, added_step_ms=proxy - local)
else:
  emit(proxy_step_ms=step())
