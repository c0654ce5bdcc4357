"""Step and transfer figures of the proxy against local CPU JAX, in one process.

JAX_PLATFORMS=proxy,cpu gives this process both the server under test and
jaxlib's own CPU backend, so every figure has its baseline from the same run:
the tiny step (jit of x*2+1 on f32[1024], then device_get) against the same
step on local CPU, and 64 MiB device_put / device_get against np.copy of the
same array. Each transfer also reports the CPU time the client (this process,
jaxlib's threads included) and the server (the parent process) spent on it:
a client busy for as long as the transfer took caps it, whatever the server
does. Medians; prints one JSON object.
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


def server_cpu_s():
  """CPU time of the server under test: this script's parent, the Go test."""
  try:
    with open(f"/proc/{os.getppid()}/stat") as f:
      fields = f.read().rsplit(")", 1)[1].split()
  except OSError:
    return float("nan")
  return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Costs:
  """Wall, client CPU (this process, all threads) and server CPU of a step."""

  def __init__(self):
    self.wall, self.client, self.server = [], [], []

  def measure(self, f):
    w, c, s = time.perf_counter(), time.process_time(), server_cpu_s()
    out = f()
    self.wall.append(time.perf_counter() - w)
    self.client.append(time.process_time() - c)
    self.server.append(server_cpu_s() - s)
    return out

  def medians(self):
    # The first run warms up; server CPU comes in clock ticks, so its mean.
    return (statistics.median(self.wall[1:]), statistics.median(self.client[1:]),
            statistics.mean(self.server[1:]))


def transfer_s(device, host):
  put, get = Costs(), Costs()
  for _ in range(REPEATS + 1):
    a = put.measure(lambda: jax.device_put(host, device).block_until_ready())
    back = get.measure(lambda: np.asarray(a))
    if not np.array_equal(back, host):
      raise SystemExit("the 64 MiB round trip is not bit-exact")
    a.delete()
  return put.medians(), get.medians()


proxy = jax.devices()[0]
local = jax.devices("cpu")[0]
host = np.random.default_rng(0).integers(0, 255, SIZE, dtype=np.uint8)
copies = Costs()
for _ in range(REPEATS + 1):
  copies.measure(lambda: np.copy(host))
copy, copy_cpu, _ = copies.medians()
local_step, proxy_step = step_s(local), step_s(proxy)
(put, put_client, put_server), (get, get_client, get_server) = transfer_s(proxy, host)
emit(
    local_step_ms=local_step * 1e3,
    proxy_step_ms=proxy_step * 1e3,
    added_step_ms=(proxy_step - local_step) * 1e3,
    copy_gbps=SIZE / copy / 1e9,
    put_gbps=SIZE / put / 1e9,
    get_gbps=SIZE / get / 1e9,
    put_vs_copy=copy / put,
    get_vs_copy=copy / get,
    copy_cpu_ms=copy_cpu * 1e3,
    put_client_cpu_ms=put_client * 1e3,
    put_server_cpu_ms=put_server * 1e3,
    get_client_cpu_ms=get_client * 1e3,
    get_server_cpu_ms=get_server * 1e3,
    put_ms=put * 1e3,
    get_ms=get * 1e3,
)
