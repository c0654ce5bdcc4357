#!/usr/bin/env python3
"""Regenerates the StableHLO golden corpus for internal/stablehlo.

Each program is lowered by the pinned JAX (jax.jit(f).lower(*args)) and run on
JAX's CPU backend. For program NAME it writes

  NAME.mlir    the StableHLO text (pretty form, or generic form when noted)
  NAME.mlirbc  the same program as the StableHLO portable artifact (MLIR
               bytecode, VHLO) that JAX sends to an IFRT proxy server
  NAME.json  {"name", "inputs": [...], "outputs": [...], "rtol"?, "atol"?}

where every input and output is {"type": "f32", "shape": [2, 3],
"data": base64 of the row-major little-endian bytes}; i1 uses one byte per
element. The Go test TestGoldenCorpus runs each program in the interpreter and
compares with the outputs; TestCorpusUpToDate reruns this script into a
temporary directory and checks that JAX still produces the same files.

Usage: gen_stablehlo_corpus.py OUTPUT_DIR
"""

import base64
import json
import os
import re
import sys

# Eight virtual CPU devices for the sharded SPMD program; must precede jax.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=8").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib import _jax  # noqa: E402
from jax._src.lib.mlir.dialects import hlo  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

MLIR_TYPES = {
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "ui8",
    np.dtype(np.uint16): "ui16",
    np.dtype(np.uint32): "ui32",
    np.dtype(np.uint64): "ui64",
    np.dtype(np.float16): "f16",
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}
# The 8-bit floats, by their JAX names and MLIR spellings.
FLOAT8 = {
    "float8_e5m2": "f8E5M2", "float8_e4m3": "f8E4M3", "float8_e3m4": "f8E3M4",
    "float8_e4m3fn": "f8E4M3FN", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
}
MLIR_TYPES.update({np.dtype(getattr(ml_dtypes, n)): t for n, t in FLOAT8.items()})
# The sub-byte integers, one byte per element as numpy holds them.
MLIR_TYPES.update({np.dtype(ml_dtypes.int4): "i4", np.dtype(ml_dtypes.uint4): "ui4",
                   np.dtype(ml_dtypes.int2): "i2", np.dtype(ml_dtypes.uint2): "ui2"})

OUT = None
COUNT = 0

# The IFRT proxy client serializes a jit's module as a portable artifact for the
# StableHLO version at least 12 weeks old, keeping Shardy ops and attributes
# unversioned ("mixed" serialization, IFRT SerDes version 3). With jaxlib 0.10.2
# these bytes equal the CompileRequest program a proxy server receives.
PROXY_TARGET = hlo.get_version_from_compatibility_requirement(
    hlo.StablehloCompatibilityRequirement.WEEK_12)

# A proxy client lowers in forward-compatibility mode (jax >= 0.12.1 forces it
# for "proxy/" runtimes), so that no op newer than PROXY_TARGET appears: there
# lax.fmuladd, which the special functions' polynomials use, is a multiply and
# an add rather than stablehlo.fma. Lower the corpus the same way; for older
# jax the mode changes none of its programs.
xla_bridge.FORCE_FORWARD_COMPAT_LOWERING_RUNTIMES.add(
    jax.devices()[0].client.runtime_type)


def portable_artifact(lowered):
    module = jax_mlir.module_to_bytecode(lowered.compiler_ir("stablehlo"))
    return _jax.mlir.serialize_portable_artifact(module, PROXY_TARGET, True)


def encode(x):
    a = np.asarray(x)
    if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
        raise TypeError("typed PRNG keys must be unwrapped with key_data")
    shape = list(a.shape)  # np.ascontiguousarray would turn scalars into shape [1]
    data = np.asarray(a, dtype=a.dtype.newbyteorder("<"), order="C").tobytes()
    return {"type": MLIR_TYPES[a.dtype], "shape": shape, "data": base64.b64encode(data).decode()}


def emit(name, f, *args, generic=False, debug_info=False, rtol=None, atol=None,
         jit_kwargs=None):
    """Lowers f at args, runs it, and writes NAME.mlir, NAME.mlirbc and NAME.json."""
    global COUNT
    jitted = jax.jit(f, **(jit_kwargs or {}))
    lowered = jitted.lower(*args)
    if generic:
        text = lowered.compiler_ir("stablehlo").operation.get_asm(
            print_generic_op_form=True, enable_debug_info=debug_info)
    else:
        text = lowered.as_text(debug_info=debug_info)
    outs = jax.tree_util.tree_leaves(jitted(*args))
    meta = {
        "name": name,
        # Inputs as JAX sees them: f64 becomes f32 unless x64 is enabled.
        "inputs": [encode(jnp.asarray(a)) for a in jax.tree_util.tree_leaves(args)],
        "outputs": [encode(o) for o in outs],
    }
    if rtol is not None:
        meta["rtol"] = rtol
    if atol is not None:
        meta["atol"] = atol
    with open(os.path.join(OUT, name + ".mlir"), "w") as fh:
        fh.write(text)
    with open(os.path.join(OUT, name + ".mlirbc"), "wb") as fh:
        fh.write(portable_artifact(lowered))
    with open(os.path.join(OUT, name + ".json"), "w") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
        fh.write("\n")
    COUNT += 1


def rng(seed):
    return np.random.default_rng(seed)


def f32(seed, *shape, scale=1.0):
    return (rng(seed).standard_normal(shape) * scale).astype(np.float32)


def f64(seed, *shape):
    return rng(seed).standard_normal(shape).astype(np.float64)


def ints(seed, lo, hi, shape, dtype):
    return rng(seed).integers(lo, hi, size=shape, endpoint=False).astype(dtype)


