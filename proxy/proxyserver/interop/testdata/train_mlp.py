"""A 20-step SGD loop training a small MLP through the proxy, compared with
the same loop on local CPU JAX (JAX_PLATFORMS=proxy,cpu)."""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp

proxy_dev = jax.devices()[0]
cpu = jax.devices("cpu")[0]


def init_params(key):
  k1, k2 = jax.random.split(key)
  return {
      "w1": jax.random.normal(k1, (8, 32), jnp.float32) * 0.3,
      "b1": jnp.zeros((32,), jnp.float32),
      "w2": jax.random.normal(k2, (32, 1), jnp.float32) * 0.3,
      "b2": jnp.zeros((1,), jnp.float32),
  }


def loss_fn(params, x, y):
  h = jnp.tanh(x @ params["w1"] + params["b1"])
  pred = h @ params["w2"] + params["b2"]
  return jnp.mean((pred - y) ** 2)


@jax.jit
def sgd_step(params, x, y):
  loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
  return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


rng = np.random.default_rng(2)
x = rng.standard_normal((64, 8)).astype(np.float32)
y = np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)
with jax.default_device(cpu):
  params0 = jax.device_get(init_params(jax.random.key(0)))


def train(device):
  params = jax.device_put(params0, device)
  xd, yd = jax.device_put(x, device), jax.device_put(y, device)
  losses = []
  for _ in range(20):
    params, loss = sgd_step(params, xd, yd)
    losses.append(float(loss))
  return jax.device_get(params), losses


p_proxy, l_proxy = train(proxy_dev)
p_cpu, l_cpu = train(cpu)
param_err = max(float(np.max(np.abs(p_proxy[k] - p_cpu[k]))) for k in p_cpu)
loss_err = max(abs(a - b) for a, b in zip(l_proxy, l_cpu))
_common.emit(losses=l_proxy, param_err=param_err, loss_err=loss_err,
             decreased=l_proxy[-1] < l_proxy[0])
