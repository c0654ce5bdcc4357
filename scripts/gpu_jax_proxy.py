"""A stock JAX program through the OpenPathways proxy server.

scripts/gpu_jax_proxy.sh starts a resource manager, one worker on a PJRT plugin
(the CUDA plugin on a GPU machine) and the proxy server, then runs this with
JAX_PLATFORMS=proxy, JAX_BACKEND_TARGET=grpc://<proxy> and
IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true. No pathwaysutils: the "proxy"
backend is registered here with jaxlib's own IFRT Proxy client, as
pathwaysutils.initialize() would.

It prints one "name: value" line per measurement, then "gpu_jax_proxy: ok",
or "gpu_jax_proxy: FAILED" and one line per failed check, and exits 1 then.

Environment:
  PATHWAYS_GPU_EXPECT        platform jax.devices() must show: gpu (default; the
                             CUDA plugin's "cuda", which JAX names gpu) or cpu
  PATHWAYS_GPU_DEVICES       how many devices it must show (default 1)
  PATHWAYS_GPU_MATMUL_N      size of the timed square f32 matmul (default 4096)
  PATHWAYS_GPU_REPS          timed runs of it through the proxy (default 20)
  PATHWAYS_GPU_NUMPY_REPS    timed runs of it in numpy on the host (default 5)
  PATHWAYS_GPU_TRANSFER_MIB  size of the device_put/device_get array (default 256)
"""

import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

EXPECT = os.environ.get("PATHWAYS_GPU_EXPECT", "gpu")
DEVICES = int(os.environ.get("PATHWAYS_GPU_DEVICES", "1"))
MATMUL_N = int(os.environ.get("PATHWAYS_GPU_MATMUL_N", "4096"))
REPS = int(os.environ.get("PATHWAYS_GPU_REPS", "20"))
NUMPY_REPS = int(os.environ.get("PATHWAYS_GPU_NUMPY_REPS", "5"))
TRANSFER_MIB = int(os.environ.get("PATHWAYS_GPU_TRANSFER_MIB", "256"))

failures = []


def report(name, value):
  print(f"{name}: {value}", flush=True)


def check(cond, what):
  if not cond:
    raise AssertionError(what)


def run(name, fn):
  """Runs one check; an exception fails it and the others still run."""
  t0 = time.perf_counter()
  try:
    fn()
  except Exception as e:  # pylint: disable=broad-except
    msg = f"{name}: {type(e).__name__}: {str(e)[:600]}"
    failures.append(msg)
    print(f"FAIL {msg}", flush=True)
  report(f"{name}_seconds", f"{time.perf_counter() - t0:.2f}")


def median_seconds(fn, reps):
  times = []
  for _ in range(reps):
    t0 = time.perf_counter()
    fn()
    times.append(time.perf_counter() - t0)
  return statistics.median(times)


def rel_err(got, want):
  got = np.asarray(got, np.float64)
  want = np.asarray(want, np.float64)
  return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))


t_start = time.perf_counter()
import jax  # noqa: E402
from jax.extend import backend as jax_backend  # noqa: E402
from jax.extend.backend import ifrt_proxy  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402


def _make_proxy_client():
  return ifrt_proxy.get_client(jax.config.read("jax_backend_target"), ifrt_proxy.ClientConnectionOptions())


jax_backend.register_backend_factory("proxy", _make_proxy_client, priority=-1, fail_quietly=False)
report("jax_version", f"{jax.__version__} (jaxlib {jaxlib.__version__})")
report("backend_target", jax.config.read("jax_backend_target"))

dev = None