def elementwise():
    x, y = f32(1, 4, 5), f32(2, 4, 5)
    pos = np.abs(f32(3, 4, 5)) + np.float32(0.1)
    emit("add_f32", lambda a, b: a + b, x, y)
    emit("binary_f32", lambda a, b: (a - b, a * b, a / b, lax.rem(a, b), lax.max(a, b),
                                     lax.min(a, b), lax.atan2(a, b), lax.pow(jnp.abs(a), b)), x, y)
    emit("unary_f32", lambda a, p: (
        -a, jnp.abs(a), jnp.sign(a), jnp.exp(a), jnp.expm1(a), jnp.log(p), jnp.log1p(p),
        jax.nn.sigmoid(a), jnp.sqrt(p), lax.rsqrt(p), jnp.cbrt(a), jnp.tanh(a), jnp.sin(a),
        jnp.cos(a), jnp.tan(a), jnp.floor(a * 3), jnp.ceil(a * 3),
        lax.round(a * 3, lax.RoundingMethod.AWAY_FROM_ZERO),
        lax.round(a * 3, lax.RoundingMethod.TO_NEAREST_EVEN), jnp.isfinite(a / (a > 0))),
        x, pos, rtol=1e-5, atol=1e-6)
    with jax.enable_x64(True):
        emit("unary_f64", lambda a, p: (
            jnp.exp(a), jnp.log(p), jnp.tanh(a), jnp.sin(a), jnp.cos(a), jnp.sqrt(p),
            jnp.expm1(a), jnp.log1p(p), jax.nn.sigmoid(a), jnp.cbrt(a), lax.rsqrt(p)),
            f64(4, 3, 4), np.abs(f64(5, 3, 4)) + 0.1)
        emit("binary_f64", lambda a, b: (a + b, a * b, a / b, lax.rem(a, b), lax.atan2(a, b),
                                         lax.pow(jnp.abs(a), b)), f64(6, 5), f64(7, 5))
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.0], np.float32)
    emit("round_halves", lambda a: (lax.round(a, lax.RoundingMethod.AWAY_FROM_ZERO),
                                    lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN),
                                    jnp.sign(a)), halves)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30], np.float32)
    emit("special_values_f32", lambda a, b: (a + b, a * b, jnp.maximum(a, b), jnp.minimum(a, b),
                                             jnp.isfinite(a), a / b), special, special[::-1].copy())
    sp = jax.scipy.special
    chlo_math = lambda a: (jnp.sinh(a), jnp.cosh(a), jnp.arcsin(a / 4), jnp.arccos(a / 4), jnp.arctan(a),
                           jnp.arcsinh(a), jnp.arccosh(jnp.abs(a) + 1), jnp.arctanh(a / 4),
                           sp.gammaln(jnp.abs(a) + 0.5), sp.digamma(jnp.abs(a) + 0.5), sp.erfc(a),
                           jnp.square(a), jnp.nextafter(a, a + 1), jnp.nextafter(a, -jnp.inf))
    emit("chlo_math_f32", chlo_math, x, rtol=2e-5, atol=2e-6)
    emit("chlo_nextafter_bf16", lambda a, b: jnp.nextafter(a, b), x.astype(ml_dtypes.bfloat16),
         np.concatenate([f32(8, 4, 4), np.full((4, 1), np.inf, np.float32)], axis=1).astype(ml_dtypes.bfloat16))
    with jax.enable_x64(True):
        emit("chlo_math_f64", chlo_math, f64(9, 4, 5), rtol=1e-9, atol=1e-12)
    emit("erf_f32", lambda a: (jax.scipy.special.erf(a), jax.scipy.special.erfinv(jnp.tanh(a))),
         x, rtol=2e-5, atol=2e-6)


