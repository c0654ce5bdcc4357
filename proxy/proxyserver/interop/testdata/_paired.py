"""Runs the same workloads on the proxy's devices and on as many local CPU
devices (JAX_PLATFORMS=proxy,cpu) and compares what they return: by value
(relative to the values' size), shape, dtype, weak type and sharding spec.

A workload is a function of (devices, mesh) returning a dict of name to a
pytree of results, or to a thunk for attempt(): a failing thunk fails its own
case, not the group. Import it after _common.init().
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import mesh_utils
from jax.sharding import Mesh

import _common


class Failed:
  def __init__(self, e):
    self.msg = f"{type(e).__name__}: {str(e)[:400]}"


def attempt(thunk):
  try:
    return jax.block_until_ready(thunk())
  except Exception as e:  # pylint: disable=broad-except
    return Failed(e)


def host(tree):
  def one(v):
    if isinstance(v, jax.Array) and jnp.issubdtype(v.dtype, jax.dtypes.prng_key):
      v = jax.random.key_data(v)
    if isinstance(v, jax.Array):
      return (np.asarray(v), str(v.dtype), v.weak_type, repr(getattr(v.sharding, "spec", None)))
    return (np.asarray(v), str(np.asarray(v).dtype), None, None)
  return jax.tree.map(one, tree)


def compare(g, w):
  """The largest difference of g from w relative to the values' size, or a
  message saying how their structure, dtypes or shardings differ."""
  gl, gt = jax.tree.flatten(g)
  wl, wt = jax.tree.flatten(w)
  if gt != wt:
    return f"tree {gt} vs {wt}"
  worst = 0.0
  for (ga, gd, gw, gs), (wa, wd, ww, ws) in zip(zip(*[iter(gl)] * 4), zip(*[iter(wl)] * 4)):
    if ga.shape != wa.shape or gd != wd or gw != ww or gs != ws:
      return f"{gd}{ga.shape} weak={gw} {gs} vs {wd}{wa.shape} weak={ww} {ws}"
    if ga.size:
      d = np.abs(ga.astype(np.float64) - wa.astype(np.float64))
      if np.isnan(ga.astype(np.float64)).any() or np.isnan(wa.astype(np.float64)).any():
        if not np.array_equal(np.isnan(ga.astype(np.float64)), np.isnan(wa.astype(np.float64))):
          return "NaNs differ"
        d = np.nan_to_num(d)
      # Relative to the values' size: sums in another order differ in the last bits.
      scale = max(1.0, float(np.nan_to_num(np.abs(wa.astype(np.float64))).max()))
      worst = max(worst, float(d.max()) / scale)
  return worst


def device_sets(axes=("a", "b")):
  """The proxy's devices and as many local CPU devices, each with a 2 × n/2
  mesh. Where the devices span two slices the mesh is made as multislice
  users make theirs, by mesh_utils.create_hybrid_device_mesh with the slices
  along the first axis; elsewhere (local CPU devices are one granule) the
  devices are reshaped, which gives the same order."""
  proxy, cpu = _common.paired_devices(jax)
  n = len(proxy)

  def grid(devs):
    if len({getattr(d, "slice_index", 0) for d in devs}) == 2:
      return mesh_utils.create_hybrid_device_mesh((1, n // 2), (2, 1), devices=devs)
    return np.array(devs).reshape(2, n // 2)

  return {name: (devs, Mesh(grid(devs), axes)) for name, devs in (("proxy", proxy), ("cpu", cpu))}


def run(workloads, sets):
  """Runs each workload on the local CPU devices, then on the proxy's, and
  returns {case: error relative to the values' size, or a message}."""
  cases = {}
  for fn in workloads:
    res = {}
    # Local CPU first: once the proxy's session is lost, every later call fails.
    for name in ("cpu", "proxy"):
      devs, mesh = sets[name]
      try:
        res[name] = fn(devs, mesh)
      except Exception as e:  # pylint: disable=broad-except
        res[name] = e
    if isinstance(res["cpu"], Exception):
      _common.fail(f"{fn.__name__} fails on local CPU JAX: {res['cpu']!r}")
    if isinstance(res["proxy"], Exception):
      # A failure outside attempt() fails the whole group: report it under its name.
      cases[fn.__name__] = f"{type(res['proxy']).__name__}: {str(res['proxy'])[:400]}"
      continue
    for k, w in res["cpu"].items():
      if isinstance(w, Failed):
        _common.fail(f"{k} fails on local CPU JAX: {w.msg}")
      if isinstance(res["proxy"][k], Failed):
        cases[k] = res["proxy"][k].msg
        continue
      try:
        cases[k] = compare(host(res["proxy"][k]), host(w))
      except Exception as e:  # pylint: disable=broad-except
        cases[k] = f"{type(e).__name__}: {str(e)[:400]}"
  return cases
