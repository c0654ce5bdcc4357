"""Shared set-up of the interop scripts: connect JAX to the server under test.

The Go test sets JAX_PLATFORMS=proxy, JAX_BACKEND_TARGET and
IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS; pathwaysutils.initialize() registers
the "proxy" backend. Scripts print one JSON object per line on stdout, which
the Go test reads.
"""

import json
import sys


def init():
  import os

  import jax

  # 64-bit types unless the test asks for JAX's default (INTEROP_X64=0), as
  # most users run it.
  if os.environ.get("INTEROP_X64", "1") != "0":
    jax.config.update("jax_enable_x64", True)
  import pathwaysutils

  pathwaysutils.initialize()
  return jax


def paired_devices(jax):
  """The proxy's devices and as many local CPU devices, to run the same code on."""
  proxy = jax.devices()
  cpu = jax.devices("cpu")
  n = len(proxy)
  if len(cpu) < n:
    fail(f"{len(cpu)} local CPU devices for {n} proxy devices: set XLA_FLAGS=--xla_force_host_platform_device_count={n}")
  return proxy, cpu[:n]


def emit(**kv):
  print(json.dumps(kv), flush=True)


def fail(msg):
  emit(fatal=msg)
  sys.exit(1)