def integers():
    a = ints(10, -100, 100, (12,), np.int32)
    b = ints(11, 1, 20, (12,), np.int32) * np.where(rng(12).random(12) < 0.5, -1, 1).astype(np.int32)
    emit("int32_arith", lambda x, y: (x + y, x - y, x * y, lax.div(x, y), lax.rem(x, y),
                                      jnp.maximum(x, y), jnp.minimum(x, y), -x, jnp.abs(x),
                                      jnp.sign(x), x & y, x | y, x ^ y, ~x), a, b)
    sh = np.arange(12, dtype=np.int32) * 3  # includes shifts >= 32
    v = np.array([1, -1, 123456, -123456, 7, 2**31 - 1, -2**31, 0, 5, -5, 99, -99], np.int32)
    emit("int32_shifts", lambda x, s: (lax.shift_left(x, s), lax.shift_right_arithmetic(x, s),
                                       lax.shift_right_logical(x, s), lax.population_count(x),
                                       lax.clz(x)), v, sh)
    u = ints(13, 0, 2**32, (8,), np.uint32)
    us = np.array([0, 1, 5, 31, 32, 33, 7, 3], np.uint32)
    emit("uint32_ops", lambda x, s: (x + x, x * np.uint32(3), x // (s + 1), x % (s + 1),
                                     lax.shift_left(x, s), lax.shift_right_logical(x, s),
                                     lax.shift_right_arithmetic(x, s), lax.population_count(x),
                                     lax.clz(x), x > s, jnp.maximum(x, s)), u, us)
    i8 = ints(14, -128, 128, (10,), np.int8)
    j8 = ints(15, -128, 128, (10,), np.int8)
    emit("int8_wrap", lambda x, y: (x + y, x * y, x - y, -x, lax.shift_left(x, np.int8(3)),
                                    lax.clz(x), lax.population_count(x)), i8, j8)
    u8 = ints(16, 0, 256, (10,), np.uint8)
    emit("uint8_wrap", lambda x, y: (x + y, x * y, x - y, ~x, x.astype(jnp.int8),
                                     x.astype(jnp.float32)), u8, u8[::-1].copy())
    i16 = ints(17, -2**15, 2**15, (6,), np.int16)
    u16 = ints(18, 0, 2**16, (6,), np.uint16)
    emit("int16_uint16", lambda x, y: (x * x, y * y, x.astype(jnp.uint16), y.astype(jnp.int16),
                                       x > 0, y // np.uint16(7)), i16, u16)
    base = np.array([2, -3, 0, 1, -1, 5], np.int32)
    exp = np.array([10, 3, 0, 2, 3, 2], np.int32)
    emit("int_power", lambda x, e: jnp.power(x, e), base, exp)
    with jax.enable_x64(True):
        i64 = ints(19, -2**62, 2**62, (6,), np.int64)
        u64 = ints(20, 0, 2**63, (6,), np.uint64) * np.uint64(2) + np.uint64(1)
        emit("int64_uint64", lambda x, y: (x * x, x + x, x // np.int64(7), y * y, y >> np.uint64(3),
                                           y.astype(jnp.float64), x.astype(jnp.int32),
                                           lax.clz(y)), i64, u64)
        emit("f64_x64_mix", lambda x, n: (x * n.astype(jnp.float64), jnp.sum(x),
                                          jnp.argmax(x)), f64(21, 7), ints(22, 0, 9, (7,), np.int64))


def compares_and_select():
    x = np.array([1.0, np.nan, -0.0, 0.0, 2.0, -np.inf, 3.0], np.float32)
    y = np.array([1.0, 1.0, 0.0, -0.0, np.nan, -np.inf, -3.0], np.float32)
    emit("compare_f32", lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b), x, y)
    i = ints(30, -5, 5, (9,), np.int32)
    j = ints(31, -5, 5, (9,), np.int32)
    emit("compare_int", lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b,
                                      a.astype(jnp.uint32) < b.astype(jnp.uint32)), i, j)
    emit("select_clamp", lambda a, b, c: (jnp.where(a > 0, b, c), lax.clamp(-0.5, a, 0.5),
                                          lax.clamp(b, a, b + 1.0), jnp.where(a > 0, 1.0, a)),
         f32(32, 3, 4), f32(33, 3, 4), f32(34, 3, 4))
    p = np.array([True, False, True, True], np.bool_)
    q = np.array([False, False, True, False], np.bool_)
    emit("bool_logic", lambda a, b: (a & b, a | b, a ^ b, ~a, a.astype(jnp.int32),
                                     jnp.any(a), jnp.all(a)), p, q)


def conversions():
    x = f32(40, 3, 5, scale=50.0)
    emit("convert_f32", lambda a: (a.astype(jnp.int32), a.astype(jnp.uint8), a.astype(jnp.bfloat16),
                                   a.astype(jnp.float16), a.astype(jnp.bool_),
                                   a.astype(jnp.int8)), x)
    emit("convert_from_int", lambda i: (i.astype(jnp.float32), i.astype(jnp.bfloat16),
                                        i.astype(jnp.int8), i.astype(jnp.uint16),
                                        i.astype(jnp.bool_)),
         ints(41, -70000, 70000, (12,), np.int32))
    emit("bitcast", lambda a, u: (lax.bitcast_convert_type(a, jnp.uint32),
                                  lax.bitcast_convert_type(u, jnp.uint8),
                                  lax.bitcast_convert_type(a.reshape(3, 2), jnp.float16)[0],
                                  lax.bitcast_convert_type(lax.bitcast_convert_type(a, jnp.int32),
                                                           jnp.float32)),
         f32(42, 6), ints(43, 0, 2**32, (3,), np.uint32))
    with jax.enable_x64(True):
        emit("bitcast_f64", lambda a: lax.bitcast_convert_type(a, jnp.uint32), f64(44, 4))


def low_precision():
    a = f32(50, 4, 8).astype(ml_dtypes.bfloat16)
    b = f32(51, 4, 8).astype(ml_dtypes.bfloat16)
    # XLA keeps excess precision inside fusions: (x * y).astype(f32) is not
    # rounded to bf16 first, while the interpreter rounds every bf16 op as the
    # spec says. The rtol covers that one f32 output (bf16 ones use ulps).
    emit("bf16_arith", lambda x, y: (x + y, x * y, x / y, jnp.exp(x), jnp.tanh(x),
                                     jnp.maximum(x, y), (x * y).astype(jnp.float32)), a, b,
         rtol=8e-3)
    c = f32(52, 4, 8).astype(np.float16)
    d = f32(53, 4, 8).astype(np.float16)
    emit("f16_arith", lambda x, y: (x + y, x * y, x - y, jnp.sqrt(jnp.abs(x)), jnp.exp(x),
                                    jnp.sum(x, axis=1)), c, d)
    m = f32(54, 8, 16).astype(ml_dtypes.bfloat16)
    n = f32(55, 16, 4).astype(ml_dtypes.bfloat16)
    emit("bf16_matmul", lambda x, y: (x @ y, jnp.dot(x, y, preferred_element_type=jnp.float32)),
         m, n)


