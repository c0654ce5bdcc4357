"""What a JAX user asks of a compiled program and of pathwaysutils through
the proxy: compiled.as_text(), cost_analysis() and memory_analysis() (with
COMPILES=1, on a backend that compiles JAX's programs), and pathwaysutils.experimental.reshard
(the "reshardRequest" plugin program) between device sets, with and without
donation."""

import os

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.experimental import reshard as experimental_reshard

if os.environ.get("COMPILES") == "1":
  compiled = jax.jit(lambda a: jnp.sin(a) @ a.T).lower(jnp.ones((4, 4))).compile()
  text = compiled.as_text()
  cost = compiled.cost_analysis()
  mem = compiled.memory_analysis()
  _common.emit(text=text if isinstance(text, str) else repr(text),
               cost=None if cost is None else sorted(cost) if isinstance(cost, dict) else repr(cost),
               memory=None if mem is None else [mem.argument_size_in_bytes, mem.output_size_in_bytes])

devs = jax.devices()
half = len(devs) // 2
first = Mesh(np.array(devs[:half]), ("x",))
second = Mesh(np.array(devs[half:]), ("x",))
a = np.arange(4.0 * half, dtype=np.float32)
x = jax.device_put(a, NamedSharding(first, P("x")))
y = experimental_reshard.reshard(x, NamedSharding(second, P()))
z = experimental_reshard.reshard(x, NamedSharding(second, P("x")), donate=True)
_common.emit(
    reshard_copy=bool(np.array_equal(np.asarray(y), a)) and set(y.sharding.device_set) == set(devs[half:]),
    reshard_donated=bool(np.array_equal(np.asarray(z), a)) and x.is_deleted(),
    reshard_kept=bool(np.array_equal(np.asarray(y), a)))
