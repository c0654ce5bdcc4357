"""device_put of buffers above and below jaxlib's large-transfer threshold.

The Go test sets IFRT_PROXY_GRPC_LARGE_TRANSFER_OPTIMIZATION_DIRECTORY and
..._THRESHOLD_BYTES, so the large array goes through a file in the shared
directory (HostBufferReadFromDisk) and the small one through HostBufferStore.
Both must read back bit-exact.
"""

import numpy as np

from _common import emit, init

jax = init()

rng = np.random.default_rng(1)
large = rng.integers(0, 1 << 31, (4 << 20,), dtype=np.int32)  # 16 MiB
small = rng.standard_normal(1000).astype(np.float32)
ok = {}
for name, host in (("large", large), ("small", small)):
  a = jax.device_put(host, jax.devices()[0])
  ok[name] = bool(np.array_equal(np.asarray(a), host))
  b = jax.jit(lambda x: x + 1)(a)
  ok[name + "_jit"] = bool(np.array_equal(np.asarray(b), host + 1))
emit(bit_exact=ok)