def float8():
    # Rounding ties, overflow (to Inf or NaN by type), subnormals, signed
    # zeros and NaN, then ordinary values of several magnitudes.
    edges = np.array([1000.0, 464.0, 465.0, 448.0, 240.0, 250.0, 57344.0, 61440.0, 61439.0,
                      1e-3, 2.0**-10, 1.5 * 2.0**-9, -0.0, np.inf, -np.inf, np.nan, 15.5, 15.75,
                      16.0, 31.0, 30.0, 3e-5, -2.5, 0.0], np.float32)
    x = np.concatenate([edges, f32(56, 40, scale=4.0), f32(57, 40, scale=300.0)])
    types = [getattr(jnp, n) for n in FLOAT8]
    emit("convert_f8", lambda a: tuple(a.astype(t) for t in types) +
         tuple(a.astype(t).astype(jnp.float32) for t in types), x)
    a = f32(58, 8, 8).astype(ml_dtypes.float8_e4m3fn)
    b = f32(59, 8, 8, scale=3.0).astype(ml_dtypes.float8_e5m2)
    emit("f8_arith", lambda x, y: (x * x, x.astype(jnp.float8_e5m2) + y,
                                   jnp.dot(x, y.astype(jnp.float8_e4m3fn),
                                           preferred_element_type=jnp.float32),
                                   jnp.max(y, axis=1)), a, b, rtol=1e-6)


def subbyte():
    # Conversions into 2- and 4-bit integers (saturating, truncating, NaN),
    # their wrapping arithmetic, and the quantized-weights pattern: int4
    # weights dequantized to f32 or bf16, and an int4 x int8 dot into int32.
    edges = np.array([0.0, 0.4, 0.6, -0.6, 1.5, -1.5, 7.0, 7.9, 8.0, -8.0, -8.5, -9.0,
                      15.0, 16.0, 100.0, -100.0, 1.0, 2.0, 3.0, -3.0, np.nan, np.inf, -np.inf, -2.0], np.float32)
    types = [jnp.int4, jnp.uint4, jnp.int2, jnp.uint2]
    emit("convert_subbyte", lambda a: tuple(a.astype(t) for t in types) +
         tuple(a.astype(t).astype(jnp.float32) for t in types) +
         (a.astype(jnp.int32).astype(jnp.int4), a.astype(jnp.int32).astype(jnp.uint4)), edges)
    w = rng(64).integers(-8, 8, (8, 6)).astype(ml_dtypes.int4)
    u = rng(65).integers(0, 16, (8, 6)).astype(ml_dtypes.uint4)
    x = rng(66).integers(-128, 128, (4, 8)).astype(np.int8)
    scale = f32(67, 6)
    emit("int4_arith", lambda w, u, x, s: (
        w + w, w * w, w - w[::-1], -w, u + u, u * u, u - u[::-1], w // 3, w % 3, lax.rem(w, -w[::-1]),
        w >> 1, u >> 1, w << 1, w ^ w[::-1], jnp.max(w, axis=0), jnp.maximum(u, u[::-1]), w > 0,
        w.astype(jnp.float32) * s, (w.astype(jnp.bfloat16) * s.astype(jnp.bfloat16)),
        jnp.dot(x, w, preferred_element_type=jnp.int32),
        jnp.dot(x.astype(jnp.float32), w.astype(jnp.float32) * s),
        jnp.where(w > 0, w, u.astype(jnp.int4)), jnp.clip(w, -2, 3), jnp.sort(w, axis=0)), w, u, x, scale)


def shapes():
    x = f32(60, 3, 4)
    emit("broadcast_reshape_transpose",
         lambda a, v: (a + v, a.reshape(2, 6), a.T, jnp.broadcast_to(v, (2, 3, 4)),
                       jnp.transpose(a.reshape(3, 2, 2), (2, 0, 1)), a[:, None, :] * v[None, :, None]),
         x, f32(61, 4)[:4] if False else f32(61, 4))
    emit("slices", lambda a: (a[1:3, ::2], a[::-1, 1:], a[:, 3], a[::2, ::3]), x)
    emit("dynamic_slices", lambda a, i, u: (lax.dynamic_slice(a, (i, i), (2, 2)),
                                            lax.dynamic_update_slice(a, u, (i, 3 - i)),
                                            lax.dynamic_slice(a, (i + 5, -3), (2, 3))),
         x, np.int32(1), f32(62, 2, 2))
    emit("concat_pad_reverse", lambda a, b: (
        jnp.concatenate([a, b, a], axis=1),
        lax.pad(a, np.float32(-1), ((1, 2, 1), (-1, 1, 0))),
        lax.pad(a, np.float32(7), ((0, 0, 2), (-2, -1, 1))),
        jnp.flip(a, axis=(0, 1)), jnp.stack([a, b])), x, f32(63, 3, 4))
    emit("iota_onehot", lambda i: (jnp.arange(10, dtype=jnp.int32).reshape(2, 5),
                                   jax.nn.one_hot(i, 5), lax.broadcasted_iota(jnp.float32, (3, 4), 1)),
         np.array([0, 3, 4, 1], np.int32))
    scale = lax.composite(lambda a, factor: jnp.tanh(a) * factor, name="corpus.scaled_tanh")
    emit("composite", lambda a: scale(a, factor=3.0), x)
    emit("optimization_barrier", lambda a, b: lax.optimization_barrier((a * 2, b + 1)),
         x, np.int32(4))


def dots():
    emit("matmul", lambda a, b: a @ b, f32(70, 8, 16), f32(71, 16, 5), rtol=1e-5, atol=1e-5)
    emit("dot_general_batched", lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
         f32(72, 3, 4, 5), f32(73, 3, 5, 2), rtol=1e-5, atol=1e-5)
    emit("dot_general_multi_contract", lambda a, b: (jnp.einsum("ijk,jkl->il", a, b),
                                                     jnp.einsum("bik,bjk->bji", a, a),
                                                     jnp.dot(a[0, 0], a[1, 1])),
         f32(74, 2, 3, 4), f32(75, 3, 4, 2), rtol=1e-5, atol=1e-5)
    emit("dot_int8_to_int32", lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32),
         ints(76, -128, 128, (4, 6), np.int8), ints(77, -128, 128, (6, 3), np.int8))
    with jax.enable_x64(True):
        emit("dot_f64", lambda a, b: a @ b, f64(78, 5, 7), f64(79, 7, 3))


