"""Orbax checkpoints through the server's persistence plugin programs.

MODE=proxy_save: save a sharded pytree (f32, bf16, int32; sharded and
replicated) through the proxy to CKPT_DIR/proxy, restore it into other
shardings, and restore LOCAL_DIR (a plain Orbax checkpoint) if it is set.
MODE=local: with plain CPU JAX and Orbax, restore CKPT_DIR/proxy, then save
the same tree to CKPT_DIR/local. Every comparison is bit-exact.

CKPT_DIR and LOCAL_DIR are directories or gs:// URLs. For gs:// Orbax's own
files go through etils.epath to gcsfs, and plain Orbax's arrays through
TensorStore's gcs driver; the Go test points both at its emulator
(STORAGE_EMULATOR_HOST, FSSPEC_GCS_TOKEN=anon, TENSORSTORE_GCS_HTTP_URL).
"""

import os
import sys

import numpy as np

MODE = os.environ["MODE"]
CKPT = os.environ["CKPT_DIR"]

if MODE == "local":
  os.environ["JAX_PLATFORMS"] = "cpu"
  os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
  import jax
else:
  sys.path.insert(0, os.path.dirname(__file__))
  from _common import init

  jax = init()

import jax.numpy as jnp
import ml_dtypes
import orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec as P


def emit(**kv):
  import json
  print(json.dumps(kv), flush=True)


def expected():
  w = (np.arange(8 * 16, dtype=np.float32).reshape(8, 16) * 1.37 - 50.0)
  w[0, 0] = np.float32(-0.0)
  w[1, 1] = np.float32(np.inf)
  b = (np.arange(16, dtype=np.float32) / 3.0).astype(ml_dtypes.bfloat16)
  i = (np.arange(4 * 8, dtype=np.int32).reshape(4, 8) - 7) * 1234567
  s = np.array(42, dtype=np.int32)
  return {"params": {"w": w, "b": b}, "step": s, "ids": i}


def mesh():
  return jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))


def shardings(m, other=False):
  if not other:
    return {"params": {"w": NamedSharding(m, P("x", "y")), "b": NamedSharding(m, P())},
            "step": NamedSharding(m, P()), "ids": NamedSharding(m, P(None, "y"))}
  return {"params": {"w": NamedSharding(m, P("y", None)), "b": NamedSharding(m, P("y"))},
          "step": NamedSharding(m, P()), "ids": NamedSharding(m, P("x", None))}


def put(tree, shs):
  return jax.tree.map(lambda a, s: jax.device_put(a, s), tree, shs)


def abstract(tree, shs):
  return jax.tree.map(lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s), tree, shs)


def same(got, want, what):
  for path, g in jax.tree_util.tree_flatten_with_path(got)[0]:
    w = want
    for k in path:
      w = w[k.key]
    g = np.asarray(g)
    if g.dtype != w.dtype or g.shape != w.shape or g.tobytes() != w.tobytes():
      emit(fatal=f"{what}: {jax.tree_util.keystr(path)} differs: {g!r} vs {w!r}")
      sys.exit(1)


def checkpointer():
  return ocp.Checkpointer(ocp.StandardCheckpointHandler(use_ocdbt=False))


want = expected()
m = mesh()
if MODE == "proxy_save":
  ck = checkpointer()
  ck.save(os.path.join(CKPT, "proxy"), args=ocp.args.StandardSave(put(want, shardings(m))))
  emit(saved=True)
  for other in (False, True):
    got = ck.restore(os.path.join(CKPT, "proxy"), args=ocp.args.StandardRestore(abstract(want, shardings(m, other))))
    for leaf, s in zip(jax.tree.leaves(got), jax.tree.leaves(shardings(m, other))):
      if leaf.sharding != s:
        emit(fatal=f"restored with {leaf.sharding}, want {s}")
        sys.exit(1)
    same(got, want, f"proxy restore (other shardings: {other})")
  emit(restored=True)
  local = os.environ.get("LOCAL_DIR")
  if local:
    got = ck.restore(local, args=ocp.args.StandardRestore(abstract(want, shardings(m, True))))
    same(got, want, "proxy restore of a local checkpoint")
    emit(restored_local=True)
elif MODE == "local":
  ck = checkpointer()
  got = ck.restore(os.path.join(CKPT, "proxy"), args=ocp.args.StandardRestore(abstract(want, shardings(m, True))))
  same(got, want, "local restore of the proxy's checkpoint")
  emit(local_restored=True)
  ck.save(os.path.join(CKPT, "local"), args=ocp.args.StandardSave(put(want, shardings(m))))
  emit(local_saved=True)
