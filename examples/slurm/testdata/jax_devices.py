# Run by slurm_test.go with the variables of cluster.env: a stock JAX client on
# the cluster the Slurm jobs started. Prints the device count, then puts an
# array on the last device (the last slice's worker) and reads it back.
import numpy as np

import jax
import pathwaysutils

pathwaysutils.initialize()
devices = jax.devices()
x = jax.device_put(np.arange(8, dtype=np.int32), devices[-1])
print("devices", len(devices), "sum", int(np.asarray(x).sum()))
