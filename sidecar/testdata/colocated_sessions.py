"""One of two JAX clients of a cluster, each with its own colocated counter.

Prints one JSON object per line: the counter on each host after each of
`--bumps` calls ("counts"); then, with `--wait`, reads a line from stdin
(the test sends it once the other client is gone) and bumps once more
("after").
"""

import argparse
import json
import sys

import jax
import pathwaysutils

pathwaysutils.initialize()

from jax.experimental import colocated_python as cp  # pylint: disable=g-import-not-at-top
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top

args = argparse.ArgumentParser()
args.add_argument("--bumps", type=int, required=True)
args.add_argument("--wait", action="store_true")
flags = args.parse_args()


def emit(**kv):
  print(json.dumps(kv), flush=True)


hosts = list(dict.fromkeys(cp.colocated_cpu_devices(jax.devices())))
x = jax.device_put(np.zeros((len(hosts), 1), np.float32), NamedSharding(Mesh(np.array(hosts), ("host",)), P("host")))


@cp.colocated_python_class
class Counter:

  def __init__(self):
    self.n = 0

  def bump(self, v):
    self.n += 1
    return v + self.n


bump = Counter().bump.specialize(out_specs_fn=lambda v: v)
emit(counts=[np.asarray(bump(x))[:, 0].tolist() for _ in range(flags.bumps)])
if flags.wait:
  emit(waiting=True)
  sys.stdin.readline()
  emit(after=np.asarray(bump(x))[:, 0].tolist())
