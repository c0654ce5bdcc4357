"""Training as most JAX users write it, with Flax and Optax, on the proxy's
devices and on as many local CPU devices (JAX_PLATFORMS=proxy,cpu), compared
by value, dtype and sharding (_paired):

- a small decoder language model in flax.nnx (attention with a causal mask,
  LayerNorm, GELU MLP, dropout, tied embeddings), its parameters sharded over
  a ("data", "model") mesh of every device by their partitioning metadata,
  trained by nnx.Optimizer with AdamW under a warmup-cosine schedule and
  global-norm clipping, the model and optimizer donated to nnx.jit each step;
- a flax.linen CNN with BatchNorm statistics and dropout in a TrainState,
  SGD with Nesterov momentum and weight decay accumulated over two steps
  (optax.MultiSteps), data-parallel with the state donated, then evaluated
  with shard_map and pmean.

Needs flax and optax (the newest JAX environment has them). Prints
{"versions": {...}} and {"cases": {name: error relative to the values' size,
or a message}}.
"""

import functools

import numpy as np

import _common

jax = _common.init()
import flax
import flax.linen as nn
import jax.numpy as jnp
import optax
from flax import nnx
from flax.training import train_state
from jax.sharding import NamedSharding, PartitionSpec as P

import _paired

_common.emit(versions={"flax": flax.__version__, "optax": optax.__version__})


def nnx_language_model(devs, mesh):
  vocab, dim, heads, layers, length, batch = 64, 32, 4, 2, 16, 8

  def sharded(init, *axes):
    return nnx.with_partitioning(init, axes)

  class Block(nnx.Module):
    def __init__(self, rngs):
      self.ln1 = nnx.LayerNorm(dim, rngs=rngs)
      # No biases, as in most recent LMs; a key bias would get only rounding
      # noise for gradients (softmax ignores a constant per query), which
      # Adam scales up to whole steps in either direction.
      self.attn = nnx.MultiHeadAttention(num_heads=heads, in_features=dim, decode=False, use_bias=False, rngs=rngs,
                                         kernel_init=sharded(nnx.initializers.lecun_normal(), None, "model", None))
      self.ln2 = nnx.LayerNorm(dim, rngs=rngs)
      self.up = nnx.Linear(dim, 4 * dim, kernel_init=sharded(nnx.initializers.lecun_normal(), None, "model"), rngs=rngs)
      self.down = nnx.Linear(4 * dim, dim, kernel_init=sharded(nnx.initializers.lecun_normal(), "model", None), rngs=rngs)
      self.drop = nnx.Dropout(0.1, rngs=rngs)

    def __call__(self, x, mask):
      x = x + self.drop(self.attn(self.ln1(x), mask=mask))
      return x + self.drop(self.down(nnx.gelu(self.up(self.ln2(x)))))

  class LM(nnx.Module):
    def __init__(self, rngs):
      self.embed = nnx.Embed(vocab, dim, rngs=rngs, embedding_init=sharded(nnx.initializers.normal(0.02), "model", None))
      self.blocks = nnx.List([Block(rngs) for _ in range(layers)])
      self.ln = nnx.LayerNorm(dim, rngs=rngs)

    def __call__(self, tokens):
      x = self.embed(tokens)
      mask = nnx.make_causal_mask(tokens)
      for b in self.blocks:
        x = b(x, mask)
      return self.embed.attend(self.ln(x))

  @nnx.jit
  def create():
    model = LM(nnx.Rngs(0, dropout=1))
    state = nnx.state(model)
    nnx.update(model, jax.lax.with_sharding_constraint(state, nnx.get_named_sharding(state, mesh)))
    return model

  @nnx.jit(donate_argnums=(0, 1))
  def step(model, opt, tokens):
    def loss_fn(model):
      logits = model(tokens[:, :-1])
      return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    opt.update(model, grads)
    return loss

  with jax.set_mesh(mesh):
    model = create()
    schedule = optax.warmup_cosine_decay_schedule(0.0, 3e-3, 3, 20)
    opt = nnx.Optimizer(model, optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=0.01)),
                        wrt=nnx.Param)
    rng = np.random.default_rng(0)
    data = NamedSharding(mesh, P("data"))
    losses = []
    for _ in range(8):
      tokens = rng.integers(0, vocab, (batch, length + 1)).astype(np.int32)
      tokens[:, 1::2] = (tokens[:, 0:-1:2] + 1) % vocab  # something to learn
      losses.append(step(model, opt, jax.device_put(tokens, data)))
    return {"nnx_lm_losses": jnp.stack(losses), "nnx_lm_params": jax.tree.leaves(nnx.state(model, nnx.Param)),
            "nnx_lm_adam_mu": jax.tree.leaves(nnx.state(opt, nnx.OptState))}


