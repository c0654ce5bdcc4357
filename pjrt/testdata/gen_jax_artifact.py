"""Writes StableHLO portable artifacts (MLIR bytecode, VHLO) serialized by
jax.export, for pjrt's bytecode-compatibility test:

  jax_export_f32.mlirbc    f(x, y) = x * y + 1 on f32[4], one device
  jax_export_spmd8.mlirbc  g(a, b) = (a @ b, sum(a, 0)) with a f32[8,4] sharded by
                           rows over 8 devices (Shardy), b f32[4,2] replicated

Run with the repository's pinned interop environment (jax 0.10.2):
  .venv/bin/python pjrt/testdata/gen_jax_artifact.py
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

here = os.path.dirname(os.path.abspath(__file__))


def write(name, exported):
    data = exported.mlir_module_serialized
    with open(os.path.join(here, name), "wb") as fh:
        fh.write(data)
    print(f"jax {jax.__version__}: {name}: {len(data)} bytes, "
          f"calling convention {exported.calling_convention_version}, "
          f"{exported.nr_devices} devices")


def f(x, y):
    return x * y + 1.0


spec = jax.ShapeDtypeStruct((4,), jnp.float32)
write("jax_export_f32.mlirbc", jax.export.export(jax.jit(f), platforms=["cpu"])(spec, spec))

mesh = jax.make_mesh((8,), ("x",))
rows = NamedSharding(mesh, P("x", None))
repl = NamedSharding(mesh, P())


def g(a, b):
    return a @ b, jnp.sum(a, axis=0)


a = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=rows)
b = jax.ShapeDtypeStruct((4, 2), jnp.float32, sharding=repl)
exp = jax.export.export(jax.jit(g, out_shardings=(rows, repl)), platforms=["cpu"])(a, b)
write("jax_export_spmd8.mlirbc", exp)
print(exp.mlir_module())
