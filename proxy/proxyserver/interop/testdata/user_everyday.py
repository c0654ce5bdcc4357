"""Everyday JAX user patterns not in user_patterns.py, each run on the proxy's
devices and on as many local CPU devices (JAX_PLATFORMS=proxy,cpu), compared by
value, shape, dtype and sharding: typed PRNG keys through jit and vmap, static
and weakly typed arguments, explicit in/out shardings on a 2D mesh, an MLP
trained with a hand-written Adam and donated sharded state, common jnp/lax/nn
ops, a jax.export round trip, pmap with collectives, host reads, transfers
between devices, JAX from several threads at once, and the errors a user
makes.

Prints {"cases": {name: error relative to the values' size, or a message}} and
{"errors": {name: what the user sees}}.
"""

import queue
import threading
import warnings

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

import _paired
from _paired import attempt

proxy_devs, _ = _common.paired_devices(jax)
n = len(proxy_devs)


def key_patterns(devs, mesh):
  with jax.default_device(devs[0]):
    key = jax.random.key(0)
    out = {}
    split = jax.jit(lambda k: jax.random.split(k, 4))(key)
    out["key_split"] = split
    out["key_fold_in"] = jax.jit(lambda k, i: jax.random.fold_in(k, i))(key, 7)
    out["key_vmap_normal"] = jax.vmap(lambda k: jax.random.normal(k, (3,)))(split)
    out["key_jit_vmap"] = jax.jit(jax.vmap(lambda k: jax.random.uniform(k, (2,))))(split)
    def step(k):
      k, sub = jax.random.split(k)
      return k, jax.random.bernoulli(sub, 0.5, (5,))
    k2, bits = jax.jit(step)(key)
    out["key_out"], out["key_bits"] = k2, bits
    out["key_wrap"] = jax.jit(lambda d: jax.random.normal(jax.random.wrap_key_data(d), (2,)))(jax.random.key_data(key))
    out["key_randint"] = jax.random.randint(key, (6,), -5, 5)
    out["key_perm"] = jax.random.permutation(key, 10)
    out["key_sharded"] = jax.device_put(jax.random.split(key, n), NamedSharding(mesh, P(("a", "b"))))
  return out


def scalar_patterns(devs, mesh):
  with jax.default_device(devs[0]):
    x = jnp.arange(6.0, dtype=jnp.float32)
    out = {}
    f = jax.jit(lambda a, k: a * k, static_argnums=1)
    out["static_argnums"] = f(x, 3)
    g = jax.jit(lambda a, mode="sum": a.sum() if mode == "sum" else a.max(), static_argnames="mode")
    out["static_argnames"] = g(x, mode="max")
    out["weak_scalar"] = jax.jit(lambda a, s: a * s)(x, 2.5)
    out["weak_only"] = jax.jit(lambda s: s * 2)(3.0)
    out["int_scalar"] = jax.jit(lambda a, i: a + i)(jnp.arange(3, dtype=jnp.int8), 5)
    out["numpy_f64"] = jax.jit(lambda a: a + 1)(np.ones(3))
    out["python_list"] = jnp.asarray([1, 2, 3]) * 2
    out["bool_arg"] = jax.jit(lambda a, b: jnp.where(b, a, -a))(x, True)
  return out


