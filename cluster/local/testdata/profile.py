"""Takes a trace through the proxy with jax.profiler.start_trace/stop_trace
(pathwaysutils' profiling: the server traces, the client too) around a jit."""

import json
import os
import tempfile

import jax

import pathwaysutils

pathwaysutils.initialize()
import jax.numpy as jnp
from pathwaysutils import profiling

# The client's own trace (jax.profiler's, which pathwaysutils starts after the
# server's) goes to a local directory: this machine has no Cloud Storage.
local_dir = tempfile.mkdtemp()
_start, _stop = profiling._original_start_trace, profiling._original_stop_trace
profiling._original_start_trace = lambda log_dir, **kw: _start(local_dir, **kw)

location = os.environ["PROFILE_LOCATION"]


def scaled(x):
  return x * 3 + 1


jax.profiler.start_trace(location)
y = jax.jit(scaled)(jnp.arange(8, dtype=jnp.float32))
y.block_until_ready()
jax.profiler.stop_trace()
print(json.dumps({"result": [float(v) for v in y]}), flush=True)