def devices():
  global dev
  t0 = time.perf_counter()
  devs = jax.devices()
  report("connect_seconds", f"{time.perf_counter() - t0:.2f}")
  report("devices", devs)
  b = jax_backend.get_backend()
  report("backend", f"platform={b.platform} platform_version={b.platform_version!r}")
  dev = devs[0]
  report("device_platform", dev.platform)
  report("device_kind", dev.device_kind)
  check(len(devs) == DEVICES, f"{len(devs)} devices, want {DEVICES}")
  want = ("gpu", "cuda") if EXPECT == "gpu" else (EXPECT,)
  check(dev.platform in want, f"device platform {dev.platform!r}, want one of {want}")
  check(jax.default_backend() in want, f"default backend {jax.default_backend()!r}, want one of {want}")
  if EXPECT == "gpu":
    check(dev.device_kind and dev.device_kind.lower() != "cpu", f"device kind {dev.device_kind!r} is not a GPU's")


def small_jit():
  rng = np.random.default_rng(1)
  x = rng.standard_normal((64, 32), np.float32)
  y = rng.standard_normal((32, 16), np.float32)
  z = rng.standard_normal((64, 16), np.float32)

  def f(x, y, z):
    h = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
    return jnp.sin(h) * z + jnp.exp(-jnp.abs(h)), jnp.sum(h, axis=0)

  out, s = jax.jit(f)(x, y, z)
  h = x.astype(np.float64) @ y.astype(np.float64)
  want_out, want_s = np.sin(h) * z + np.exp(-np.abs(h)), h.sum(axis=0)
  check(out.devices() == {dev}, f"result on {out.devices()}, want {dev}")
  e1, e2 = rel_err(out, want_out), rel_err(s, want_s)
  report("small_jit_rel_err", f"{max(e1, e2):.2e}")
  check(e1 < 1e-5 and e2 < 1e-5, f"relative errors {e1:.2e}, {e2:.2e} vs numpy")
  check(out.dtype == jnp.float32 and out.shape == (64, 16), f"{out.dtype}{out.shape}")
  # A call's round trip through the proxy: a tiny jit, already compiled.
  inc = jax.jit(lambda v: v + 1)
  one = jax.device_put(np.float32(1), dev)
  inc(one).block_until_ready()
  lat = median_seconds(lambda: inc(one).block_until_ready(), 20)
  report("jit_call_latency_ms", f"{lat * 1e3:.3f}")


def matmul():
  n = MATMUL_N
  rng = np.random.default_rng(2)
  a = rng.standard_normal((n, n), np.float32)
  b = rng.standard_normal((n, n), np.float32)
  ad, bd = jax.device_put(a, dev), jax.device_put(b, dev)
  mm = jax.jit(lambda a, b: a @ b)
  c = mm(ad, bd).block_until_ready()
  mm(ad, bd).block_until_ready()
  proxy = median_seconds(lambda: mm(ad, bd).block_until_ready(), REPS)
  host = median_seconds(lambda: a @ b, NUMPY_REPS)
  flop = 2.0 * n**3
  report("matmul_shape", f"{n}x{n} f32 (default precision)")
  report("matmul_proxy_ms", f"{proxy * 1e3:.3f} (median of {REPS})")
  report("matmul_numpy_ms", f"{host * 1e3:.3f} (median of {NUMPY_REPS})")
  report("matmul_proxy_tflops", f"{flop / proxy / 1e12:.3f}")
  report("matmul_numpy_tflops", f"{flop / host / 1e12:.3f}")
  report("matmul_speedup_vs_numpy", f"{host / proxy:.2f}x")
  # Default precision may be TF32 on a GPU: compare loosely.
  want = a @ b
  e = rel_err(c, want)
  report("matmul_rel_err", f"{e:.2e}")
  check(e < 1e-2, f"relative error {e:.2e} vs numpy")
  # Full f32 (precision=HIGHEST), for comparison.
  mm_h = jax.jit(lambda a, b: jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST))
  c = mm_h(ad, bd).block_until_ready()
  mm_h(ad, bd).block_until_ready()
  highest = median_seconds(lambda: mm_h(ad, bd).block_until_ready(), REPS)
  e = rel_err(c, want)
  report("matmul_highest_proxy_ms", f"{highest * 1e3:.3f} (median of {REPS})")
  report("matmul_highest_proxy_tflops", f"{flop / highest / 1e12:.3f}")
  report("matmul_highest_rel_err", f"{e:.2e}")
  check(e < 1e-5, f"HIGHEST: relative error {e:.2e} vs numpy")


