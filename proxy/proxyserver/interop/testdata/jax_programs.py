"""Stock JAX programs through the proxy, compared with local CPU JAX
(JAX_PLATFORMS=proxy,cpu): jit, grad, lax.scan, fori_loop, jax.random,
argsort, cumsum, donation, and a 30-step data-parallel MLP whose batch is
sharded over PATHWAYS_DP_DEVICES devices (default: all).

Prints {"errors": {name: largest difference from CPU, relative to
max(1, |CPU value|)}}, the donation checks,
and {"dp": {...}} or {"dp_error": {"type", "message"}}."""

import os

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

devs = jax.devices()
cpu = jax.devices("cpu")[0]
rng = np.random.default_rng(3)
errors = {}


def max_err(got, want):
  """The largest difference, relative to max(1, |want|)."""
  got, want = jax.tree.leaves(jax.device_get(got)), jax.tree.leaves(jax.device_get(want))
  err = 0.0
  for g, w in zip(got, want):
    g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
    err = max(err, float(np.max(np.abs(g - w) / np.maximum(1, np.abs(w)), initial=0)))
  return err


def check(name, fn, *args):
  """Runs jit(fn) on the proxy's first device and on local CPU."""
  on = lambda d: jax.jit(fn)(*[jax.device_put(a, d) for a in args])
  errors[name] = max_err(on(devs[0]), on(cpu))


x = rng.standard_normal((8, 16)).astype(np.float32)
w = rng.standard_normal((16, 4)).astype(np.float32)
check("jit", lambda a, b: jnp.tanh(a @ b) * 2 - jnp.exp(-a.sum()), x, w)
check("grad", jax.grad(lambda b, a: jnp.sum(jnp.sin(0.25 * (a @ b)) ** 2)), w, x)
check("scan", lambda a: lax.scan(lambda c, r: (c * 0.9 + r, jnp.dot(c, r)), jnp.zeros(16, jnp.float32), a), x)
check("fori_loop", lambda a: lax.fori_loop(0, 7, lambda i, c: c * 1.1 + jnp.sin(c + i), a), x)
check("argsort", lambda a: jnp.argsort(a, axis=1), x)
check("cumsum", lambda a: (jnp.cumsum(a, axis=0), jnp.cumprod(a[:, :3] * 0.5, axis=1)), x)


def random_draws(seed):
  k1, k2 = jax.random.split(jax.random.key(seed))
  return (jax.random.normal(k1, (5, 7)), jax.random.uniform(k2, (9,)),
          jax.random.permutation(k2, 10), jax.random.bernoulli(k1, 0.3, (6,)))


with jax.default_device(devs[0]):
  proxy_draws = random_draws(7)
with jax.default_device(cpu):
  cpu_draws = random_draws(7)
errors["random"] = max_err(proxy_draws, cpu_draws)

# Donation: the donated argument is deleted and the result is right.
d = jax.device_put(np.full((4, 4), 2, np.float32), devs[0])
r = jax.jit(lambda v, u: v * u + 1, donate_argnums=0)(d, jax.device_put(np.float32(3), devs[0]))
_common.emit(donated_deleted=d.is_deleted(), donated_result=float(np.asarray(r)[0, 0]))


# A data-parallel MLP: the batch is split over a mesh, the parameters are
# replicated, and the gradient step is one SPMD program.
def init_params(key):
  k1, k2 = jax.random.split(key)
  return {"w1": jax.random.normal(k1, (8, 32), jnp.float32) * 0.3, "b1": jnp.zeros((32,), jnp.float32),
          "w2": jax.random.normal(k2, (32, 1), jnp.float32) * 0.3, "b2": jnp.zeros((1,), jnp.float32)}


def loss_fn(params, xb, yb):
  h = jnp.tanh(xb @ params["w1"] + params["b1"])
  return jnp.mean((h @ params["w2"] + params["b2"] - yb) ** 2)


def sgd_step(params, xb, yb):
  loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
  return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


xd = rng.standard_normal((64, 8)).astype(np.float32)
yd = np.sin(xd.sum(axis=1, keepdims=True)).astype(np.float32)
with jax.default_device(cpu):
  params0 = jax.device_get(init_params(jax.random.key(0)))


def train(params, xb, yb, step):
  losses = []
  for _ in range(30):
    params, loss = step(params, xb, yb)
    losses.append(float(loss))
  return jax.device_get(params), losses


n = int(os.environ.get("PATHWAYS_DP_DEVICES", len(devs)))
mesh = Mesh(np.array(devs[:n]), ("data",))
batch, replicated = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
try:
  dp_step = jax.jit(sgd_step, in_shardings=(replicated, batch, batch), out_shardings=(replicated, replicated))
  p_dp, l_dp = train(jax.device_put(params0, replicated), jax.device_put(xd, batch), jax.device_put(yd, batch), dp_step)
  p_cpu, l_cpu = train(jax.device_put(params0, cpu), jax.device_put(xd, cpu), jax.device_put(yd, cpu), jax.jit(sgd_step))
  _common.emit(dp={"devices": n, "param_err": max_err(p_dp, p_cpu), "loss_err": max(abs(a - b) for a, b in zip(l_dp, l_cpu)),
                   "decreased": l_dp[-1] < l_dp[0]})
except Exception as e:  # reported to the Go test, which knows the backends' limits
  _common.emit(dp_error={"type": type(e).__name__, "message": str(e)[:500]})

_common.emit(errors=errors)
