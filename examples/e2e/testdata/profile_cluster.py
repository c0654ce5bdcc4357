"""Stock JAX takes a trace through the proxy (jax.profiler.start_trace and
stop_trace, patched by pathwaysutils) over two worker processes, asking for
both hosts (max_num_hosts=2; pathwaysutils asks for one by default), while a
jit runs on each slice and one program spans both (a gang)."""

import os
import tempfile

import numpy as np

import jax

import pathwaysutils

pathwaysutils.initialize()
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils import profiling
from pathwaysutils.elastic import elastic
from steps import emit, err

# The client's own trace (jax.profiler's, which pathwaysutils starts after the
# server's) goes to a local directory: this machine has no Cloud Storage.
local_dir = tempfile.mkdtemp()
_start = profiling._original_start_trace
profiling._original_start_trace = lambda log_dir, **kw: _start(local_dir, **kw)

devs = jax.devices()
by_slice = elastic.get_slice_to_devices(devs)
a = np.arange(len(devs) * 4, dtype=np.float32)


def scaled(x):
  return x * 3 + 1


jax.profiler.start_trace(os.environ["PROFILE_LOCATION"], max_num_hosts=2)
results = {}
for name, mesh_devs in [("slice0", by_slice[0]), ("slice1", by_slice[1]), ("both", devs)]:
  mesh = Mesh(np.array(mesh_devs), ("d",))
  n = mesh.devices.size * 4
  y = jax.jit(scaled)(jax.device_put(a[:n], NamedSharding(mesh, P("d"))))
  results[name] = bool(np.allclose(np.asarray(y), a[:n] * 3 + 1))
jax.profiler.stop_trace()
emit(results=results)

# A trace asking for a negative number of hosts fails to start.
try:
  jax.profiler.start_trace(os.environ["PROFILE_LOCATION"], max_num_hosts=-1)
  emit(negative_hosts="started")
except Exception as e:  # pylint: disable=broad-except
  emit(negative_hosts=err(e))