def reductions():
    x = f32(80, 4, 6)
    emit("reduce_basic", lambda a: (jnp.sum(a), jnp.sum(a, axis=0), jnp.max(a, axis=1),
                                    jnp.min(a), jnp.prod(a[:, :3], axis=1), jnp.mean(a, axis=1)),
         x, rtol=1e-5, atol=1e-6)
    emit("argmax_argmin", lambda a: (jnp.argmax(a, axis=1), jnp.argmin(a, axis=0), jnp.argmax(a)), x)
    emit("reduce_int_bool", lambda i, b: (jnp.sum(i, axis=1), jnp.max(i), jnp.any(b, axis=0),
                                          jnp.all(b, axis=1)),
         ints(81, -50, 50, (3, 5), np.int32), rng(82).random((3, 5)) < 0.5)
    emit("softmax_logsumexp", lambda a: (jax.nn.softmax(a, axis=-1), jax.nn.logsumexp(a, axis=1),
                                         jax.nn.log_softmax(a)), x, rtol=1e-5, atol=1e-6)
    img = f32(83, 1, 6, 6, 2)
    emit("reduce_window_pool",
         lambda a: (lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
                    lax.reduce_window(a, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME"),
                    lax.reduce_window(a, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1),
                                      ((0, 0), (1, 1), (0, 2), (0, 0)),
                                      base_dilation=(1, 2, 1, 1), window_dilation=(1, 1, 2, 1))),
         img, rtol=1e-5, atol=1e-6)
    emit("cumulative", lambda a: (jnp.cumsum(a, axis=1), jnp.cumprod(a[:, :3], axis=1),
                                  lax.cummax(a, axis=0)), x, rtol=1e-5, atol=1e-6)


