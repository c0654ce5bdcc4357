"""The tiny step (jit of x*2+1, then device_get) and a step that donates its
argument, STEPS times, between two pauses, so that the Go test can count the
requests the steps caused."""

import os

import numpy as np

from _common import emit, init

jax = init()

STEPS = int(os.environ.get("STEPS", "20"))
f = jax.jit(lambda x: x * 2 + 1)
g = jax.jit(lambda y: y + 1, donate_argnums=0)
x = jax.device_put(np.arange(1024, dtype=np.float32), jax.devices()[0])
y = jax.device_put(np.zeros(1024, dtype=np.float32), jax.devices()[0])
for _ in range(3):
  jax.device_get(f(x))
  y = g(y)
emit(waiting="start")
input()
ok = True
for _ in range(STEPS):
  ok = ok and bool(np.array_equal(jax.device_get(f(x)), np.arange(1024, dtype=np.float32) * 2 + 1))
  y = g(y)
emit(waiting="end")
input()
ok = ok and bool(np.array_equal(np.asarray(y), np.full(1024, 3 + STEPS, dtype=np.float32)))
emit(correct=ok)