def sharding_patterns(devs, mesh):
  grid, rows, repl = NamedSharding(mesh, P("a", "b")), NamedSharding(mesh, P("a")), NamedSharding(mesh, P())
  x = np.arange(8 * 8, dtype=np.float32).reshape(8, 8)
  w = np.linspace(-1, 1, 8 * 4, dtype=np.float32).reshape(8, 4)
  out = {}
  f = jax.jit(lambda a, b: jnp.tanh(a @ b), in_shardings=(grid, NamedSharding(mesh, P("b", None))), out_shardings=rows)
  out["in_out_shardings"] = f(x, w)
  def constrained(a):
    h = jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, ("a", "b"))))
    return jax.lax.with_sharding_constraint(h.sum(axis=1), repl)
  out["with_sharding_constraint"] = jax.jit(constrained)(jax.device_put(x, grid))
  out["transpose_sharded"] = jax.jit(lambda a: a.T, out_shardings=grid)(jax.device_put(x, grid))
  ga = jax.device_put(x, grid)
  # Eager ops and jit without out_shardings keep what is elementwise of a
  # sharded argument sharded, as XLA does; gocpu replays XLA's propagation
  # through the ops below (docs/gocpu.md).
  out["eager_bcast"] = ga + jnp.arange(8.0, dtype=jnp.float32)
  out["jit_noout"] = jax.jit(lambda a: jnp.tanh(a @ a) + a)(ga)
  # Transposes, matmuls, reductions, broadcasts, slices and reshapes keep
  # the sharding XLA's propagation gives them, eager or under jit.
  ra = jax.device_put(x, rows)
  cb = jax.device_put(w, NamedSharding(mesh, P(None, "b")))
  out["eager_transpose"] = ga.T
  out["eager_matmul_rows"] = ra @ w
  out["eager_matmul_cols"] = x @ cb
  out["eager_matmul_both"] = ra @ cb
  out["eager_matmul_contracted"] = ga @ w
  out["eager_matmul_self"] = ga @ ga.T
  out["eager_sum0"] = ga.sum(0)
  out["eager_sum1"] = ga.sum(1)
  out["eager_mean_keepdims"] = ga.mean(1, keepdims=True)
  out["eager_argmax"] = ga.argmax(1)
  out["eager_slice_cols"] = ga[:, :4]
  out["eager_slice_rows"] = ga[:4]
  out["eager_index"] = ga[0]
  out["eager_reshape_flat"] = ga.reshape(64)
  out["eager_reshape_unit"] = ga.reshape(8, 1, 8)
  out["eager_expand"] = ga[None]
  out["eager_broadcast_to"] = jnp.broadcast_to(ra, (3, 8, 8))
  out["jit_transpose"] = jax.jit(lambda a: a.T)(ga)
  out["jit_slice"] = jax.jit(lambda a: a[:4, 2:6])(ga)
  out["jit_reshape_split"] = jax.jit(lambda a: a.reshape(2, 4, 8))(ga)
  out["jit_matmul"] = jax.jit(lambda a, b: a @ b)(ra, cb)
  out["jit_mlp"] = jax.jit(lambda a, b: jax.nn.relu(a @ b).sum(1))(ra, cb)
  out["jit_softmax"] = jax.jit(lambda a: jax.nn.softmax(a, axis=-1))(ga)
  out["jit_layernorm"] = jax.jit(lambda a: (a - a.mean(-1, keepdims=True)) / jnp.sqrt(a.var(-1, keepdims=True) + 1e-5))(ra)
  out["jit_multi_out"] = jax.jit(lambda a, b: (a * 2, a * 2 + b @ b.T, (a @ b).T))(ga, cb)
  out["reshard_put"] = jax.device_put(jax.device_put(x, grid), NamedSharding(mesh, P("b", "a")))
  # Loops, conds and checkpoints keep what flows through them (XLA's
  # data-flow edges), so a loop's result goes into a jit with in_shardings
  # as it does locally (it came back replicated: ValueError).
  loop = jax.jit(lambda a: jax.lax.fori_loop(0, 3, lambda _, c: c * 2 + 1, a))(ga)
  out["jit_fori"] = loop
  out["jit_fori_then_in_shardings"] = jax.jit(lambda a: a + 1, in_shardings=grid)(loop)
  out["jit_while"] = jax.jit(lambda a: jax.lax.while_loop(lambda c: c.sum() < 1e6, lambda c: c * 2 + 1, a))(ra)
  out["jit_cond"] = jax.jit(lambda a: jax.lax.cond(a[0, 0] > 0, lambda v: v.sum(0), lambda v: v.max(0), a))(ga)
  out["jit_checkpoint_grad"] = jax.jit(jax.grad(lambda v: jax.checkpoint(lambda u: jnp.sin(u) * u)(v).sum()))(ga)
  # So do scatters (.at[]), scans (dynamic_update_slice) and convolutions.
  out["eager_at_set"] = ra.at[5, 1].set(100.0)
  out["jit_at_add_then_in_shardings"] = jax.jit(lambda a: a * 2, in_shardings=grid)(jax.jit(lambda a: a.at[:, 0].add(1.0))(ga))
  out["jit_segment_sum"] = jax.jit(lambda a: jax.ops.segment_sum(a, jnp.array([0, 1, 1, 3, 2, 0, 3, 1]), num_segments=4))(ra)
  out["jit_scan_stack"] = jax.jit(lambda a: jax.lax.scan(lambda c, r: (c * 0.5 + r, jnp.tanh(r + c)), jnp.zeros(8, jnp.float32), a))(ga)
  images = jax.device_put(np.linspace(-1, 1, 8 * 6 * 6 * 2, dtype=np.float32).reshape(8, 6, 6, 2), NamedSharding(mesh, P("a")))
  out["jit_conv"] = jax.jit(lambda a: jax.lax.conv_general_dilated(a, jnp.ones((3, 3, 2, 4), jnp.float32) / 9, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))(images)
  # A PRNG key passed in (JAX places it on an empty mesh) and top_k.
  dropout = jax.jit(lambda a, k: jnp.where(jax.random.bernoulli(k, 0.5, a.shape), a, 0.0))(ga, jax.random.key(3))
  out["jit_dropout_key_arg_then_in_shardings"] = jax.jit(lambda a: a * 2, in_shardings=grid)(dropout)
  out["jit_top_k"] = jax.jit(lambda a: jax.lax.top_k(a, 3))(ra)
  return out