def convolutions():
    x = f32(140, 2, 6, 6, 3)
    w = f32(141, 3, 3, 3, 4, scale=0.5)

    def conv(a, k, stride=(1, 1), padding="SAME", **kw):
        return lax.conv_general_dilated(a, k, stride, padding,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"), **kw)

    emit("conv2d_nhwc", lambda a, k: (conv(a, k), conv(a, k, (2, 2), "VALID"),
                                      conv(a, k, padding=((2, 1), (0, 2)), lhs_dilation=(2, 1),
                                           rhs_dilation=(1, 2))),
         x, w, rtol=1e-5, atol=1e-5)
    emit("conv2d_grouped", lambda a, k: conv(a, k, feature_group_count=3), f32(142, 1, 5, 5, 6),
         f32(143, 3, 3, 2, 6), rtol=1e-5, atol=1e-5)
    emit("conv1d_nchw", lambda a, k: lax.conv_general_dilated(a, k, (1,), "SAME"),
         f32(144, 2, 3, 9), f32(145, 5, 3, 4), rtol=1e-5, atol=1e-5)

    def cnn_loss(k, a):
        h = jax.nn.relu(conv(a, k))
        pooled = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return jnp.sum(pooled ** 2)

    emit("cnn_grad_maxpool", jax.grad(cnn_loss, argnums=(0, 1)), w, x, rtol=1e-4, atol=1e-4)
    emit("depthwise_conv_grad", jax.grad(lambda k, a: jnp.sum(conv(a, k, feature_group_count=3) ** 2)),
         f32(146, 3, 3, 1, 3), f32(147, 2, 5, 5, 3), rtol=1e-4, atol=1e-4)
    emit("reduce_precision", lambda a: (lax.reduce_precision(a, 5, 10), lax.reduce_precision(a, 8, 7),
                                        lax.reduce_precision(a * 1e-3, 4, 3)),
         np.concatenate([f32(148, 16, scale=1e5), np.array([np.nan, np.inf, -0.0, 1e-40], np.float32)]))


def linalg():
    # JAX's CPU lowering calls LAPACK (lapack_*trsm/potrf/getrf_ffi custom calls).
    a = f32(160, 4, 4) + 4 * np.eye(4, dtype=np.float32)
    b = f32(161, 4, 3)
    tri = jax.scipy.linalg.solve_triangular
    emit("linalg_triangular", lambda a, b: (tri(a, b, lower=True), tri(a, b, lower=False, trans=1),
                                            tri(a, b, lower=True, unit_diagonal=True),
                                            lax.linalg.triangular_solve(a, b.T, left_side=False, lower=True,
                                                                        transpose_a=True)),
         a, b, rtol=1e-4, atol=1e-5)
    spd = a @ a.T + np.eye(4, dtype=np.float32)
    emit("linalg_cholesky_solve_inv", lambda s, a, b: (jnp.linalg.cholesky(s), jnp.linalg.solve(a, b),
                                                      jnp.linalg.inv(a), jnp.linalg.slogdet(a)[1]),
         spd, a, b, rtol=1e-4, atol=1e-4)
    with jax.enable_x64(True):
        batch = f64(162, 2, 3, 3) + 3 * np.eye(3)
        emit("linalg_batched_f64", lambda a, b: (jnp.linalg.solve(a, b), jnp.linalg.cholesky(a @ jnp.swapaxes(a, 1, 2))),
             batch, f64(163, 2, 3, 2), rtol=1e-10, atol=1e-12)
    # QR (geqrf/orgqr) follows LAPACK's sign convention, so q and r compare
    # directly. Eigenvectors and singular vectors are unique only up to sign,
    # so those programs return sign-free values: |vectors| and products.
    tall, wide = f32(164, 5, 3), f32(165, 3, 5)
    emit("linalg_qr", lambda t, w: (*jnp.linalg.qr(t), *jnp.linalg.qr(t, mode="complete"),
                                    *jnp.linalg.qr(w), jnp.linalg.qr(t, mode="r")),
         tall, wide, rtol=1e-4, atol=1e-5)

    def eigh_parts(s):
        w, v = jnp.linalg.eigh(s)
        return w, jnp.abs(v), (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2)

    def svd_parts(x):
        u, s, vt = jnp.linalg.svd(x, full_matrices=False)
        uf, _, vtf = jnp.linalg.svd(x)
        return (s, jnp.abs(u), jnp.abs(vt), (u * s[..., None, :]) @ vt, jnp.linalg.svd(x, compute_uv=False),
                uf @ jnp.swapaxes(uf, -1, -2), jnp.swapaxes(vtf, -1, -2) @ vtf)

    sym = f32(166, 2, 4, 4)
    emit("linalg_eigh_svd", lambda s, t, w: (eigh_parts(s + jnp.swapaxes(s, -1, -2)), svd_parts(t), svd_parts(w)),
         sym, tall, wide, rtol=1e-4, atol=1e-4)
    with jax.enable_x64(True):
        emit("linalg_qr_eigh_svd_f64", lambda a: (jnp.linalg.qr(a), eigh_parts(a @ jnp.swapaxes(a, -1, -2)),
                                                  svd_parts(a)),
             f64(167, 2, 4, 3), rtol=1e-9, atol=1e-10)


def indexing():
    x = f32(90, 5, 4)
    idx = np.array([4, 0, 2, 2], np.int32)
    emit("gather_rows", lambda a, i: (a[i], a[:, i[:2]], a[i, i % 4],
                                      jnp.take_along_axis(a[:4], i[:, None] % 4, axis=1)),
         x, idx)
    emit("gather_clamp_modes", lambda a, i: (a.at[i + 3].get(mode="clip"),
                                             a.at[i - 6].get(mode="fill", fill_value=-1.0)), x, idx)
    emit("scatter_ops", lambda a, i, u: (a.at[i].set(u), a.at[i].add(u), a.at[i].mul(u),
                                         a.at[i].max(u), a.at[i, 1].add(1.0),
                                         a.at[i + 3].add(u, mode="drop")),
         x, idx, f32(91, 4, 4))
    # Windows that are not the operand's trailing dimensions, partial
    # windows, and negative and repeated indices.
    b = f32(92, 3, 6, 5)
    emit("scatter_windows", lambda a, b, i, u, v: (a.at[:, i].add(u), b.at[:, i, 1:4].add(v),
                                                   b.at[i % 3 - 3].set(jnp.concatenate([b, b[:1]]) * 2)),
         x, b, idx, f32(93, 5, 4), f32(94, 3, 4, 3))
    emit("scatter_2d_index", lambda a, r, c, v: a.at[r, c].add(v), x,
         np.array([0, 4, 4, 1], np.int32), np.array([3, 0, 0, 2], np.int32),
         np.array([1.0, 2.0, 3.0, 4.0], np.float32))


def sorting():
    x = f32(100, 3, 7)
    x[0, 2] = np.nan
    x[1, 1] = -0.0
    x[1, 2] = 0.0
    emit("sort_float", lambda a: (jnp.sort(a, axis=1), jnp.sort(a, axis=0), jnp.argsort(a, axis=1)), x)
    k = ints(101, 0, 4, (10,), np.int32)
    v = np.arange(10, dtype=np.float32)
    emit("sort_multi_operand", lambda a, b: lax.sort((a, b), num_keys=1, is_stable=True), k, v)
    emit("top_k", lambda a: lax.top_k(a, 3), f32(103, 4, 6))
    emit("sort_descending_int", lambda a: (jnp.sort(a)[::-1], jnp.argsort(-a, stable=True)),
         ints(102, -9, 9, (12,), np.int32))


def control_flow():
    x = f32(110, 3, 4)
    emit("cond_case", lambda p, a: lax.cond(p > 0, lambda a: a * 2, lambda a: a - 1, a),
         np.float32(1.5), x)
    emit("switch_case", lambda i, a: (lax.switch(i, [lambda a: a, lambda a: a * 2, lambda a: -a], a),
                                      lax.switch(i + 7, [lambda a: a + 1, lambda a: a * 3], a)),
         np.int32(2), x)
    emit("while_loop", lambda n, a: lax.while_loop(lambda c: c[0] < n,
                                                   lambda c: (c[0] + 1, c[1] * 1.5 + 1), (0, a)),
         np.int32(5), x)
    emit("fori_loop", lambda a: lax.fori_loop(0, 4, lambda i, c: c + i * c, a), x)
    emit("scan_cumulative", lambda a: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(4, jnp.float32), a),
         x)
    emit("nested_calls_generic", lambda a: jax.nn.relu(a) @ a.T + jnp.tanh(a).sum(),
         x, generic=True, rtol=1e-5, atol=1e-5)
    emit("while_generic", lambda a: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) + i, a), x,
         generic=True)


