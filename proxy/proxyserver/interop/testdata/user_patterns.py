"""What a JAX user writes first, over a mesh of every proxy device, compared
with the same code on local CPU JAX (JAX_PLATFORMS=proxy,cpu with as many
local CPU devices): jit with arguments that carry no sharding of their own
(numpy arrays, PRNG keys, uncommitted arrays, a mix with committed ones), and
a small transformer trained with donated parameters, lax.scan over its layers
and checkpoints read back with device_get.

With PAUSE=1 the script stops twice on the proxy, printing {"waiting": step}
and reading a line from stdin, so that the test can count what the backend
holds: "initialized" with one parameter tree, and "donated" after the
donating steps while it still holds every old tree.
"""

import gc
import os
import sys

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

proxy_devs, cpu_devs = _common.paired_devices(jax)
n = len(proxy_devs)
model = 2 if n % 2 == 0 else 1


def wait_for_test(step):
  # jaxlib destroys dropped arrays in batches, sent ahead of its next request.
  gc.collect()
  np.asarray(jax.device_put(np.zeros(1)))
  _common.emit(waiting=step)
  sys.stdin.readline()


def mesh_of(devs):
  return Mesh(np.array(devs).reshape(n // model, model), ("data", "model"))


def sharding_patterns(mesh):
  """Each pattern returns host values; none passes in_shardings."""
  rows = NamedSharding(mesh, P("data"))
  grid = NamedSharding(mesh, P("data", "model"))
  repl = NamedSharding(mesh, P())
  out = {}
  out["prng_key"] = jax.jit(lambda k: jax.random.normal(k, (2 * n, 4)), out_shardings=grid)(jax.random.PRNGKey(0))
  out["typed_key"] = jax.jit(lambda k: jax.random.uniform(k, (2 * n,)), out_shardings=rows)(jax.random.key(1))
  out["uncommitted"] = jax.jit(lambda a: a * 2 + 1, out_shardings=rows)(jnp.arange(2.0 * n))
  out["numpy"] = jax.jit(lambda a: a * 3, out_shardings=grid)(np.ones((2 * n, 2 * model), np.float32))
  committed = jax.device_put(np.arange(4.0 * n, dtype=np.float32).reshape(2 * n, 2), rows)
  out["mixed"] = jax.jit(lambda a, b, c: (a * b).sum(axis=1) + c, out_shardings=rows)(
      committed, np.full((2 * n, 2), 0.5, np.float32), jnp.ones((2 * n,)))
  out["replicated_out"] = jax.jit(lambda a: jnp.sum(a), out_shardings=repl)(np.arange(8.0))
  split = jax.jit(lambda k: jax.random.split(k, n))(jax.random.PRNGKey(3))
  out["key_split"] = jax.random.key_data(split) if hasattr(jax.random, "key_data") else split
  out["no_out_shardings"] = jax.jit(lambda a, b: a @ b)(np.ones((4, 3), np.float32), committed[:3])
  return {k: np.asarray(jax.device_get(v)) for k, v in out.items()}


LAYERS, D, HEADS, SEQ, VOCAB, BATCH = 2, 16, 2, 8, 32, 2 * n


def init_params(key):
  ks = jax.random.split(key, 6)
  def w(k, *shape):
    return jax.random.normal(k, (LAYERS,) + shape, jnp.float32) * 0.2
  return {
      "embed": jax.random.normal(ks[0], (VOCAB, D), jnp.float32) * 0.2,
      "layers": {"wqkv": w(ks[1], D, 3 * D), "wo": w(ks[2], D, D),
                 "w1": w(ks[3], D, 4 * D), "w2": w(ks[4], 4 * D, D),
                 "ln": jnp.ones((LAYERS, D), jnp.float32)},
      "out": jax.random.normal(ks[5], (D, VOCAB), jnp.float32) * 0.2,
  }


def param_shardings(mesh):
  m = lambda *spec: NamedSharding(mesh, P(*spec))
  return {"embed": m(None, "model"),
          "layers": {"wqkv": m(None, None, "model"), "wo": m(None, "model", None),
                     "w1": m(None, None, "model"), "w2": m(None, "model", None), "ln": m()},
          "out": m("model", None)}


def forward(params, tokens):
  x = params["embed"][tokens]
  mask = jnp.tril(jnp.ones((SEQ, SEQ), bool))

  def layer(x, p):
    h = x * p["ln"] / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    q, k, v = jnp.split(h @ p["wqkv"], 3, axis=-1)
    split = lambda t: t.reshape(t.shape[0], SEQ, HEADS, D // HEADS)
    q, k, v = split(q), split(k), split(v)
    att = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(D // HEADS))
    att = jax.nn.softmax(jnp.where(mask, att, -1e9), axis=-1)
    o = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(x.shape)
    x = x + o @ p["wo"]
    return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"], None

  x, _ = jax.lax.scan(layer, x, params["layers"])
  return x @ params["out"]


def loss_fn(params, tokens):
  logits = forward(params, tokens[:, :-1])
  labels = jax.nn.one_hot(tokens[:, 1:], VOCAB)
  return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * labels, axis=-1))


def train(mesh, pause):
  shardings = param_shardings(mesh)
  params = jax.jit(init_params, out_shardings=shardings)(jax.random.PRNGKey(42))
  if pause:
    jax.block_until_ready(params)
    wait_for_test("initialized")

  def step(params, tokens):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens)
    return jax.tree.map(lambda p, g: p - 0.5 * g, params, grads), loss

  step = jax.jit(step, donate_argnums=0)
  data_sharding = NamedSharding(mesh, P("data"))
  rng = np.random.default_rng(7)
  losses, old = [], []

  def train_step(i, params):
    tokens = rng.integers(0, VOCAB, (BATCH, SEQ + 1)).astype(np.int32)
    if i % 2:
      tokens = jax.device_put(tokens, data_sharding)  # committed; otherwise numpy
    params, loss = step(params, tokens)
    losses.append(float(loss))
    return params

  for i in range(6):
    old.append(params)
    params = train_step(i, params)
  if pause:
    jax.block_until_ready(params)
    wait_for_test("donated")
  # A checkpoint read back from the device, then parameters donated again.
  checkpoint = jax.device_get(params)
  for i in range(6, 8):
    old.append(params)
    params = train_step(i, params)
  deleted = [bool(leaf.is_deleted()) for tree in old for leaf in jax.tree.leaves(tree)]
  try:
    jax.device_get(old[0])
    read_deleted = "no error"
  except Exception as e:  # what a user sees reading a donated array
    read_deleted = type(e).__name__ + ": " + str(e).splitlines()[0][:200]
  return losses, jax.device_get(params), checkpoint, deleted, read_deleted


proxy_mesh, cpu_mesh = mesh_of(proxy_devs), mesh_of(cpu_devs)
got, want = sharding_patterns(proxy_mesh), sharding_patterns(cpu_mesh)
pattern_err = {}
for k in want:
  g, w = got[k], want[k]
  if g.shape != w.shape or g.dtype != w.dtype:
    pattern_err[k] = f"{g.dtype}{g.shape} vs {w.dtype}{w.shape}"
  else:
    pattern_err[k] = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)), initial=0.0))
_common.emit(pattern_err=pattern_err)

pause = os.environ.get("PAUSE") == "1"
l_proxy, p_proxy, c_proxy, deleted, read_deleted = train(proxy_mesh, pause)
l_cpu, p_cpu, c_cpu, deleted_cpu, _ = train(cpu_mesh, False)
flat = lambda t: jax.tree.leaves(t)
param_err = max(float(np.max(np.abs(a - b))) for a, b in zip(flat(p_proxy), flat(p_cpu)))
ckpt_err = max(float(np.max(np.abs(a - b))) for a, b in zip(flat(c_proxy), flat(c_cpu)))
loss_err = max(abs(a - b) for a, b in zip(l_proxy, l_cpu))
_common.emit(losses=l_proxy, loss_err=loss_err, param_err=param_err, checkpoint_err=ckpt_err,
             decreased=l_proxy[-1] < l_proxy[0], donated_deleted=sum(deleted), donated_total=len(deleted),
             local_donated_deleted=sum(deleted_cpu), read_deleted=read_deleted,
             deleted=deleted, local_deleted=deleted_cpu)
