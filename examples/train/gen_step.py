"""Writes train_step.mlir: one SGD step of a small MLP, lowered by JAX to StableHLO text.

The step is data-parallel: parameters are replicated, the batch is split by rows over
N devices, and XLA's SPMD annotations (mhlo.sharding, mhlo.num_partitions) say so. The
Go driver (main.go) runs it on any ifrt backend that compiles StableHLO text.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 .venv/bin/python examples/train/gen_step.py
"""
import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

DEVICES = 8
BATCH, IN, HIDDEN, OUT = 64, 8, 32, 1
LEARNING_RATE = 0.05


def loss_fn(params, x, y):
    w1, b1, w2, b2 = params
    h = jnp.tanh(x @ w1 + b1)
    pred = h @ w2 + b2
    return jnp.mean((pred - y) ** 2)


def train_step(w1, b1, w2, b2, x, y):
    params = (w1, b1, w2, b2)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new = tuple(p - LEARNING_RATE * g for p, g in zip(params, grads))
    return (*new, loss)


def main(out):
    mesh = Mesh(jax.devices()[:DEVICES], ("data",))
    rep = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("data"))
    f32 = jnp.float32
    args = (
        jax.ShapeDtypeStruct((IN, HIDDEN), f32),
        jax.ShapeDtypeStruct((HIDDEN,), f32),
        jax.ShapeDtypeStruct((HIDDEN, OUT), f32),
        jax.ShapeDtypeStruct((OUT,), f32),
        jax.ShapeDtypeStruct((BATCH, IN), f32),
        jax.ShapeDtypeStruct((BATCH, OUT), f32),
    )
    step = jax.jit(
        train_step,
        in_shardings=(rep, rep, rep, rep, rows, rows),
        out_shardings=(rep, rep, rep, rep, rep),
    )
    text = step.lower(*args).as_text()
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "train_step.mlir"))
