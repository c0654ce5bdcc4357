"""jit through the proxy, compared with local CPU JAX: elementwise ops,
matmul, reductions, a sharded matmul with out_shardings, donation and
block_until_ready.

Run with JAX_PLATFORMS=proxy,cpu: the proxy is the default backend and the
local CPU backend computes the reference. (With JAX_PLATFORMS=cpu and 8 host
devices the script checks itself.)"""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

devs = jax.devices()
cpu = jax.devices("cpu")[0]
rng = np.random.default_rng(1)
errors = {}


def check(name, fn, *args, **jit_kwargs):
  """Runs jit(fn) on the proxy and on local CPU; records the max abs error."""
  got = jax.jit(fn, **jit_kwargs)(*[jax.device_put(a, devs[0]) for a in args])
  want = jax.jit(fn)(*[jax.device_put(a, cpu) for a in args])
  got, want = jax.device_get(got), jax.device_get(want)
  errors[name] = float(np.max(np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))))


x = rng.standard_normal((16, 32)).astype(np.float32)
y = rng.standard_normal((32, 8)).astype(np.float32)
check("elementwise", lambda a: jnp.sin(a) * 2 + jnp.exp(-a * a) - 1, x)
check("integer", lambda a: (a * 3 + 7) // 2 % 5, np.arange(64, dtype=np.int32))
check("matmul", lambda a, b: a @ b, x, y)
check("sum", lambda a: jnp.sum(a, axis=0), x)
check("max", lambda a: jnp.max(a, axis=1), x)
check("mean", lambda a: jnp.mean(a), x)
check("softmax", lambda a: jax.nn.softmax(a, axis=-1), x)

# A sharded matmul over a 2x4 mesh with explicit output shardings.
mesh = Mesh(np.array(devs[:8]).reshape(2, 4), ("x", "y"))
a = rng.standard_normal((8, 16)).astype(np.float32)
b = rng.standard_normal((16, 12)).astype(np.float32)
a_s = jax.device_put(a, NamedSharding(mesh, P("x", None)))
b_s = jax.device_put(b, NamedSharding(mesh, P(None, "y")))
out_sharding = NamedSharding(mesh, P("x", "y"))
c = jax.jit(lambda p, q: p @ q, out_shardings=out_sharding)(a_s, b_s)
errors["sharded_matmul"] = float(np.max(np.abs(np.asarray(c) - a @ b)))
_common.emit(sharded_out=str(c.sharding.spec), sharded_shards=len(c.addressable_shards))
errors["sharded_matmul_vs_cpu"] = float(np.max(np.abs(
    np.asarray(c) - np.asarray(jax.jit(lambda p, q: p @ q)(jax.device_put(a, cpu), jax.device_put(b, cpu))))))

# Donation: the donated input is deleted, the result is right.
d = jax.device_put(np.ones((4, 4), np.float32), devs[0])
r = jax.jit(lambda v: v * 3, donate_argnums=0)(d)
r.block_until_ready()
_common.emit(donated_deleted=d.is_deleted(), donated_result=float(np.asarray(r)[0, 0]))

# block_until_ready and a chain of dependent dispatches.
z = jax.device_put(np.zeros(8, np.float32), devs[0])
step = jax.jit(lambda v: v + 1)
for _ in range(10):
  z = step(z)
z.block_until_ready()
_common.emit(chained=np.asarray(z).tolist())

_common.emit(errors=errors)