def transfer():
  n = TRANSFER_MIB * (1 << 20) // 4
  x = np.random.default_rng(3).standard_normal(n, dtype=np.float32)
  nbytes = x.nbytes

  def put():
    d = jax.device_put(x, dev)
    d.block_until_ready()
    return d

  d = put()
  check(np.array_equal(np.asarray(d), x), "device_get(device_put(x)) != x")
  d.delete()
  times = []
  for _ in range(3):
    t0 = time.perf_counter()
    d = put()
    times.append(time.perf_counter() - t0)
    d.delete()
  t_put = statistics.median(times)
  d = put()
  twice = jax.jit(lambda v: v * 2)
  times = []
  for _ in range(3):
    y = twice(d).block_until_ready()  # a fresh array, no host copy cached
    t0 = time.perf_counter()
    host = jax.device_get(y)
    times.append(time.perf_counter() - t0)
    check(np.array_equal(host, x * 2), "device_get(x * 2) differs from numpy")
    y.delete()
  t_get = statistics.median(times)
  d.delete()
  t_copy = median_seconds(lambda: np.copy(x), 3)
  report("transfer_bytes", f"{nbytes} ({TRANSFER_MIB} MiB f32)")
  report("device_put_gbytes_per_s", f"{nbytes / t_put / 1e9:.3f} ({t_put * 1e3:.1f} ms, median of 3)")
  report("device_get_gbytes_per_s", f"{nbytes / t_get / 1e9:.3f} ({t_get * 1e3:.1f} ms, median of 3)")
  report("numpy_copy_gbytes_per_s", f"{nbytes / t_copy / 1e9:.3f} ({t_copy * 1e3:.1f} ms, median of 3)")
  report("device_put_vs_np_copy", f"{t_copy / t_put:.3f}x")
  report("device_get_vs_np_copy", f"{t_copy / t_get:.3f}x")


def mlp():
  rng = np.random.default_rng(4)
  n, d_in, d_h, d_out, lr, steps = 128, 32, 64, 4, 0.1, 10
  x = rng.standard_normal((n, d_in), np.float32)
  y = rng.standard_normal((n, d_out), np.float32)
  init = {
      "w1": (rng.standard_normal((d_in, d_h)) / np.sqrt(d_in)).astype(np.float32),
      "b1": np.zeros(d_h, np.float32),
      "w2": (rng.standard_normal((d_h, d_out)) / np.sqrt(d_h)).astype(np.float32),
      "b2": np.zeros(d_out, np.float32),
  }

  def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

  def step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    return jax.tree.map(lambda w, gw: w - lr * gw, p, g), l

  with jax.default_matmul_precision("highest"):
    train = jax.jit(step, donate_argnums=0)
    params = jax.device_put(init, dev)
    xd, yd = jax.device_put(x, dev), jax.device_put(y, dev)
    losses = []
    for i in range(steps):
      old = params
      params, l = train(params, xd, yd)
      losses.append(float(l))
      if i == 0:
        donated = all(v.is_deleted() for v in jax.tree.leaves(old))
  got = jax.device_get(params)

  # numpy, float64, by hand.
  p = {k: v.astype(np.float64) for k, v in init.items()}
  want_losses = []
  for _ in range(steps):
    h = np.tanh(x @ p["w1"] + p["b1"])
    out = h @ p["w2"] + p["b2"]
    want_losses.append(np.mean((out - y) ** 2))
    d_o = 2 * (out - y) / out.size
    dh = (d_o @ p["w2"].T) * (1 - h**2)
    g = {"w2": h.T @ d_o, "b2": d_o.sum(0), "w1": x.T @ dh, "b1": dh.sum(0)}
    p = {k: p[k] - lr * g[k] for k in p}
  loss_err = float(np.max(np.abs(np.array(losses) - np.array(want_losses))))
  param_err = max(float(np.max(np.abs(got[k] - p[k]))) for k in p)
  report("mlp_losses", " ".join(f"{v:.6f}" for v in losses))
  report("mlp_loss_max_abs_err", f"{loss_err:.2e}")
  report("mlp_param_max_abs_err", f"{param_err:.2e}")
  report("mlp_params_donated", donated)
  check(losses[-1] < losses[0], f"loss did not fall: {losses[0]} -> {losses[-1]}")
  check(loss_err < 1e-4 and param_err < 1e-4, f"vs numpy: loss {loss_err:.2e}, params {param_err:.2e} (want < 1e-4)")
  check(donated, "the donated params were not deleted after the step")


