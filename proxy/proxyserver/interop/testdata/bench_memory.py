"""Host memory of the server during one large device_put and device_get.

Stops before the transfer, after the put, after the get and after the delete
({"waiting": step}), then after a put of the same array sharded over every
device (one host buffer a shard) and its delete, so the Go test can read its
own memory at each point.
BENCH_MEMORY_BYTES sets the array's size (the test passes it).
"""

import gc
import os

import numpy as np

from _common import emit, init

jax = init()

SIZE = int(os.environ["BENCH_MEMORY_BYTES"])


def pause(step):
  emit(waiting=step)
  input()


host = np.arange(SIZE, dtype=np.uint8)
pause("before")
a = jax.device_put(host, jax.devices()[0]).block_until_ready()
pause("put")
back = np.asarray(a)
pause("get")
same = bool(np.array_equal(back, host))
a.delete()
del a, back
gc.collect()
pause("deleted")
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
sharded = jax.device_put(host, jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x")))
sharded.block_until_ready()
pause("sharded put")
sharded.delete()
del sharded
gc.collect()
pause("sharded deleted")
emit(same=same)
