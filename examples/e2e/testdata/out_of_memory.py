"""Real JAX against gocpu workers whose memory limit (GOMEMLIMIT) is 600 MiB:
arrays kept one after another until one does not fit; that one fails with
RESOURCE_EXHAUSTED, and the session goes on."""

import jax
import jax.numpy as jnp

import pathwaysutils

pathwaysutils.initialize()
from steps import emit, err


kept = []
try:
  for i in range(20):  # 200 MB each: the limit is reached by the fourth
    kept.append(jax.jit(lambda i: jnp.full((50_000_000,), i, jnp.float32))(i))
    jax.block_until_ready(kept[-1])
  emit(refused=None)
except Exception as e:  # pylint: disable=broad-except
  emit(refused=err(e))
emit(kept=len(kept), first=float(kept[0][7]))
del kept
emit(after=float(jax.jit(lambda x: x + 1)(jnp.float32(1))))