def models():
    def mlp(params, x):
        (w1, b1), (w2, b2) = params
        h = jax.nn.relu(x @ w1 + b1)
        return h @ w2 + b2

    def loss(params, x, y):
        logits = mlp(params, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    params = ((f32(120, 6, 16, scale=0.3), f32(121, 16, scale=0.1)),
              (f32(122, 16, 3, scale=0.3), f32(123, 3, scale=0.1)))
    xb = f32(124, 8, 6)
    yb = np.eye(3, dtype=np.float32)[rng(125).integers(0, 3, 8)]

    def train_step(params, x, y):
        l, g = jax.value_and_grad(loss)(params, x, y)
        new = jax.tree_util.tree_map(lambda p, gp: p - 0.1 * gp, params, g)
        return l, g, new

    emit("mlp_train_step", train_step, params, xb, yb, rtol=1e-4, atol=1e-5)
    emit("mlp_forward_debuginfo", mlp, params, xb, debug_info=True, rtol=1e-5, atol=1e-5)
    emit("mlp_grad_generic", jax.grad(loss), params, xb, yb, generic=True, rtol=1e-4, atol=1e-5)


def transformer():
    d, heads, seq = 16, 2, 6

    def layer_norm(x, g, b):
        mu = jnp.mean(x, -1, keepdims=True)
        var = jnp.var(x, -1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

    def block(p, x):
        h = layer_norm(x, p["g1"], p["b1"])
        q, k, v = jnp.split(h @ p["wqkv"], 3, axis=-1)
        split = lambda t: t.reshape(seq, heads, d // heads).transpose(1, 0, 2)
        q, k, v = split(q), split(k), split(v)
        att = jnp.einsum("hqd,hkd->hqk", q, k) / np.sqrt(d // heads)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        att = jax.nn.softmax(jnp.where(mask, att, -1e9), axis=-1)
        o = jnp.einsum("hqk,hkd->hqd", att, v).transpose(1, 0, 2).reshape(seq, d)
        x = x + o @ p["wo"]
        h = layer_norm(x, p["g2"], p["b2"])
        return x + jax.nn.gelu(h @ p["w1"], approximate=False) @ p["w2"]

    params = {"g1": np.ones(d, np.float32), "b1": np.zeros(d, np.float32),
              "g2": np.ones(d, np.float32), "b2": np.zeros(d, np.float32),
              "wqkv": f32(150, d, 3 * d, scale=0.2), "wo": f32(151, d, d, scale=0.2),
              "w1": f32(152, d, 4 * d, scale=0.2), "w2": f32(153, 4 * d, d, scale=0.2)}
    x = f32(154, seq, d)
    emit("transformer_block_grad", jax.value_and_grad(lambda p, x: jnp.sum(block(p, x) ** 2)),
         params, x, rtol=1e-4, atol=1e-4)
    ids = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)
    table = f32(155, 10, 4)
    emit("embedding_grad_segment_sum",
         lambda t, i: (jax.grad(lambda t: jnp.sum(t[i] ** 2))(t),
                       jax.ops.segment_sum(t[i], i % 3, num_segments=3)),
         table, ids, rtol=1e-5, atol=1e-6)
    emit("misc_numpy", lambda a, i: (jnp.roll(a, 2, axis=1), jnp.triu(a), jnp.clip(a, -0.5, 0.5),
                                     jnp.linalg.norm(a, axis=1), jnp.searchsorted(jnp.sort(a[0]), a[1]),
                                     jnp.cumsum(a[:, ::-1], axis=1), jnp.var(a), jnp.take(a, i % 4, axis=1),
                                     jax.vmap(jnp.outer)(a, a).sum(0)),
         f32(156, 4, 5), ids, rtol=1e-5, atol=1e-5)
    key = jax.random.key_data(jax.random.key(3))
    emit("random_permutation_categorical",
         lambda k: (jax.random.permutation(jax.random.wrap_key_data(k), 10),
                    jax.random.categorical(jax.random.wrap_key_data(k), jnp.log(jnp.arange(1.0, 6.0)), shape=(8,)),
                    jax.random.bernoulli(jax.random.wrap_key_data(k), 0.3, (6,)),
                    jax.random.truncated_normal(jax.random.wrap_key_data(k), -1.0, 1.0, (4,))),
         key, rtol=1e-5, atol=1e-5)


def random():
    key = jax.random.key_data(jax.random.key(42))
    for partitionable in (True, False):
        with jax.threefry_partitionable(partitionable):
            tag = "partitionable" if partitionable else "classic"
            emit("threefry_" + tag,
                 lambda k: (jax.random.bits(jax.random.wrap_key_data(k), (2, 3)),
                            jax.random.uniform(jax.random.wrap_key_data(k), (5,)),
                            jax.random.randint(jax.random.wrap_key_data(k), (4,), 0, 10),
                            jax.random.key_data(jax.random.split(jax.random.wrap_key_data(k), 3))),
                 key)
    emit("random_normal", lambda k: jax.random.normal(jax.random.wrap_key_data(k), (3, 4)), key,
         rtol=1e-5, atol=1e-5)
    rbg = jax.random.key_data(jax.random.key(7, impl="rbg"))
    emit("rng_bit_generator_rbg",
         lambda k: (jax.random.bits(jax.random.wrap_key_data(k, impl="rbg"), (4, 3)),
                    jax.random.bits(jax.random.wrap_key_data(k, impl="rbg"), (5,), dtype=jnp.uint8),
                    jax.random.bits(jax.random.wrap_key_data(k, impl="rbg"), (3,), dtype=jnp.uint64)
                    if jax.config.jax_enable_x64 else jnp.zeros(()),
                    jax.random.uniform(jax.random.wrap_key_data(k, impl="rbg"), (6,))), rbg)
    alg = lax.RandomAlgorithm
    state2 = np.array([0x0123456789ABCDEF, 0xFEDCBA9876543210], np.uint64)
    with jax.enable_x64(True):
        for name, algorithm in (("three_fry", alg.RNG_THREE_FRY), ("philox", alg.RNG_PHILOX)):
            emit("rng_bit_generator_" + name,
                 lambda s: (lax.rng_bit_generator(s, (3, 5), jnp.uint32, algorithm),
                            lax.rng_bit_generator(s, (2, 3), jnp.uint64, algorithm),
                            lax.rng_bit_generator(s, (), jnp.uint32, algorithm),
                            lax.rng_bit_generator(s, (7,), jnp.uint16, algorithm),
                            lax.rng_bit_generator(s, (4, 2), jnp.uint8, algorithm)), state2)


def sharded():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
    row = NamedSharding(mesh, P("x", "y"))
    rep = NamedSharding(mesh, P())
    part = NamedSharding(mesh, P("x"))
    x = jax.device_put(f32(130, 4, 8), row)
    y = jax.device_put(f32(131, 4, 8), part)

    def f(a, b):
        return jnp.tanh(a @ b.T) * 2, jnp.sum(a * b)

    kwargs = dict(in_shardings=(row, part), out_shardings=(part, rep), donate_argnums=(1,))
    emit_both("sharded_spmd", f, x, y, jit_kwargs=kwargs, rtol=1e-5, atol=1e-5)
    emit("donated_alias", lambda a, b: (a + b, b * 2), f32(132, 3), f32(133, 3),
         jit_kwargs=dict(donate_argnums=(0,)))


def emit_both(name, f, *args, **kw):
    """Emits NAME_gspmd and NAME_shardy: f lowered by each partitioner."""
    prev = jax.config.jax_use_shardy_partitioner
    try:
        for shardy in (False, True):
            jax.config.update("jax_use_shardy_partitioner", shardy)
            emit(name + ("_shardy" if shardy else "_gspmd"), f, *args, **kw)
    finally:
        jax.config.update("jax_use_shardy_partitioner", prev)


def shard_maps():
    """shard_map bodies: per-device programs whose collectives exchange data
    between the partitions; GSPMD writes them as SPMDFullToShardShape and
    SPMDShardToFullShape custom calls, Shardy as sdy.manual_computation."""
    devs = np.array(jax.devices()[:8])
    m1 = jax.sharding.Mesh(devs, ("x",))
    m4 = jax.sharding.Mesh(devs[:4], ("x",))
    m2 = jax.sharding.Mesh(devs.reshape(2, 4), ("x", "y"))
    smap = jax.shard_map
    ring8 = [(i, (i + 1) % 8) for i in range(8)]
    ring4 = [(i, (i + 3) % 4) for i in range(4)]
    emit_both("shard_map_psum", smap(lambda a: lax.psum(a * 2, "x"), mesh=m4, in_specs=P("x"), out_specs=P()),
              f32(134, 8))
    emit_both("shard_map_all_gather", smap(lambda a: lax.all_gather(a, "x", tiled=True), mesh=m1,
                                           in_specs=P("x"), out_specs=P(), check_vma=False), f32(140, 16, 3))
    emit_both("shard_map_ppermute", smap(lambda a: lax.ppermute(a, "x", ring8), mesh=m1, in_specs=P("x"),
                                         out_specs=P("x")), f32(141, 16))
    emit_both("shard_map_psum_scatter", smap(lambda a: lax.psum_scatter(a, "x", tiled=True), mesh=m1,
                                             in_specs=P("x"), out_specs=P("x")), f32(142, 64))
    emit_both("shard_map_all_to_all", smap(lambda a: lax.all_to_all(a, "x", 0, 1, tiled=True), mesh=m1,
                                           in_specs=P("x"), out_specs=P("x")), f32(143, 64, 8))
    emit_both("shard_map_axis_index", smap(lambda a: a + lax.axis_index("y").astype(a.dtype) * 10 + lax.axis_index("x"),
                                           mesh=m2, in_specs=P("x", "y"), out_specs=P("x", "y")), f32(144, 4, 8))
    # A 2x4 mesh: groups along "x" are strided ([0, 4], [1, 5], ...), along
    # "y" contiguous, and over both the whole mesh.
    emit_both("shard_map_2d", smap(lambda a: (lax.psum(a, "x"), lax.psum(a, ("x", "y")), lax.pmax(a, "y"),
                                              lax.all_gather(a, "y", axis=1, tiled=True)),
                                   mesh=m2, in_specs=P("x", "y"), out_specs=(P(None, "y"), P(), P("x"), P("x")),
                                   check_vma=False), f32(145, 4, 8))
    emit_both("shard_map_psum_i32", smap(lambda a: lax.psum(a, "x"), mesh=m2, in_specs=P("x", "y"),
                                         out_specs=P(None, "y")), ints(146, -1000, 1000, (4, 8), np.int32))
    emit_both("shard_map_between_global_ops",
              lambda a: smap(lambda b: lax.psum(b, "x"), mesh=m1, in_specs=P("x"), out_specs=P())(a * 2) + 1,
              f32(148, 8))
    emit_both("shard_map_in_loop",
              lambda a: lax.fori_loop(0, 3, lambda i, c: smap(lambda b: lax.ppermute(b, "x", ring4) * 0.5 + lax.psum(b, "x"),
                                                             mesh=m4, in_specs=P("x"), out_specs=P("x"))(c), a),
              f32(149, 8))
    # Manual over "x" only, "y" left to the partitioner: Shardy only (the
    # interpreter does not run partially manual GSPMD regions).
    prev = jax.config.jax_use_shardy_partitioner
    try:
        jax.config.update("jax_use_shardy_partitioner", True)
        emit("shard_map_partial_auto_shardy", smap(lambda a: lax.psum(a, "x"), mesh=m2, in_specs=P("x"), out_specs=P(),
                                                   axis_names={"x"}), f32(147, 4, 8))
    finally:
        jax.config.update("jax_use_shardy_partitioner", prev)


def main():
    global OUT
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if re.search(r"\.(mlir|mlirbc|json)$", old):
            os.remove(os.path.join(OUT, old))
    for section in (elementwise, integers, compares_and_select, conversions, low_precision,
                    float8, subbyte, shapes, dots, reductions, convolutions, linalg, indexing, sorting, control_flow,
                    models, transformer, random, sharded, shard_maps):
        section()
    print(f"wrote {COUNT} programs to {OUT} (jax {jax.__version__})")


if __name__ == "__main__":
    main()
