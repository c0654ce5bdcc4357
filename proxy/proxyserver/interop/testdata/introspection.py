"""What a JAX user asks of a compiled program and of pathwaysutils through
the proxy: compiled.as_text(), cost_analysis() and memory_analysis(), and
pathwaysutils.experimental.reshard
(the "reshardRequest" plugin program) between device sets, with and without
donation; and the Pathways array calls pathwaysutils wraps from jaxlib's
_pathways module (split_by_mesh_axis, concatenate_by_mesh_axis,
transfer_to_shardings and reshard, which uses it), which the client builds from
the proxy's disassemble, assemble and copy requests."""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils import jax as pathways_jax
from pathwaysutils import reshard as pathways_reshard
from pathwaysutils.experimental import concatenate_by_mesh_axis
from pathwaysutils.experimental import reshard as experimental_reshard
from pathwaysutils.experimental import split_by_mesh_axis

compiled = jax.jit(lambda a: jnp.sin(a) @ a.T).lower(jnp.ones((4, 4))).compile()
text = compiled.as_text()
cost = compiled.cost_analysis()
mem = compiled.memory_analysis()
_common.emit(text=text if isinstance(text, str) else repr(text),
             cost=None if cost is None else sorted(cost) if isinstance(cost, dict) else repr(cost),
             memory=None if mem is None else [mem.argument_size_in_bytes, mem.output_size_in_bytes])

devs = jax.devices()
half = len(devs) // 2
first = Mesh(np.array(devs[:half]), ("x",))
second = Mesh(np.array(devs[half:]), ("x",))
a = np.arange(4.0 * half, dtype=np.float32)
x = jax.device_put(a, NamedSharding(first, P("x")))
y = experimental_reshard.reshard(x, NamedSharding(second, P()))
z = experimental_reshard.reshard(x, NamedSharding(second, P("x")), donate=True)
_common.emit(
    reshard_copy=bool(np.array_equal(np.asarray(y), a)) and set(y.sharding.device_set) == set(devs[half:]),
    reshard_donated=bool(np.array_equal(np.asarray(z), a)) and x.is_deleted(),
    reshard_kept=bool(np.array_equal(np.asarray(y), a)))

# A mesh of two "slices" of half the devices each, as multi-slice training
# splits and rejoins its state when a slice comes and goes.
slices = Mesh(np.array(devs).reshape(2, half), ("slice", "x"))
grid = np.arange(4.0 * half * half, dtype=np.float32).reshape(2 * half, 2 * half)
g = jax.device_put(grid, NamedSharding(slices, P("slice", "x")))
row = jax.device_put(np.arange(2.0 * half, dtype=np.float32), NamedSharding(slices, P("x")))
parts = split_by_mesh_axis.split_by_mesh_axis({"g": g, "row": row}, "slice")


def on_slice(part, i):
  want = set(devs[i * half:(i + 1) * half])
  return set(part["g"].sharding.device_set) == want and set(part["row"].sharding.device_set) == want


split = dict(
    split_values=[np.asarray(p["g"]).tolist() == grid[i * half:(i + 1) * half].tolist() and np.array_equal(np.asarray(p["row"]), np.asarray(row)) for i, p in enumerate(parts)],
    split_devices=[on_slice(p, i) for i, p in enumerate(parts)],
    split_computes=[float(jax.jit(lambda a: (a * 2).sum())(p["g"])) == 2 * float(grid[i * half:(i + 1) * half].sum()) for i, p in enumerate(parts)])
rejoined = concatenate_by_mesh_axis.concatenate_by_mesh_axis([p["g"] for p in parts], "slice")
moved = pathways_jax.transfer_to_shardings([rejoined, rejoined], [NamedSharding(slices, P(None, "x")), jax.sharding.SingleDeviceSharding(devs[-1])])
tree = pathways_reshard.reshard({"g": rejoined, "s": jnp.float32(2)}, {"g": NamedSharding(second, P()), "s": NamedSharding(second, P())})
_common.emit(
    **split,
    concatenated=bool(np.array_equal(np.asarray(rejoined), grid)) and rejoined.sharding == g.sharding,
    transferred=[bool(np.array_equal(np.asarray(m), grid)) for m in moved] + [moved[1].sharding.device_set == {devs[-1]}],
    resharded=bool(np.array_equal(np.asarray(tree["g"]), grid)) and float(tree["s"]) == 2 and set(tree["g"].sharding.device_set) == set(devs[half:]))
# Sections of unequal size, donating the input.
fresh = jax.device_put(grid, NamedSharding(slices, P("slice", "x")))
uneven = split_by_mesh_axis.split_by_mesh_axis(fresh, "x", [1], donate=True)
_common.emit(split_uneven=[bool(np.array_equal(np.asarray(p), c)) for p, c in zip(uneven, np.split(grid, [grid.shape[1] // half], axis=1))] + [len(uneven) == 2, fresh.is_deleted()])
