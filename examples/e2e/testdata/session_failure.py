"""Real JAX against the cluster of processes with the proxy server's default
--num_elastic_instances=0: losing a worker ends this JAX session. The test
kills the worker of slice 1 while the script waits on stdin; the script then
reports what its next requests get."""

import sys

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils.elastic import elastic
from steps import emit, err


devs = jax.devices()
by_slice = elastic.get_slice_to_devices(devs)
a = np.arange(16, dtype=np.float32)
mesh = Mesh(np.array(by_slice[0]), ("d",))
x = jax.device_put(a, NamedSharding(mesh, P("d")))
emit(before=bool(np.array_equal(np.asarray(x), a)))

emit(waiting="killed")
sys.stdin.readline()

# The loss ends the session: requests fail, those on the healthy slice too.
for attempt in range(100):
  try:
    y = jax.device_put(a, NamedSharding(mesh, P("d")))
    np.asarray(y)
  except Exception as e:  # pylint: disable=broad-except
    emit(after_loss=err(e))
    break
  import time
  time.sleep(0.1)
else:
  emit(after_loss="no error")
