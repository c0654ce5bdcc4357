"""Runs one jit through the proxy server and prints its result as JSON."""

import json

import jax

jax.config.update("jax_enable_x64", True)
import pathwaysutils

pathwaysutils.initialize()
import jax.numpy as jnp

y = jax.jit(lambda x: x * 2 + 1)(jnp.arange(4, dtype=jnp.int32))
print(json.dumps({"result": [int(v) for v in y]}), flush=True)
