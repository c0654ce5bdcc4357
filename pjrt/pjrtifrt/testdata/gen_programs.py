#!/usr/bin/env python3
"""Writes the programs pjrtifrt's tests compile and run, with JAX's results.

For each program NAME it writes, with the pinned JAX (0.10.2):

  NAME.mlirbc  the StableHLO portable artifact jax.export serializes (bytecode)
  NAME.mlir    the StableHLO text jax.jit(f).lower(...).as_text() prints
  NAME.json    {"name", "devices", "inputs", "outputs", "rtol", "atol"}

Every input and output is {"type": MLIR element type, "shape", "data": base64 of
the row-major little-endian bytes, "sharding": HLO sharding string or ""}; the
outputs are what JAX computes on its CPU backend with 8 virtual devices.

Usage: .venv/bin/python pjrt/pjrtifrt/testdata/gen_programs.py
"""
import base64
import json
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

TYPES = {
    np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.uint8): "ui8",
    np.dtype(np.uint16): "ui16", np.dtype(np.uint32): "ui32", np.dtype(np.uint64): "ui64",
    np.dtype(np.float16): "f16", np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}


def tensor(x, sharding):
    a = np.array(np.asarray(x), order="C")  # keeps rank 0 (ascontiguousarray would not)
    return {"type": TYPES[a.dtype], "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes()).decode(), "sharding": sharding}


def hlo(s, ndim):
    if s is None:
        return ""
    text = str(s._to_xla_hlo_sharding(ndim))
    return "" if text == "{replicated}" else text


def write(name, f, args, in_shardings=None, out_shardings=None, donate=(), devices=1, rtol=0, atol=0):
    kw = {}
    if in_shardings is not None:
        kw["in_shardings"] = in_shardings
    if out_shardings is not None:
        kw["out_shardings"] = out_shardings
    jf = jax.jit(f, donate_argnums=donate, **kw)
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=(in_shardings[i] if in_shardings else None))
             for i, a in enumerate(args)]
    exported = jax.export.export(jf, platforms=["cpu"])(*specs)
    with open(os.path.join(HERE, name + ".mlirbc"), "wb") as fh:
        fh.write(exported.mlir_module_serialized)
    with open(os.path.join(HERE, name + ".mlir"), "w") as fh:
        fh.write(jf.lower(*specs).as_text())
    placed = [jax.device_put(a, in_shardings[i]) if in_shardings else a for i, a in enumerate(args)]
    outs = jax.jit(f, **kw)(*placed)
    if not isinstance(outs, (tuple, list)):
        outs = (outs,)
    outs_sh = out_shardings if isinstance(out_shardings, (tuple, list)) else (out_shardings,) * len(outs)
    case = {
        "name": name, "devices": devices, "rtol": rtol, "atol": atol,
        "donated": list(donate),
        "inputs": [tensor(a, hlo(in_shardings[i] if in_shardings else None, np.ndim(a))) for i, a in enumerate(args)],
        "outputs": [tensor(o, hlo(outs_sh[i], np.ndim(o))) for i, o in enumerate(outs)],
    }
    with open(os.path.join(HERE, name + ".json"), "w") as fh:
        json.dump(case, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"jax {jax.__version__}: {name}: {len(exported.mlir_module_serialized)} bytes of bytecode, {devices} devices")


rng = np.random.default_rng(7)

# One device, f32.
write("mul_add", lambda x, y: x * y + 1.0,
      [rng.standard_normal(4, dtype=np.float32), rng.standard_normal(4, dtype=np.float32)])

# One device, several element types and outputs.
write("mixed_types",
      lambda x, y, z: (x * 2 + 1, jnp.sum(y.astype(jnp.float32)), x.T, jnp.where(z, x[0], -x[0]), z.astype(jnp.int8)),
      [rng.integers(-100, 100, (3, 4), dtype=np.int32),
       rng.standard_normal(5).astype(ml_dtypes.bfloat16),
       rng.integers(0, 2, 4).astype(np.bool_)], rtol=1e-2, atol=1e-2)

# One device, the first argument donated.
write("donated", lambda x, y: (x + y, y * 2.0),
      [rng.standard_normal((2, 3), dtype=np.float32), rng.standard_normal((2, 3), dtype=np.float32)], donate=(0,))

mesh8 = jax.make_mesh((8,), ("x",))
mesh24 = jax.make_mesh((2, 4), ("x", "y"))

# 8 devices: rows sharded, one replicated output (an all-reduce).
write("spmd_rows", lambda a, b: (jnp.tanh(a @ b), jnp.sum(a, axis=0)),
      [rng.standard_normal((16, 4), dtype=np.float32), rng.standard_normal((4, 3), dtype=np.float32)],
      in_shardings=(NamedSharding(mesh8, P("x", None)), NamedSharding(mesh8, P())),
      out_shardings=(NamedSharding(mesh8, P("x", None)), NamedSharding(mesh8, P())),
      devices=8, rtol=1e-5, atol=1e-6)

# 8 devices on a 2x4 mesh: 2-D tiling, partial replication, a scalar.
write("spmd_mesh2d", lambda a, b: (a * b + 1.0, jnp.max(a, axis=1), jnp.sum(a * b)),
      [rng.standard_normal((4, 8), dtype=np.float32), rng.standard_normal((4, 8), dtype=np.float32)],
      in_shardings=(NamedSharding(mesh24, P("x", "y")), NamedSharding(mesh24, P("x", None))),
      out_shardings=(NamedSharding(mesh24, P("x", "y")), NamedSharding(mesh24, P("x")), NamedSharding(mesh24, P())),
      devices=8, rtol=1e-5, atol=1e-5)
