"""Server errors reach Python as JaxRuntimeError with their code; plugin
programs (pathwaysutils' PluginExecutable) compile, run and fail."""

import json
import sys

import numpy as np

import _common

jax = _common.init()
from jax import core
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from pathwaysutils import plugin_executable


def err(e):
  return {"type": type(e).__name__, "message": str(e)}


x = jax.device_put(np.arange(8, dtype=np.float32))

# An operation the server cannot do (jit, when the backend does not compile
# JAX's bytecode): the script reports what happened either way.
try:
  y = jax.jit(lambda a: a * 2 + 1)(x)
  _common.emit(jit={"ok": np.asarray(y).tolist()})
except Exception as e:  # pylint: disable=broad-except
  _common.emit(jit=err(e))

# A plugin program the server does not serve.
try:
  plugin_executable.PluginExecutable(json.dumps({"noSuchRequest": {}}))
  _common.emit(bad_plugin=None)
except Exception as e:  # pylint: disable=broad-except
  _common.emit(bad_plugin=err(e))

# A plugin program that echoes its inputs. Plugin executables run on every
# device, so their array arguments span every device.
mesh = Mesh(np.array(jax.devices()), ("d",))
x8 = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P("d")))
exe = plugin_executable.PluginExecutable(json.dumps({"testRequest": {}}))
outs, fut = exe.call(
    [x8], out_shardings=[x8.sharding], out_avals=[core.ShapedArray(x8.shape, x8.dtype)]
)
fut.result(timeout=60)
_common.emit(echo=np.asarray(outs[0]).tolist())

# A plugin program whose execution fails with DATA_LOSS (as lost hardware does).
exe = plugin_executable.PluginExecutable(json.dumps({"testRequest": {"fail": 15}}))
try:
  _, fut = exe.call()
  fut.result(timeout=60)
  _common.emit(failed_plugin=None)
except Exception as e:  # pylint: disable=broad-except
  _common.emit(failed_plugin=err(e))

# The session is still usable after the errors.
_common.emit(after=np.asarray(jax.device_put(np.ones(3, np.int32))).tolist())
