"""shard_map with collectives over a mesh of every proxy device, compared with
numpy and with the same code on local CPU JAX (JAX_PLATFORMS=proxy,cpu with
as many local CPU devices): psum, pmax, all_gather, ppermute, psum_scatter,
all_to_all and axis_index over a 1-D mesh of all devices and a 2-D one, with
sharded and numpy arguments, and a shard_map between global ops; and pmap's
psum of 64 KiB a device, once and six times dispatched before any is read.

Prints {"numpy_err": {name: largest difference from numpy}, "cpu_err": {name:
largest difference from local CPU JAX}, "shards_ok": {name: whether each
device holds its block of the result, as the result's sharding says}}, each
difference relative to max(1, |expected|)."""

import numpy as np

import _common

jax = _common.init()
from jax import lax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

proxy_devs = jax.devices()
cpu_devs = jax.devices("cpu")
n = len(proxy_devs)
if n < 4 or n % 2:
  _common.fail(f"{n} proxy devices; the meshes need an even number, at least 4")
if len(cpu_devs) < n:
  _common.fail(f"{len(cpu_devs)} local CPU devices for {n} proxy devices: set XLA_FLAGS=--xla_force_host_platform_device_count={n}")
cpu_devs = cpu_devs[:n]

rng = np.random.default_rng(5)
a = rng.standard_normal((4 * n, 3)).astype(np.float32)
b = rng.standard_normal((4, 2 * n)).astype(np.float32)
c = rng.standard_normal((n * n, 3)).astype(np.float32)
ints = rng.integers(-100, 100, (2 * n,)).astype(np.int32)
d = rng.standard_normal((n, 128, 128)).astype(np.float32)
ring = [(k, (k + 1) % n) for k in range(n)]
half = n // 2  # the 2-D mesh is 2 x half


def programs(devs):
  m1 = Mesh(np.array(devs), ("x",))
  m2 = Mesh(np.array(devs).reshape(2, half), ("x", "y"))
  sm = jax.shard_map
  put = lambda x, mesh, spec: jax.device_put(x, NamedSharding(mesh, spec))
  out = {}
  out["psum"] = jax.jit(sm(lambda x: lax.psum(x, "x"), mesh=m1, in_specs=P("x"), out_specs=P()))(put(a, m1, P("x")))
  out["pmax_numpy_argument"] = jax.jit(sm(lambda x: lax.pmax(x, "x"), mesh=m1, in_specs=P("x"), out_specs=P()))(a)
  out["psum_int"] = jax.jit(sm(lambda x: lax.psum(x, "x"), mesh=m1, in_specs=P("x"), out_specs=P()))(put(ints, m1, P("x")))
  out["all_gather"] = jax.jit(sm(lambda x: lax.all_gather(x, "x", tiled=True), mesh=m1, in_specs=P("x"),
                                 out_specs=P(), check_vma=False))(put(a, m1, P("x")))
  out["ppermute"] = jax.jit(sm(lambda x: lax.ppermute(x, "x", ring), mesh=m1, in_specs=P("x"),
                               out_specs=P("x")))(put(a, m1, P("x")))
  out["psum_scatter"] = jax.jit(sm(lambda x: lax.psum_scatter(x, "x", tiled=True), mesh=m1, in_specs=P("x"),
                                   out_specs=P("x")))(put(c, m1, P("x")))
  out["all_to_all"] = jax.jit(sm(lambda x: lax.all_to_all(x, "x", 0, 1, tiled=True), mesh=m1, in_specs=P("x"),
                                 out_specs=P("x")))(put(c, m1, P("x")))
  out["axis_index"] = jax.jit(sm(lambda x: x + lax.axis_index("x") * 100.0 + lax.axis_index("y"), mesh=m2,
                                 in_specs=P("x", "y"), out_specs=P("x", "y")))(put(b, m2, P("x", "y")))
  sums = jax.jit(sm(lambda x: (lax.psum(x, "x"), lax.psum(x, "y"), lax.psum(x, ("x", "y"))), mesh=m2,
                    in_specs=P("x", "y"), out_specs=(P(None, "y"), P("x"), P())))(put(b, m2, P("x", "y")))
  out["psum_2d_x"], out["psum_2d_y"], out["psum_2d_xy"] = sums
  out["between_global_ops"] = jax.jit(
      lambda x: jnp.tanh(sm(lambda y: lax.psum(y * 2, "x"), mesh=m1, in_specs=P("x"), out_specs=P())(x + 1)) - 1)(
          put(a, m1, P("x")))
  pm = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", devices=devs)
  out["pmap_psum"] = pm(d)
  queued = [pm(d + k) for k in range(6)]
  out["pmap_psum_queued"] = queued[-1]
  return out


def blocks(x):
  return x.reshape(n, -1, *x.shape[1:])


expected = {
    "psum": blocks(a).sum(0),
    "pmax_numpy_argument": blocks(a).max(0),
    "psum_int": blocks(ints).sum(0),
    "all_gather": a,
    "ppermute": np.roll(blocks(a), 1, axis=0).reshape(a.shape),
    "psum_scatter": blocks(c).sum(0),
    "all_to_all": blocks(c).transpose(1, 0, 2).reshape(n, 3 * n),
    "axis_index": b + 100.0 * (np.arange(4) // 2)[:, None] + (np.arange(2 * n) // 4)[None, :],
    "psum_2d_x": b[:2] + b[2:],
    "psum_2d_y": b.reshape(4, half, 4).sum(1),
    "psum_2d_xy": b.reshape(2, 2, half, 4).sum((0, 2)),
    "between_global_ops": np.tanh(blocks((a + 1) * 2).sum(0)) - 1,
    "pmap_psum": np.broadcast_to(d.sum(0), d.shape),
    "pmap_psum_queued": np.broadcast_to((d + 5).sum(0), d.shape),
}


def max_err(got, want):
  got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
  if got.shape != want.shape:
    return float("inf")
  return float(np.max(np.abs(got - want) / np.maximum(1, np.abs(want)), initial=0))


def shards_ok(x):
  """Each device holds the block of x its sharding assigns it."""
  whole = np.asarray(x)
  return len(x.addressable_shards) == n and all(
      np.array_equal(np.asarray(s.data), whole[s.index]) for s in x.addressable_shards)


proxy = programs(proxy_devs)
cpu = programs(cpu_devs)
_common.emit(numpy_err={k: max_err(v, expected[k]) for k, v in proxy.items()},
             cpu_err={k: max_err(v, cpu[k]) for k, v in proxy.items()},
             shards_ok={k: shards_ok(v) for k, v in proxy.items()},
             shardings={k: str(v.sharding.spec) for k, v in proxy.items()})
