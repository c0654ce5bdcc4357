"""Complex values through the proxy, compared with local CPU JAX: complex64
and complex128 arrays put and read back, astype(complex64) (as a user wrote
it, eagerly), the FFTs (fft, ifft, rfft, irfft, fft2, fftn, rfft2 and irfft2,
power-of-two and other lengths), abs/angle/real/imag/conj, complex
arithmetic and math (exp, log, sqrt, sum), a spectral convolution
(irfft of a product of rfft), a complex matmul in jit, and complex128
(jax_enable_x64, which _common.init sets) astype, matmul and fft. Run with
JAX_PLATFORMS=proxy,cpu.

Prints roundtrip = {dtype: bit-exact}, then errors = {case: max abs error
relative to max(1, max |value|)} and dtypes = {case: [proxy's dtype, local
CPU's]} for the cases that ran. A case that fails stops the script, which
prints it as refused = {case, type, message}."""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp

dev = jax.devices()[0]
cpu = jax.devices("cpu")[0]
rng = np.random.default_rng(3)


def cplx(shape, dt):
  return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


roundtrip = {}
for dt in (np.complex64, np.complex128):
  a = cplx((3, 5), dt)
  back = np.asarray(jax.device_get(jax.device_put(a, dev)))
  roundtrip[np.dtype(dt).name] = back.dtype == a.dtype and back.tobytes() == a.tobytes()
_common.emit(roundtrip=roundtrip)

errors, dtypes = {}, {}


def record(name, got, want):
  got, want = np.asarray(jax.device_get(got)), np.asarray(jax.device_get(want))
  dtypes[name] = [got.dtype.name, want.dtype.name]
  scale = max(1.0, float(np.max(np.abs(want.astype(np.complex128))))) if want.size else 1.0
  diff = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
  errors[name] = float(np.max(diff)) / scale if diff.size else 0.0


def astype_c64():
  # What the user ran: eager ops on the default (proxy) device.
  got = jnp.arange(12).reshape(3, 4).astype(jnp.complex64)
  with jax.default_device(cpu):
    want = jnp.arange(12).reshape(3, 4).astype(jnp.complex64)
  record("astype_c64", got, want)


def jitted(name, fn, *args):
  def run():
    got = jax.jit(fn)(*[jax.device_put(a, dev) for a in args])
    want = jax.jit(fn)(*[jax.device_put(a, cpu) for a in args])
    record(name, got, want)
  return name, run


z = cplx((3, 4), np.complex64)
cases = [
    ("astype_c64", astype_c64),
    jitted("fft", jnp.fft.fft, rng.standard_normal(16).astype(np.float32)),
    jitted("abs", jnp.abs, z),
    jitted("angle", jnp.angle, z),
    jitted("real", jnp.real, z),
    jitted("imag", jnp.imag, z),
    jitted("conj", jnp.conj, z),
    jitted("matmul_c64", lambda a, b: a @ b, z, cplx((4, 5), np.complex64)),
    jitted("astype_c128", lambda a: a.astype(jnp.complex128), rng.standard_normal((3, 4))),
    jitted("matmul_c128", lambda a, b: a @ b, cplx((3, 4), np.complex128), cplx((4, 2), np.complex128)),
    jitted("fft_c128", jnp.fft.fft, rng.standard_normal(16)),
    jitted("fft_odd", jnp.fft.fft, rng.standard_normal((2, 15)).astype(np.float32)),
    jitted("ifft", jnp.fft.ifft, cplx((3, 12), np.complex64)),
    jitted("rfft", jnp.fft.rfft, rng.standard_normal((4, 32)).astype(np.float32)),
    jitted("irfft", lambda a: jnp.fft.irfft(a, n=18), cplx((2, 10), np.complex64)),
    jitted("fft2", jnp.fft.fft2, cplx((2, 8, 6), np.complex64)),
    jitted("fftn", jnp.fft.fftn, cplx((4, 3, 5), np.complex64)),
    jitted("rfft2_irfft2", lambda a: jnp.fft.irfft2(jnp.fft.rfft2(a) * 2, s=a.shape),
           rng.standard_normal((8, 12)).astype(np.float32)),
    jitted("spectral_conv", lambda a, b: jnp.fft.irfft(jnp.fft.rfft(a, n=64) * jnp.fft.rfft(b, n=64), n=64),
           rng.standard_normal(40).astype(np.float32), rng.standard_normal(25).astype(np.float32)),
    jitted("arith_c64", lambda a, b: (a * b - a / (b + 2)) ** 2, z, cplx((3, 4), np.complex64)),
    jitted("math_c64", lambda a: jnp.exp(a) + jnp.log(a) + jnp.sqrt(a) + jnp.tanh(a), z),
    jitted("sum_c64", lambda a: jnp.concatenate([jnp.sum(a, axis=0), jnp.mean(a)[None]]), z),
]
for name, run in cases:
  try:
    run()
  except Exception as e:  # pylint: disable=broad-except
    _common.emit(refused={"case": name, "type": type(e).__name__, "message": str(e)})
    break

_common.emit(errors=errors, dtypes=dtypes)
