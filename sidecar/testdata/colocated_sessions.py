"""One of two JAX clients of a cluster, each with its own colocated counter.

Prints one JSON object per line: the counter on each host after each of
`--bumps` calls ("counts"); then, with `--wait`, reads a line from stdin
(the test sends it once the other client is gone) and bumps once more
("after").
"""

import argparse
import sys

import colocated_steps as steps  # initializes pathwaysutils
import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np

args = argparse.ArgumentParser()
args.add_argument("--bumps", type=int, required=True)
args.add_argument("--wait", action="store_true")
flags = args.parse_args()

hosts = steps.host_cpus()
x = jax.device_put(np.zeros((len(hosts), 1), np.float32), NamedSharding(Mesh(np.array(hosts), ("host",)), P("host")))
bump = steps.Counter().bump.specialize(out_specs_fn=lambda v: v)
steps.emit(counts=[np.asarray(bump(x))[:, 0].tolist() for _ in range(flags.bumps)])
if flags.wait:
  steps.emit(waiting=True)
  sys.stdin.readline()
  steps.emit(after=np.asarray(bump(x))[:, 0].tolist())
