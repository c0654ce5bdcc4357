"""What the colocated test scripts share: the start-up, one JSON object a line
for the Go test to read, a function that names its host, a counter class, and
the raising and the killed call.

Importing it initializes pathwaysutils. The sidecar cannot import this file,
so it is registered with cloudpickle by value: its functions and classes travel
as code, as those of the script itself do.
"""

import json
import os
import sys

import cloudpickle
import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top

cloudpickle.register_pickle_by_value(sys.modules[__name__])

NAME = 16


def emit(**kv):
  print(json.dumps(kv), flush=True)


def host_cpus():
  """One colocated CPU device per host, in host order."""
  return list(dict.fromkeys(cp.colocated_cpu_devices(jax.devices())))


def host_name():
  """PATHWAYS_HOST_NAME as NAME bytes (run in the sidecar)."""
  name = os.environ.get("PATHWAYS_HOST_NAME", "?").encode().ljust(NAME)[:NAME]
  return np.frombuffer(name, np.uint8).copy()


def decode_name(row):
  return bytes(np.asarray(row)).decode().strip()


@cp.colocated_python_class
class Counter:
  """Counts its calls; bump gives an array shaped like v, each element the count."""

  def __init__(self):
    self.n = 0

  def bump(self, v):
    self.n += 1
    return v * 0 + self.n


def emit_outcome(key, call):
  """Emits {key: "nothing"} when call returns, or {key: its error's text}."""
  try:
    call()
    emit(**{key: "nothing"})
  except Exception as e:  # pylint: disable=broad-exception-caught
    emit(**{key: str(e)})


@cp.colocated_python
def boom(v):
  raise ValueError(f"colocated boom on {v.shape}")


def emit_raised(x):
  """A function that raises, called on x: the user's exception as "raised"."""
  emit_outcome("raised", lambda: np.asarray(boom.specialize(out_specs_fn=lambda v: v)(x)))


def emit_killed(x, host):
  """A call on x during which the test kills host's sidecar, as "killed": on
  that host the function marks SIDECAR_TEST_MARK and sleeps."""

  @cp.colocated_python
  def slow(v):
    import time  # pylint: disable=g-import-not-at-top
    if os.environ.get("PATHWAYS_HOST_NAME") == host:
      open(os.environ["SIDECAR_TEST_MARK"], "w").close()
      time.sleep(600)
    return v

  emit_outcome("killed", lambda: np.asarray(slow.specialize(out_specs_fn=lambda v: v)(x)))
