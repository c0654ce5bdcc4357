"""Writes train_step.mlir and train_step_shard_map.mlir: one SGD step of a small MLP,
lowered by JAX to StableHLO text.

The step is data-parallel: parameters are replicated, the batch is split by rows over
N devices. train_step.mlir says so with XLA's SPMD annotations (mhlo.sharding,
mhlo.num_partitions); train_step_shard_map.mlir is the same step written with
shard_map: each device computes the gradients of its rows, and a psum (an all_reduce)
averages them, as data parallelism over several hosts does. The Go driver (main.go)
runs either on any ifrt backend that compiles StableHLO text.

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


def sharded_step(w1, b1, w2, b2, x, y):
    """train_step on this device's rows, its gradients and loss averaged over all."""
    params = (w1, b1, w2, b2)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads = jax.lax.psum(grads, "data")
    new = tuple(p - LEARNING_RATE * g / DEVICES for p, g in zip(params, grads))
    return (*new, jax.lax.psum(loss, "data") / DEVICES)


def main(out, out_shard_map):
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
    with open(out, "w") as f:
        f.write(step.lower(*args).as_text())
    sharded = jax.jit(jax.shard_map(
        sharded_step, mesh=mesh,
        in_specs=(P(), P(), P(), P(), P("data"), P("data")),
        out_specs=(P(), P(), P(), P(), P()),
        # Gradients stay per device until the explicit psum (with the check,
        # JAX would sum the replicated parameters' gradients itself).
        check_vma=False))
    with open(out_shard_map, "w") as f:
        f.write(sharded.lower(*args).as_text())


if __name__ == "__main__":
    here = os.path.dirname(__file__)
    main(os.path.join(here, "train_step.mlir"), os.path.join(here, "train_step_shard_map.mlir"))
