"""A few jit programs, for the compilation cache test: the same on every run."""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp

x = jax.device_put(np.arange(64, dtype=np.float32).reshape(8, 8), jax.devices()[0])
y = jax.jit(lambda a: a * 2.0 + 1.0)(x)
z = jax.jit(lambda a: jnp.tanh(a @ a.T).sum(axis=0))(y)
_common.emit(y=np.asarray(y).tolist(), z=np.asarray(z).tolist())