_PRNG_REFERENCE = """
import json, jax, numpy as np
k = jax.random.key(42)
raw = jax.random.PRNGKey(7)
print(json.dumps({
  "normal": np.asarray(jax.jit(lambda k: jax.random.normal(k, (4096,)))(k)).tolist(),
  "bits": np.asarray(jax.jit(lambda k: jax.random.bits(jax.random.split(k)[1], (4096,)))(k)).tolist(),
  "raw_uniform": np.asarray(jax.jit(lambda k: jax.random.uniform(k, (1024,)))(raw)).tolist(),
}))
"""


def prng():
  k = jax.random.key(42)
  raw = jax.random.PRNGKey(7)
  normal = jax.jit(lambda k: jax.random.normal(k, (4096,)))
  got = {
      "normal": normal(k),
      "bits": jax.jit(lambda k: jax.random.bits(jax.random.split(k)[1], (4096,)))(k),
      "raw_uniform": jax.jit(lambda k: jax.random.uniform(k, (1024,)))(raw),
  }
  check(got["normal"].devices() == {dev}, f"result on {got['normal'].devices()}, want {dev}")
  again = np.asarray(normal(k))
  other = np.asarray(normal(jax.random.fold_in(k, 1)))
  g = {n: np.asarray(v) for n, v in got.items()}
  check(np.array_equal(g["normal"], again), "the same key gave different numbers")
  check(not np.allclose(g["normal"], other), "different keys gave the same numbers")
  mean, std = float(g["normal"].mean()), float(g["normal"].std())
  report("prng_normal_mean_std", f"{mean:.4f} {std:.4f}")
  check(abs(mean) < 0.1 and abs(std - 1) < 0.1, f"normal(4096): mean {mean}, std {std}")
  # The same program on this machine's local CPU backend, in a child process
  # (this one is JAX_PLATFORMS=proxy only).
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  env.pop("JAX_BACKEND_TARGET", None)
  ref = subprocess.run([sys.executable, "-c", _PRNG_REFERENCE], env=env, capture_output=True, text=True, timeout=120)
  check(ref.returncode == 0, f"local CPU reference failed: {ref.stderr[-600:]}")
  want = json.loads(ref.stdout.strip().splitlines()[-1])
  check(np.array_equal(g["bits"], np.array(want["bits"], np.uint32)), "random.bits differ from local CPU JAX")
  e_n = float(np.max(np.abs(g["normal"] - np.array(want["normal"], np.float32))))
  e_u = float(np.max(np.abs(g["raw_uniform"] - np.array(want["raw_uniform"], np.float32))))
  report("prng_bits_equal_local_cpu", True)
  report("prng_normal_max_abs_err_vs_local_cpu", f"{e_n:.2e}")
  report("prng_uniform_max_abs_err_vs_local_cpu", f"{e_u:.2e}")
  check(e_n < 1e-4 and e_u < 1e-6, f"vs local CPU JAX: normal {e_n:.2e}, uniform {e_u:.2e}")


run("devices", devices)
if dev is not None:
  run("small_jit", small_jit)
  run("matmul", matmul)
  run("transfer", transfer)
  run("mlp", mlp)
  run("prng", prng)
report("total_seconds", f"{time.perf_counter() - t_start:.2f}")
if failures:
  print("gpu_jax_proxy: FAILED", flush=True)
  for f in failures:
    print(f"  {f}", flush=True)
  sys.exit(1)
print("gpu_jax_proxy: ok", flush=True)