def linen_cnn(devs, mesh):
  axes = mesh.axis_names

  class CNN(nn.Module):
    @nn.compact
    def __call__(self, x, train):
      x = nn.Conv(8, (3, 3))(x)
      x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
      x = nn.avg_pool(nn.relu(x), (2, 2), (2, 2))
      x = nn.relu(nn.Conv(16, (3, 3), strides=2)(x))
      x = nn.Dropout(0.2, deterministic=not train)(x.reshape(x.shape[0], -1))
      return nn.Dense(10)(x)

  class State(train_state.TrainState):
    batch_stats: dict

  model = CNN()
  with jax.default_device(devs[0]):
    variables = jax.jit(lambda k: model.init(k, jnp.zeros((2, 16, 16, 1)), train=False))(jax.random.key(0))
  tx = optax.MultiSteps(optax.chain(optax.add_decayed_weights(1e-4), optax.sgd(0.05, momentum=0.9, nesterov=True)),
                        every_k_schedule=2)
  state = State.create(apply_fn=model.apply, params=variables["params"], tx=tx, batch_stats=variables["batch_stats"])
  state = jax.device_put(state, NamedSharding(mesh, P()))
  data = NamedSharding(mesh, P(axes))

  @functools.partial(jax.jit, donate_argnums=0)
  def train_step(state, x, y, key):
    key = jax.random.fold_in(key, state.step)

    def loss_fn(params):
      logits, updates = state.apply_fn({"params": params, "batch_stats": state.batch_stats}, x, train=True,
                                       mutable=["batch_stats"], rngs={"dropout": key})
      return optax.softmax_cross_entropy(logits, jax.nn.one_hot(y, 10)).mean(), (logits, updates)

    (loss, (logits, updates)), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    state = state.apply_gradients(grads=grads, batch_stats=updates["batch_stats"])
    return state, {"loss": loss, "accuracy": jnp.mean(jnp.argmax(logits, -1) == y)}

  @jax.jit
  def evaluate(state, x, y):
    @functools.partial(jax.shard_map, mesh=mesh, in_specs=(P(), P(axes), P(axes)), out_specs=P())
    def part(variables, x, y):
      logits = model.apply(variables, x, train=False)
      return jax.lax.pmean(jnp.mean(jnp.argmax(logits, -1) == y), axes), jax.lax.psum(jnp.sum(y), axes)
    return part({"params": state.params, "batch_stats": state.batch_stats}, x, y)

  rng = np.random.default_rng(0)
  n = len(devs)
  images = rng.standard_normal((8 * n, 16, 16, 1)).astype(np.float32)
  labels = ((images.mean(axis=(1, 2, 3)) > 0) + 2 * (images[:, 0, 0, 0] > 0)).astype(np.int32)
  key = jax.random.key(1)
  metrics = []
  for _ in range(6):
    pick = rng.permutation(len(images))[: 4 * n]
    state, m = train_step(state, jax.device_put(images[pick], data), jax.device_put(labels[pick], data), key)
    metrics.append(m)
  return {"linen_cnn_metrics": jax.tree.map(lambda *v: jnp.stack(v), *metrics), "linen_cnn_params": state.params,
          "linen_cnn_batch_stats": state.batch_stats, "linen_cnn_step": state.step,
          "linen_cnn_eval": evaluate(state, jax.device_put(images, data), jax.device_put(labels, data))}


_common.emit(cases=_paired.run((nnx_language_model, linen_cnn), _paired.device_sets(("data", "model"))))