def ops_patterns(devs, mesh):
  rng = np.random.default_rng(0)
  x = rng.standard_normal((4, 6)).astype(np.float32)
  ints = np.array([-7, -3, -1, 0, 1, 3, 7], np.int32)
  out = {}
  with jax.default_device(devs[0]):
    j = jax.jit
    out["softmax"] = lambda: j(jax.nn.softmax)(x)
    out["gelu"] = lambda: j(jax.nn.gelu)(x)
    out["gelu_exact"] = lambda: j(lambda a: jax.nn.gelu(a, approximate=False))(x)
    out["logsumexp"] = lambda: j(lambda a: jax.nn.logsumexp(a, axis=1))(x)
    out["one_hot"] = lambda: j(lambda a: jax.nn.one_hot(a, 5))(np.array([0, 2, 4, 1]))
    out["relu_sigmoid"] = lambda: j(lambda a: jax.nn.relu(a) + jax.nn.sigmoid(a) + jax.nn.silu(a))(x)
    out["einsum"] = lambda: j(lambda a, b: jnp.einsum("ij,kj->ik", a, b))(x, x)
    out["einsum_batch"] = lambda: j(lambda a: jnp.einsum("bi,bj->bij", a, a))(x)
    out["cumsum"] = lambda: j(lambda a: jnp.cumsum(a, axis=1))(x)
    out["cumprod"] = lambda: j(lambda a: jnp.cumprod(a, axis=0))(x)
    out["argsort"] = lambda: j(lambda a: jnp.argsort(a, axis=1))(x)
    out["sort"] = lambda: j(jnp.sort)(x)
    out["take_along_axis"] = lambda: j(lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1))(x)
    out["where3"] = lambda: j(lambda a: jnp.where(a > 0, a, 0.1 * a))(x)
    out["floordiv_neg"] = lambda: j(lambda a: a // 3)(ints)
    out["mod_neg"] = lambda: j(lambda a: a % 3)(ints)
    out["mod_neg_divisor"] = lambda: j(lambda a: a % -3)(ints)
    out["remainder_f"] = lambda: j(lambda a: jnp.remainder(a, 1.5))(x)
    out["fmod"] = lambda: j(lambda a: jnp.fmod(a, 3))(ints)
    out["bool_any_all"] = lambda: j(lambda a: (jnp.any(a > 1, axis=1), jnp.all(a > -3), jnp.sum(a > 0)))(x)
    out["unique_size"] = lambda: j(lambda a: jnp.unique(a, size=6, fill_value=-1))(np.array([3, 1, 3, 2, 1, 9], np.int32))
    out["argmax"] = lambda: j(lambda a: (jnp.argmax(a, axis=0), jnp.argmin(a)))(x)
    out["top_k"] = lambda: j(lambda a: jax.lax.top_k(a, 3))(x)
    out["dynamic_slice"] = lambda: j(lambda a, i: jax.lax.dynamic_slice(a, (i, i + 1), (2, 3)))(x, 1)
    out["dynamic_update_slice"] = lambda: j(lambda a, i: jax.lax.dynamic_update_slice(a, jnp.ones((2, 2), a.dtype), (i, 2 * i)))(x, 1)
    out["dynamic_slice_oob"] = lambda: j(lambda a, i: jax.lax.dynamic_slice_in_dim(a, i, 3, axis=1))(x, 5)
    out["index_traced"] = lambda: j(lambda a, i: a[i, ::2])(x, 2)
    out["at_set_add"] = lambda: j(lambda a: a.at[1, 2].set(9.0).at[:, 0].add(1.0).at[0].mul(2.0))(x)
    out["fori_loop"] = lambda: j(lambda a: jax.lax.fori_loop(0, 5, lambda i, c: c * 0.5 + i, a))(x)
    out["while_loop"] = lambda: j(lambda a: jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, a)))(x)
    out["cond_pytree"] = lambda: j(lambda p, a: jax.lax.cond(p, lambda t: {"x": t["x"] + 1, "y": (t["y"][0] * 2,)},
                                                     lambda t: {"x": t["x"] - 1, "y": (t["y"][0] / 2,)}, {"x": a, "y": (a.sum(),)}))(True, x)
    out["switch"] = lambda: j(lambda i, a: jax.lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], a))(2, x)
    out["scan_cumsum"] = lambda: j(lambda a: jax.lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(6), a))(x)
    out["clip_round"] = lambda: j(lambda a: (jnp.clip(a, -0.5, 0.5), jnp.round(a * 3), jnp.floor(a), jnp.sign(a)))(x)
    out["astype"] = lambda: j(lambda a: (a.astype(jnp.int32), (a * 100).astype(jnp.uint8), a.astype(jnp.bfloat16)))(x)
    out["bf16_matmul"] = lambda: j(lambda a, b: jnp.dot(a.astype(jnp.bfloat16), b.astype(jnp.bfloat16), preferred_element_type=jnp.float32))(x, x.T)
    out["bf16_mixed"] = lambda: j(lambda a, b: (a.astype(jnp.bfloat16) @ b.astype(jnp.bfloat16)).astype(jnp.float32).sum())(x, x.T)
    out["f64"] = lambda: j(lambda a: jnp.exp(a.astype(jnp.float64)) @ jnp.ones(6, jnp.float64))(x)
    out["f64_precision"] = lambda: j(lambda a: a + 1e-12)(np.ones(3, np.float64))
    if jax.config.jax_enable_x64:  # beyond int32 only with 64-bit types on
      out["int64"] = lambda: j(lambda a: a * (2 ** 40))(np.arange(3, dtype=np.int64))
    out["linspace_meshgrid"] = lambda: j(lambda: jnp.meshgrid(jnp.linspace(0, 1, 3), jnp.arange(2)))()
    out["pad_concat"] = lambda: j(lambda a: jnp.concatenate([jnp.pad(a, ((1, 0), (0, 2))), jnp.zeros((5, 8))], axis=0))(x)
    out["nan_handling"] = lambda: j(lambda a: (jnp.nanmean(jnp.where(a > 0, a, jnp.nan)), jnp.isnan(jnp.log(a))))(x)
    out["var_std"] = lambda: j(lambda a: (jnp.var(a, axis=0), jnp.std(a), jnp.median(a)))(x)
    out["triu_eye"] = lambda: j(lambda a: jnp.triu(a[:, :4]) + jnp.eye(4))(x)
    out["roll_flip"] = lambda: j(lambda a: (jnp.roll(a, 2, axis=1), jnp.flip(a)))(x)
    out["searchsorted"] = lambda: j(lambda a: jnp.searchsorted(jnp.sort(a.ravel()), jnp.array([-1.0, 0.0, 1.0])))(x)
    out["bincount"] = lambda: j(lambda a: jnp.bincount(a, length=5))(np.array([0, 1, 1, 4, 2, 1], np.int32))
    out["grad_hessian"] = lambda: j(jax.hessian(lambda a: jnp.sum(jnp.sin(a) ** 2)))(x[0])
    out["jvp_vjp"] = lambda: j(lambda a: (jax.jvp(jnp.tanh, (a,), (jnp.ones_like(a),)), jax.vjp(jnp.sin, a)[1](a)))(x)
    return {k: attempt(v) for k, v in out.items()}


