"""Real JAX against a cluster whose slice 1 is suspended between two steps:
its worker gets SIGTERM with a preemption notice, saves its arrays and
leaves; a replacement registers and the slice resumes. The script does
nothing about it: its arrays and its jitted step work as before."""

import numpy as np

import jax
import jax.numpy as jnp

import pathwaysutils

pathwaysutils.initialize()
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from steps import emit, err, wait_for_go


by_slice = elastic.get_slice_to_devices(jax.devices())
mesh = Mesh(np.array(by_slice[1]), ("d",))
a = np.arange(16, dtype=np.float32)
b = (np.arange(6, dtype=np.float32) / 3).astype(jnp.bfloat16)
c = np.arange(8, dtype=np.int32).reshape(4, 2)
x = jax.device_put(a, NamedSharding(mesh, P("d")))
w = jax.device_put(b, NamedSharding(mesh, P()))
k = jax.device_put(c, NamedSharding(mesh, P("d")))


@jax.jit
def step(x, w):
  return x * 2 + jnp.sum(w.astype(jnp.float32))


y = step(x, w)
want = a * 2 + np.sum(b.astype(np.float32))
emit(step1=bool(np.array_equal(np.asarray(y), want)))

wait_for_go("suspended_and_resumed")
try:
  emit(x_after=bool(np.array_equal(np.asarray(x), a)))
  emit(w_after=bool(np.asarray(w).tobytes() == b.tobytes()))
  emit(k_after=bool(np.array_equal(np.asarray(k), c)))
  emit(y_after=bool(np.array_equal(np.asarray(y), want)))
  emit(step2=bool(np.array_equal(np.asarray(step(y, w)), want * 2 + np.sum(b.astype(np.float32)))))
except jax.errors.JaxRuntimeError as e:
  emit(failed=err(e))
emit(done=True)
