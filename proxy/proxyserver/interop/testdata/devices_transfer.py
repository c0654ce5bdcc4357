"""jax.devices(), device_put/device_get of every common dtype, replicated and
sharded over a 2x4 mesh, bit-exact; use after delete; server errors."""

import json

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

devs = jax.devices()
_common.emit(
    devices=[{"id": d.id, "platform": d.platform, "kind": d.device_kind} for d in devs],
    backend=jax.default_backend(),
)

rng = np.random.default_rng(0)
dtypes = [
    np.float32, np.float64, np.float16, jnp.bfloat16, np.int8, np.int16,
    np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_,
    np.complex64, np.complex128,
]


def make(dtype, shape):
  dt = np.dtype(dtype)
  raw = rng.integers(0, 256, size=int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
  if dt == np.bool_:
    raw = raw % 2
  a = raw.view(dt).reshape(shape)
  if dt.kind in "fc":
    # Keep NaN payloads out of the comparison: they need not survive a copy.
    a = np.where(np.isnan(a), np.zeros_like(a), a)
  return a


mesh = Mesh(np.array(devs[:8]).reshape(2, 4), ("x", "y"))
placements = {
    "default": None,
    "device3": jax.sharding.SingleDeviceSharding(devs[3]),
    "replicated": NamedSharding(mesh, P()),
    "rows": NamedSharding(mesh, P("x")),
    "grid": NamedSharding(mesh, P("x", "y")),
    "cols_replicated_rows": NamedSharding(mesh, P(None, "y")),
}
results = {}
for dtype in dtypes:
  name = np.dtype(dtype).name
  a = make(dtype, (8, 16))
  for pname, sharding in placements.items():
    x = jax.device_put(a, sharding) if sharding is not None else jax.device_put(a)
    back = np.asarray(jax.device_get(x))
    ok = back.dtype == a.dtype and back.shape == a.shape and back.tobytes() == a.tobytes()
    # Every shard on its own device holds its slice.
    for s in x.addressable_shards:
      shard = np.asarray(s.data)
      ok = ok and shard.tobytes() == np.ascontiguousarray(a[s.index]).tobytes()
    results[f"{name}/{pname}"] = ok
    x.delete()
_common.emit(transfers=results)

# A strided (non-contiguous) numpy array and a scalar.
a = np.arange(64, dtype=np.float32).reshape(8, 8)[:, ::2]
x = jax.device_put(a)
s = jax.device_put(np.float32(3.5))
_common.emit(strided=bool(np.array_equal(np.asarray(x), a)), scalar=float(np.asarray(s)))

# An empty array.
e = jax.device_put(np.zeros((0, 4), np.float32))
_common.emit(empty=list(np.asarray(e).shape))

# Use after delete.
x = jax.device_put(np.arange(4, dtype=np.int32))
x.delete()
try:
  np.asarray(x)
  _common.emit(deleted_error=None)
except Exception as e:  # pylint: disable=broad-except
  _common.emit(deleted_error=f"{type(e).__name__}: {e}")

# block_until_ready on a device_put array.
y = jax.device_put(np.ones((4, 4), np.float32), NamedSharding(mesh, P("x")))
y.block_until_ready()
_common.emit(ready=True)