@jax.custom_vjp
def clipped_grad(v):
  """The identity, whose gradient is clipped to [-0.01, 0.01]."""
  return v


clipped_grad.defvjp(lambda v: (v, None), lambda _, g: (jnp.clip(g, -0.01, 0.01),))


def more_ops_patterns(devs, mesh):
  rng = np.random.default_rng(2)
  img = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
  ker = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
  x = rng.standard_normal((4, 6)).astype(np.float32)
  out = {}
  with jax.default_device(devs[0]):
    j = jax.jit
    key = jax.random.key(3)
    out["conv"] = lambda: j(lambda a, k: jax.lax.conv_general_dilated(a, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))(img, ker)
    out["conv_stride"] = lambda: j(lambda a, k: jax.lax.conv_general_dilated(a, k, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")))(img, ker)
    out["avg_pool"] = lambda: j(lambda a: jax.lax.reduce_window(a, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4)(img)
    out["max_pool"] = lambda: j(lambda a: jax.lax.reduce_window(a, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "SAME"))(img)
    out["conv_grad"] = lambda: j(jax.grad(lambda k, a: jnp.sum(jax.lax.conv_general_dilated(a, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)))(ker, img)
    out["norm"] = lambda: j(lambda a: (jnp.linalg.norm(a), jnp.linalg.norm(a, axis=1), jnp.linalg.norm(a, ord=1, axis=0)))(x)
    out["associative_scan"] = lambda: j(lambda a: jax.lax.associative_scan(jnp.add, a, axis=1))(x)
    out["lax_map"] = lambda: j(lambda a: jax.lax.map(lambda r: r * r.sum(), a))(x)
    out["interp"] = lambda: j(lambda a: jnp.interp(a, jnp.linspace(-2, 2, 5), jnp.arange(5.0)))(x)
    out["histogram"] = lambda: j(lambda a: jnp.histogram(a, bins=4, range=(-2, 2)))(x)
    out["categorical"] = lambda: j(lambda k, a: jax.random.categorical(k, a, axis=-1))(key, x)
    out["choice"] = lambda: j(lambda k: jax.random.choice(k, 10, (4,), replace=False))(key)
    out["gumbel_trunc"] = lambda: j(lambda k: (jax.random.gumbel(k, (3,)), jax.random.truncated_normal(k, -1.0, 1.0, (3,))))(key)
    out["multi_sort"] = lambda: j(lambda a: jax.lax.sort((a[0], a[1]), num_keys=1))(x)
    out["scatter_max"] = lambda: j(lambda a: jnp.zeros(3).at[jnp.array([0, 2, 0, 1])].max(a[0, :4]))(x)
    out["segment_sum"] = lambda: j(lambda a: jax.ops.segment_sum(a[0], jnp.array([0, 0, 1, 1, 2, 2]), num_segments=3))(x)
    out["isclose"] = lambda: j(lambda a: (jnp.isclose(a, a + 1e-9), jnp.allclose(a, a)))(x)
    out["int8_wrap"] = lambda: j(lambda a: (a * 3).astype(jnp.int8) + jnp.int8(100))(np.arange(-5, 5, dtype=np.int8))
    out["uint32_ops"] = lambda: j(lambda a: (a >> 3, a << 2, a ^ 0xFFFF, jax.lax.population_count(a)))(np.array([1, 255, 2 ** 31 + 7], np.uint32))
    out["float16"] = lambda: j(lambda a: (a.astype(jnp.float16) * 3).astype(jnp.float32))(x)
    x8 = (x * 100).astype(jnp.float8_e4m3fn)  # a float8 host array, sent as is
    out["float8"] = lambda: j(lambda a, b: (a.astype(jnp.float8_e5m2), (a * a).astype(jnp.float32),
                                            jnp.dot(b, b.T, preferred_element_type=jnp.float32)))(x * 500, x8)
    w4 = np.clip(np.round(x * 4), -8, 7).astype(jnp.int4)  # int4 weights, sent as is
    out["int4"] = lambda: j(lambda w, a: ((w.astype(jnp.float32) * 0.25) @ a.T, (a * 3).astype(jnp.int4), w + w,
                                          jnp.dot(a.astype(jnp.int8), w.T, preferred_element_type=jnp.int32)))(w4, x)
    out["dot_attention"] = lambda: j(lambda q: jax.nn.dot_product_attention(q, q, q, is_causal=True))(img.reshape(2, 8, 4, 6)[:, :, :2, :])
    out["layer_norm"] = lambda: j(lambda a: (a - a.mean(-1, keepdims=True)) * jax.lax.rsqrt(a.var(-1, keepdims=True) + 1e-5))(x)
    out["log_softmax_grad"] = lambda: j(jax.grad(lambda a: jax.nn.log_softmax(a)[0, 1]))(x)
    out["vmap_in_axes"] = lambda: j(jax.vmap(lambda a, b: a @ b, in_axes=(0, None)))(np.stack([x, x]), x.T)
    out["jacrev"] = lambda: j(jax.jacrev(lambda a: jnp.tanh(a) * a.sum()))(x[0])
    out["custom_jvp"] = lambda: j(jax.grad(lambda a: jax.nn.softplus(a).sum() + jax.nn.relu(a).sum()))(x)
    out["custom_vjp"] = lambda: j(jax.grad(lambda a: (clipped_grad(a) ** 3).sum()))(x)
    out["gather_modes"] = lambda: j(lambda a: (jnp.take(a, jnp.array([0, 20, -3]), axis=1, mode="clip"),
                                               a.at[jnp.array([1, 9])].get(mode="fill", fill_value=-1.0)))(x)
    out["reduce_precision"] = lambda: j(lambda a: jax.lax.reduce_precision(a * 100, exponent_bits=5, mantissa_bits=2))(x)
    out["donate_argnames"] = lambda: j(lambda p, g: jax.tree.map(lambda a, b: a - 0.1 * b, p, g), donate_argnames="p")(
        {"w": jnp.ones((4, 6))}, {"w": jnp.asarray(x)})
    out["argwhere_size"] = lambda: j(lambda a: jnp.argwhere(a > 0.5, size=5, fill_value=-1))(x)
    out["nonzero_size"] = lambda: j(lambda a: jnp.nonzero(a[0] > 0, size=6))(x)
    out["tile_repeat"] = lambda: j(lambda a: (jnp.tile(a, (2, 1)), jnp.repeat(a, 2, axis=1)))(x)
    out["outer_kron"] = lambda: j(lambda a: (jnp.outer(a[0], a[1]), jnp.kron(a[:2, :2], a[2:, :2])))(x)
    out["expm1_log1p"] = lambda: j(lambda a: (jnp.expm1(a * 1e-4), jnp.log1p(jnp.abs(a) * 1e-4), jnp.arctan2(a, a[::-1])))(x)
    long = rng.standard_normal(20000).astype(np.float32)
    out["cumsum_long"] = lambda: j(lambda a: (jnp.cumsum(a), jnp.cumsum(a[::-1])[::-1], jax.lax.cummax(a, reverse=True), jnp.cumprod(a[:30])))(long)
    out["bf16_sum_long"] = lambda: j(lambda a: jax.lax.reduce_sum(a, (0,)))(jnp.full((65536,), 0.01, jnp.bfloat16))
    out["bf16_bias_grad"] = lambda: j(jax.grad(lambda b: (jnp.ones((8192, 8), jnp.bfloat16) * 0.01 + b).astype(jnp.float32).sum()))(jnp.zeros((8,), jnp.bfloat16))
    out["erf_lgamma"] = lambda: j(lambda a: (jax.scipy.special.erf(a), jax.scipy.special.gammaln(jnp.abs(a) + 1), jax.scipy.stats.norm.logpdf(a)))(x)
    out["export_call"] = lambda: jax.export.export(j(lambda a: jnp.sin(a) + a.sum()))(jax.ShapeDtypeStruct(x.shape, x.dtype)).call(x)
    return {k: attempt(v) for k, v in out.items()}


def pmap_patterns(devs, mesh):
  """pmap, as older training loops still write it: one program per device."""
  x = np.arange(n * 6, dtype=np.float32).reshape(n, 6)
  ring = [(i, (i + 1) % n) for i in range(n)]
  def pm(f):
    return jax.pmap(f, axis_name="i", devices=devs)
  out = {}
  out["pmap_elementwise"] = lambda: pm(lambda a: a * 2 + 1)(x)
  out["pmap_psum"] = lambda: pm(lambda a: jax.lax.psum(a, "i"))(x)
  out["pmap_pmean_grad"] = lambda: pm(lambda a: jax.lax.pmean(jax.grad(lambda w: (w * a).sum())(a), "i"))(x)
  out["pmap_axis_index"] = lambda: pm(lambda a: a + jax.lax.axis_index("i"))(x)
  out["pmap_all_gather"] = lambda: pm(lambda a: jax.lax.all_gather(a, "i"))(x)
  out["pmap_ppermute"] = lambda: pm(lambda a: jax.lax.ppermute(a, "i", ring))(x)
  return {k: attempt(v) for k, v in out.items()}


def mlp_patterns(devs, mesh):
  """An MLP with a hand-written Adam: sharded params and optimizer state donated
  each step, value_and_grad with has_aux, scan over layers, remat."""
  L, D, B = 3, 16, 16
  psh = {"w": NamedSharding(mesh, P(None, "a", "b")), "b": NamedSharding(mesh, P(None, "b")),
         "head": NamedSharding(mesh, P("a", None))}
  def init(key):
    k1, k2 = jax.random.split(key)
    return {"w": jax.random.normal(k1, (L, D, D), jnp.float32) * 0.3, "b": jnp.zeros((L, D), jnp.float32),
            "head": jax.random.normal(k2, (D, 1), jnp.float32) * 0.3}
  with jax.default_device(devs[0]):
    params = jax.jit(init, out_shardings=psh)(jax.random.key(5))

  def forward(p, x):
    @jax.checkpoint
    def layer(h, wb):
      w, b = wb
      return jax.nn.gelu(h @ w + b), None
    h, _ = jax.lax.scan(layer, x, (p["w"], p["b"]))
    return (h @ p["head"])[:, 0]

  def loss_fn(p, x, y):
    pred = forward(p, x)
    loss = jnp.mean((pred - y) ** 2)
    return loss, {"pred_mean": pred.mean(), "l2": sum(jnp.sum(v * v) for v in jax.tree_util.tree_leaves(p))}

  def adam_init(p):
    z = jax.tree_util.tree_map(jnp.zeros_like, p)
    return {"m": z, "v": jax.tree_util.tree_map(jnp.zeros_like, p), "t": jnp.zeros((), jnp.int32)}

  def train_step(p, opt, x, y, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    (loss, aux), g = jax.value_and_grad(loss_fn, has_aux=True)(p, x, y)
    t = opt["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], g)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], g)
    tf = t.astype(jnp.float32)
    p = jax.tree_util.tree_map(lambda p, m, v: p - lr * (m / (1 - b1 ** tf)) / (jnp.sqrt(v / (1 - b2 ** tf)) + eps), p, m, v)
    return p, {"m": m, "v": v, "t": t}, loss, aux

  osh = {"m": psh, "v": psh, "t": NamedSharding(mesh, P())}
  opt = jax.jit(adam_init, out_shardings=osh)(params)
  step = jax.jit(train_step, donate_argnums=(0, 1), out_shardings=(psh, osh, None, None))
  rng = np.random.default_rng(1)
  data = NamedSharding(mesh, P(("a", "b")))
  losses, auxes, first = [], [], params
  for i in range(5):
    x = rng.standard_normal((B, D)).astype(np.float32)
    y = np.sin(x.sum(axis=1)).astype(np.float32)
    p_old = params
    params, opt, loss, aux = step(params, opt, jax.device_put(x, data), y)
    jax.block_until_ready((params, opt))
    losses.append(float(loss))
    auxes.append(aux["pred_mean"].item())
  deleted = first["w"].is_deleted() and p_old["head"].is_deleted()

  # Two donated sharded arguments, one output: XLA reuses only the first;
  # the second stays alive (JAX warns) and can be read.
  a, b = (jax.device_put(np.full((16, 4), v, np.float32), data) for v in (1, 2))
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    total = jax.jit(lambda a, b: a + b, donate_argnums=(0, 1))(a, b)
  return {"mlp_losses": np.array(losses), "mlp_aux": np.array(auxes), "mlp_params": params,
          "mlp_opt_t": opt["t"], "mlp_donated": np.array(deleted),
          "donate_unusable": np.array([a.is_deleted(), b.is_deleted()]), "donate_kept": b, "donate_sum": total}


def host_patterns(devs, mesh):
  out = {}
  x = jax.device_put(np.arange(12, dtype=np.float32).reshape(3, 4) / 4, devs[1])
  s = jnp.sum(x)
  out["float"] = np.array(float(s))
  out["item"] = np.array(x[1, 2].item())
  out["tolist"] = np.array(x.tolist())
  out["int"] = np.array(int(jnp.argmax(x)))
  out["bool"] = np.array(bool(s > 3))
  out["str"] = np.array(len(str(x)) > 0)
  out["iter_rows"] = np.stack([np.asarray(r) for r in x])
  out["put_other_device"] = jax.device_put(x, devs[5])
  moved = jax.device_put(x, devs[6])
  out["moved_devices"] = np.array([d.id - devs[0].id for d in moved.devices()])
  grid = NamedSharding(mesh, P("a", "b"))
  a = jax.device_put(np.arange(8 * 8, dtype=np.float32).reshape(8, 8), grid)
  shards = a.addressable_shards
  out["shard_indices"] = np.array([[sl.start or 0 for sl in sh.index] for sh in shards])
  out["shard_devices"] = np.array([sh.device.id - devs[0].id for sh in shards])
  out["shard_data"] = np.stack([np.asarray(sh.data) for sh in shards])
  out["sharding_eq"] = np.array(a.sharding == grid and a.sharding.is_equivalent_to(grid, 2))
  out["is_fully_replicated"] = np.array(jax.device_put(np.ones(4), NamedSharding(mesh, P())).is_fully_replicated)
  parts = [jax.device_put(np.full((1, 4), i, np.float32), d) for i, d in enumerate(devs)]
  rows = NamedSharding(mesh, P(("a", "b")))
  out["from_single_device_arrays"] = jax.make_array_from_single_device_arrays((n, 4), rows, parts)
  out["from_callback"] = jax.make_array_from_callback((8, 8), grid, lambda idx: np.arange(64, dtype=np.float32).reshape(8, 8)[idx])
  tree = {"a": a * 2, "b": [a + 1, jnp.ones(3)]}
  out["block_until_ready_tree"] = jax.block_until_ready(tree)
  from jax.experimental import multihost_utils
  out["process_allgather"] = multihost_utils.process_allgather(a, tiled=True)
  out["big_roundtrip"] = np.array(float(np.asarray(jax.device_put(np.ones((16 << 20,), np.float32), devs[2])).sum()))
  # An array computed a moment ago on one device, spread at once over every
  # device (both slices): the request making it could be overtaken by the
  # other slice's worker reading its piece (NOT_FOUND about 1 run in 4).
  flat = NamedSharding(mesh, P(("a", "b")))
  spread = [float(jax.device_put(jax.device_put(jnp.arange(16.0), devs[0]) + i, flat).sum()) for i in range(50)]
  out["spread_fresh"] = np.array(spread)
  # numpy views as inputs: overlapping windows, transposes, Fortran order, steps.
  base = np.arange(40, dtype=np.float32)
  out["sliding_windows"] = jnp.asarray(np.lib.stride_tricks.sliding_window_view(base, 5)) * 1
  out["views_as_args"] = jax.jit(lambda a, b, c: a.sum(0) + b.sum(1)[:1] * 2 + c.sum() * 3)(
      base.reshape(5, 8).T, np.asfortranarray(base.reshape(8, 5)), base[::3])
  out["transposed_put_sharded"] = jax.device_put(np.arange(n * 4, dtype=np.float32).reshape(4, n).T, rows) + 0
  smalls = [jax.device_put(np.array([i], np.int32), devs[i % n]) for i in range(3000)]
  out["many_small"] = np.array(sum(int(v[0]) for v in jax.device_get(smalls)))
  return out


def thread_patterns(devs, mesh):
  """JAX from several Python threads at once, as input pipelines and
  asynchronous checkpointing use it: threads running jit on devices of their
  own, and a thread putting sharded batches into a queue while another trains
  on them (donating the parameters) and a third reads the losses back."""
  failures = []

  def guarded(f, *args):
    def run():
      try:
        f(*args)
      except Exception as e:  # pylint: disable=broad-except
        failures.append(e)
    return threading.Thread(target=run)

  def join(threads):
    for t in threads:
      t.start()
    for t in threads:
      t.join()
    if failures:
      raise failures[0]

  out = {}
  own = [None] * 4
  def own_device(i):
    g = jax.jit(lambda a: a @ a.T / 32 + i)
    a = jax.device_put(np.full((32, 32), i + 1, np.float32) / 32, devs[(2 * i + 1) % n])
    rows = []
    for _ in range(10):
      a = g(a)
      rows.append(a[0])
    own[i] = jnp.stack(rows)
  join([guarded(own_device, i) for i in range(4)])
  out["threads_own_devices"] = own

  # Unbounded queues, and each stage ends the next with None even when it
  # fails, so that a failure is reported instead of leaving a thread waiting.
  batches, read = queue.Queue(), queue.Queue()
  def produce():
    try:
      rng = np.random.default_rng(7)
      for _ in range(6):
        batches.put(jax.device_put(rng.standard_normal((2 * n, 8)).astype(np.float32), NamedSharding(mesh, P(("a", "b")))))
    finally:
      batches.put(None)
  step = jax.jit(lambda w, x: (w - 0.01 * x.T @ (x @ w - x), jnp.mean((x @ w - x) ** 2)), donate_argnums=0)
  w = jax.device_put(np.zeros((8, 8), np.float32), NamedSharding(mesh, P()))
  def train():
    nonlocal w
    try:
      while (x := batches.get()) is not None:
        w, loss = step(w, x)
        read.put(loss)
    finally:
      read.put(None)
  losses = []
  def consume():
    while (v := read.get()) is not None:
      losses.append(float(v))
  join([guarded(produce), guarded(train), guarded(consume)])
  out["threads_prefetch_params"] = w
  out["threads_prefetch_losses"] = np.array(losses)
  return out


_common.emit(cases=_paired.run((key_patterns, scalar_patterns, sharding_patterns, ops_patterns, more_ops_patterns,
                                pmap_patterns, mlp_patterns, host_patterns, thread_patterns), _paired.device_sets()))


def error_of(f):
  try:
    f()
    return "no error"
  except Exception as e:  # pylint: disable=broad-except
    return f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"


errors = {}
d = jax.device_put(np.ones(4, np.float32), proxy_devs[0])
d.delete()
errors["use_deleted"] = error_of(lambda: np.asarray(d))
errors["jit_deleted"] = error_of(lambda: jax.jit(lambda a: a + 1)(d))
errors["shape_mismatch"] = error_of(lambda: jax.jit(lambda a, b: a @ b)(jnp.ones((3, 4)), jnp.ones((5, 6))))
errors["huge_jit"] = error_of(lambda: jax.block_until_ready(jax.jit(lambda: jnp.ones((1 << 38,), jnp.float32))()))
errors["after"] = error_of(lambda: np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a * 2)(jnp.arange(3))), [0, 2, 4]))
_common.emit(errors=errors)
