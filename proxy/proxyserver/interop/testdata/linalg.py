"""jnp.linalg through the proxy (the LAPACK custom calls of JAX's CPU
lowering: geqrf/orgqr, syevd, gesdd, potrf, getrf, trsm, gtsv, of real and
of complex matrices, geqrf/ungqr and heevd for the latter, geev, gees and
gehrd of both, geqp3, gesvd, sytrd/hetrd and ormqr/unmqr) and what is built
on them (pinv, det, lstsq, norm(x, 2), matrix_rank, sqrtm), jaxlib's perturbed
tridiagonal solve (eigh_tridiagonal's eigenvectors), checked by the defining
properties of each factorization and against local CPU JAX where the result
is unique (QR follows LAPACK's sign convention; eigen- and singular values).
Run with JAX_PLATFORMS=proxy,cpu.

Prints errors = {case: max abs error}; names ending in _f64 ran in float64."""

import numpy as np

import _common

jax = _common.init()
import jax.numpy as jnp
import jax.lax.linalg as lla
import jax.scipy.linalg as jsl

dev = jax.devices()[0]
cpu = jax.devices("cpu")[0]
rng = np.random.default_rng(7)
errors = {}


def on(d, f, *args):
  return jax.device_get(jax.jit(f)(*[jax.device_put(a, d) for a in args]))


def record(name, e):
  """Keeps the worst error of a case; NaN (a factorization that failed) is
  worst of all, recorded as 1e300 (JSON has no NaN), where max() would drop it."""
  e = 1e300 if np.isnan(e) else float(e)
  errors[name] = max(errors.get(name, 0.0), e)


def err(name, got, want):
  got, want = np.asarray(got, np.complex128), np.asarray(want, np.complex128)
  record(name, np.max(np.abs(got - want)) if got.size else 0.0)


def err_relative(name, got, want):
  """err relative to the largest magnitude of want (at least 1): a random
  system's solution can be large."""
  scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
  err(name, np.asarray(got, np.complex128) / scale, np.asarray(want, np.complex128) / scale)


def mT(x):
  return np.swapaxes(x, -1, -2)


def rand(dt, *shape):
  """Standard normal entries of dt, complex ones for a complex dt."""
  x = rng.standard_normal(shape)
  if np.issubdtype(dt, np.complexfloating):
    x = x + 1j * rng.standard_normal(shape)
  return x.astype(dt)


def mH(x):
  return np.conj(mT(x))


def eye_like(x):
  return np.broadcast_to(np.eye(x.shape[-1]), x.shape)


def add_tridiagonal_and_ormqr_cases(sym, sfx, prefix):
  """jax.lax.linalg.tridiagonal of the symmetric (Hermitian) sym, both
  triangles, and ormqr with QR's reflectors of sym from both sides, Q and
  its transpose, against local CPU JAX."""
  for lower in (True, False):
    got = on(dev, lambda x: lla.tridiagonal(x, lower=lower), sym)
    want = on(cpu, lambda x: lla.tridiagonal(x, lower=lower), sym)
    for part, g, w in zip(("a", "d", "e", "taus"), got, want):
      err(prefix + "tridiagonal_" + part + "_vs_cpu" + sfx, g, w)
  c = rand(sym.dtype, *sym.shape[:-1], 3)
  for left in (True, False):
    for transpose in (False, True):
      def f(x, y):
        h, taus = jnp.linalg.qr(x, mode="raw")  # h transposed, as NumPy's
        return lla.ormqr(jnp.swapaxes(h, -1, -2), taus, y if left else jnp.swapaxes(y, -1, -2), left=left, transpose=transpose)
      err(prefix + "ormqr_vs_cpu" + sfx, on(dev, f, sym, c), on(cpu, f, sym, c))


def check_qr(name, a, sfx):
  for mode in ("reduced", "complete"):
    q, r = on(dev, lambda x: jnp.linalg.qr(x, mode=mode), a)
    wq, wr = on(cpu, lambda x: jnp.linalg.qr(x, mode=mode), a)
    err(name + "_vs_cpu" + sfx, q, wq)
    err(name + "_vs_cpu" + sfx, r, wr)
    err(name + "_product" + sfx, q @ r, a)
    err(name + "_orthonormal" + sfx, mH(q) @ q, eye_like(mT(q) @ q))
    err(name + "_upper" + sfx, np.tril(r, -1), 0)


def check_svd(name, a, sfx):
  want_s = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
  for full in (True, False):
    u, sv, vh = on(dev, lambda x: jnp.linalg.svd(x, full_matrices=full), a)
    k = sv.shape[-1]
    err(name + "_values_vs_numpy" + sfx, sv, want_s)
    err(name + "_product" + sfx, (u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :], a)
    err(name + "_orthonormal" + sfx, mH(u) @ u, eye_like(mT(u) @ u))
    err(name + "_orthonormal" + sfx, vh @ mH(vh), eye_like(vh @ mT(vh)))
    record(name + "_descending" + sfx, max(0.0, np.max(np.diff(sv, axis=-1))))
  err(name + "_values_only" + sfx, on(dev, lambda x: jnp.linalg.svd(x, compute_uv=False), a), want_s)


for dt, sfx in ((np.float32, ""), (np.float64, "_f64")):
  for shape in ((6, 4), (3, 5), (2, 5, 3)):
    check_qr("qr", rng.standard_normal(shape).astype(dt), sfx)

  s = rng.standard_normal((2, 6, 6)).astype(dt)
  s = s + mT(s)
  w, v = on(dev, jnp.linalg.eigh, s)
  err("eigh_values_vs_cpu" + sfx, w, on(cpu, jnp.linalg.eigvalsh, s))
  err("eigh_values_vs_numpy" + sfx, w, np.linalg.eigvalsh(s.astype(np.float64)))
  err("eigh_product" + sfx, (v * w[..., None, :]) @ mT(v), s)
  err("eigh_orthonormal" + sfx, mT(v) @ v, eye_like(v))
  record("eigh_ascending" + sfx, max(0.0, -np.min(np.diff(w, axis=-1))))
  err("eigvalsh" + sfx, on(dev, jnp.linalg.eigvalsh, s), w)

  for shape in ((6, 4), (3, 5), (2, 4, 4)):
    check_svd("svd", rng.standard_normal(shape).astype(dt), sfx)

  # jnp.linalg.eig: the order of the eigenvalues is the Schur form's, not
  # fixed, and each eigenvector is unique up to a sign or phase.
  g = rng.standard_normal((2, 6, 6)).astype(dt)
  w, v = on(dev, jnp.linalg.eig, g)
  err("eig_values_vs_cpu" + sfx, np.sort_complex(w), np.sort_complex(on(cpu, jnp.linalg.eigvals, g)))
  err("eig_product" + sfx, g @ v, v * w[..., None, :])
  err("eig_unit_vectors" + sfx, np.linalg.norm(v, axis=-2), 1)
  err("eigvals" + sfx, on(dev, jnp.linalg.eigvals, g), w)
  wl, vl = on(dev, lambda x: lla.eig(x, compute_left_eigenvectors=True, compute_right_eigenvectors=False), g)
  err("eig_left_product" + sfx, mH(vl) @ g, wl[..., :, None] * mH(vl))

  # jax.scipy.linalg.schur (gees): z orthogonal, z t zᵀ = a, t quasi upper
  # triangular, its eigenvalues local JAX's; sqrtm (the complex Schur form)
  # is unique, so against local JAX.
  t, z = on(dev, jsl.schur, g)
  err("schur_product" + sfx, z @ t @ mT(z), g)
  err("schur_orthogonal" + sfx, mT(z) @ z, eye_like(z))
  err("schur_quasi_triangular" + sfx, np.tril(t, -2), 0)
  err("schur_values_vs_cpu" + sfx, np.sort_complex(np.linalg.eigvals(t.astype(np.float64))), np.sort_complex(on(cpu, jnp.linalg.eigvals, g)))
  # Tridiagonal reduction (sytrd) and applying QR's Q (ormqr) follow LAPACK's
  # reflector conventions: against local JAX.
  add_tridiagonal_and_ormqr_cases(s, sfx, "")
  # SVD by the QR algorithm (gesvd): the values against local JAX, the
  # vectors (unique up to sign) by the product.
  tall_svd = rng.standard_normal((2, 6, 4)).astype(dt)
  for full in (True, False):
    u, sv, vt = on(dev, lambda y: lla.svd(y, full_matrices=full, algorithm=lla.SvdAlgorithm.QR), tall_svd)
    k = sv.shape[-1]
    err("svd_qr_values_vs_cpu" + sfx, sv, on(cpu, lambda y: lla.svd(y, compute_uv=False, algorithm=lla.SvdAlgorithm.QR), tall_svd))
    err("svd_qr_product" + sfx, (u[..., :, :k] * sv[..., None, :]) @ vt[..., :k, :], tall_svd)
  # QR with column pivoting (geqp3): the pivots follow the columns' norms,
  # so against local JAX; of a rank-2 matrix only the first two pivots and
  # a[:, p] = q r (past its rank the norms are rounding noise).
  for x in (rng.standard_normal((6, 4)).astype(dt), rng.standard_normal((3, 5)).astype(dt), rng.standard_normal((2, 5, 5)).astype(dt)):
    got, want = on(dev, lambda y: jsl.qr(y, pivoting=True), x), on(cpu, lambda y: jsl.qr(y, pivoting=True), x)
    err("qr_pivoting_vs_cpu" + sfx, got[1], want[1])
    err("qr_pivoting_q_vs_cpu" + sfx, got[0], want[0])
    record("qr_pivoting_pivots_vs_cpu", float(np.any(got[2] != want[2])))
  rank_two = (rng.standard_normal((7, 2)) @ rng.standard_normal((2, 5))).astype(dt)
  got, want = on(dev, lambda y: jsl.qr(y, pivoting=True), rank_two), on(cpu, lambda y: jsl.qr(y, pivoting=True), rank_two)
  err("qr_pivoting_rank2_product" + sfx, got[0] @ got[1], rank_two[:, got[2]])
  record("qr_pivoting_rank2_pivots_vs_cpu", float(np.any(got[2][:2] != want[2][:2])))
  # jax.scipy.linalg.hessenberg (gehrd, then orgqr for Q) is unique under
  # LAPACK's reflector convention: against local JAX.
  hess, hess_cpu = on(dev, lambda x: jsl.hessenberg(x, calc_q=True), g[0]), on(cpu, lambda x: jsl.hessenberg(x, calc_q=True), g[0])
  err("hessenberg_vs_cpu" + sfx, hess[0], hess_cpu[0])
  err("hessenberg_q_vs_cpu" + sfx, hess[1], hess_cpu[1])
  p = g[0] @ g[0].T + np.eye(6, dtype=dt)
  err("sqrtm_vs_cpu" + sfx, on(dev, jsl.sqrtm, p), on(cpu, jsl.sqrtm, p))
  err("sqrtm_nonsymmetric_vs_cpu" + sfx, on(dev, jsl.sqrtm, g[1] + 4 * np.eye(6, dtype=dt)), on(cpu, jsl.sqrtm, g[1] + 4 * np.eye(6, dtype=dt)))

  m = rng.standard_normal((5, 5)).astype(dt) + 5 * np.eye(5, dtype=dt)
  b = rng.standard_normal((5, 2)).astype(dt)
  err("cholesky" + sfx, on(dev, jnp.linalg.cholesky, m @ m.T), on(cpu, jnp.linalg.cholesky, m @ m.T))
  err("solve" + sfx, on(dev, jnp.linalg.solve, m, b), np.linalg.solve(m.astype(np.float64), b))
  err("inv" + sfx, on(dev, jnp.linalg.inv, m), np.linalg.inv(m.astype(np.float64)))
  err("pinv" + sfx, on(dev, jnp.linalg.pinv, m), np.linalg.pinv(m.astype(np.float64)))
  err("det" + sfx, on(dev, jnp.linalg.det, m) / np.linalg.det(m.astype(np.float64)), 1)
  tall = rng.standard_normal((7, 3)).astype(dt)
  rhs = rng.standard_normal((7, 2)).astype(dt)
  err("lstsq" + sfx, on(dev, lambda x, y: jnp.linalg.lstsq(x, y)[0], tall, rhs),
      np.linalg.lstsq(tall.astype(np.float64), rhs.astype(np.float64), rcond=None)[0])
  err("norm2" + sfx, on(dev, lambda x: jnp.linalg.norm(x, 2), tall), np.linalg.norm(tall.astype(np.float64), 2))
  rank2 = (tall[:, :2] @ rng.standard_normal((2, 5))).astype(dt)
  err("matrix_rank" + sfx, on(dev, jnp.linalg.matrix_rank, rank2), 2)

# Complex matrices (lapack_{c,z}getrf, trsm, potrf, geqrf, ungqr, heevd, gesdd)
# against local CPU JAX: LU factors and pivots are unique under LAPACK's
# pivoting rule (|re| + |im|), Cholesky factors with a positive real diagonal,
# QR under LAPACK's reflector convention; eigen- and singular vectors only up
# to phase.
for dt, sfx in ((np.complex64, ""), (np.complex128, "_f64")):
  m = rand(dt, 2, 5, 5) + 5 * np.eye(5, dtype=dt)
  b = rand(dt, 2, 5, 2)
  h = m @ mH(m)
  err("complex_solve" + sfx, on(dev, jnp.linalg.solve, m, b), on(cpu, jnp.linalg.solve, m, b))
  err("complex_inv" + sfx, on(dev, jnp.linalg.inv, m), on(cpu, jnp.linalg.inv, m))
  err("complex_det" + sfx, on(dev, jnp.linalg.det, m) / on(cpu, jnp.linalg.det, m), 1)
  g = rand(dt, 3, 6, 6)  # not diagonally dominant: rows are exchanged
  err("complex_lu" + sfx, on(dev, lambda x: jsl.lu_factor(x)[0], g), on(cpu, lambda x: jsl.lu_factor(x)[0], g))
  err("complex_lu_pivots" + sfx, on(dev, lambda x: jsl.lu_factor(x)[1], g), on(cpu, lambda x: jsl.lu_factor(x)[1], g))
  for shape in ((6, 4), (3, 5), (2, 4, 4)):
    check_qr("complex_qr", rand(dt, *shape), sfx)
    check_svd("complex_svd", rand(dt, *shape), sfx)
  hs = rand(dt, 2, 6, 6)
  hs = hs + mH(hs)
  for lower in (True, False):
    w, v = on(dev, lambda y: jnp.linalg.eigh(y, UPLO="L" if lower else "U"), hs)
    err("complex_eigh_values_vs_cpu" + sfx, w, on(cpu, jnp.linalg.eigvalsh, hs))
    err("complex_eigh_product" + sfx, (v * w[..., None, :]) @ mH(v), hs)
    err("complex_eigh_orthonormal" + sfx, mH(v) @ v, eye_like(v))
  # Complex eig (geev) and Schur form (gees), as for real matrices above.
  ge = rand(dt, 2, 6, 6)
  w, v = on(dev, jnp.linalg.eig, ge)
  err("complex_eig_values_vs_cpu" + sfx, np.sort_complex(w), np.sort_complex(on(cpu, jnp.linalg.eigvals, ge)))
  err("complex_eig_product" + sfx, ge @ v, v * w[..., None, :])
  err("complex_eig_unit_vectors" + sfx, np.linalg.norm(v, axis=-2), 1)
  wl, vl = on(dev, lambda x: lla.eig(x, compute_left_eigenvectors=True, compute_right_eigenvectors=False), ge)
  err("complex_eig_left_product" + sfx, mH(vl) @ ge, wl[..., :, None] * mH(vl))
  hess, hess_cpu = on(dev, lambda x: jsl.hessenberg(x, calc_q=True), ge[0]), on(cpu, lambda x: jsl.hessenberg(x, calc_q=True), ge[0])
  err("complex_hessenberg_vs_cpu" + sfx, hess[0], hess_cpu[0])
  err("complex_hessenberg_q_vs_cpu" + sfx, hess[1], hess_cpu[1])
  add_tridiagonal_and_ormqr_cases(hs, sfx, "complex_")
  t, z = on(dev, lambda x: jsl.schur(x, output="complex"), ge)
  err("complex_schur_product" + sfx, z @ t @ mH(z), ge)
  err("complex_schur_unitary" + sfx, mH(z) @ z, eye_like(z))
  err("complex_schur_triangular" + sfx, np.tril(t, -1), 0)
  err("complex_sqrtm_vs_cpu" + sfx, on(dev, jsl.sqrtm, ge[0] + 4 * np.eye(6, dtype=dt)), on(cpu, jsl.sqrtm, ge[0] + 4 * np.eye(6, dtype=dt)))
  x = rand(dt, 6, 4)
  err("complex_pinv" + sfx, on(dev, jnp.linalg.pinv, x), np.linalg.pinv(x.astype(np.complex128)))
  for lower in (True, False):
    err("complex_cholesky" + sfx, on(dev, lambda x: jsl.cholesky(x, lower=lower), h), on(cpu, lambda x: jsl.cholesky(x, lower=lower), h))
    for trans in (0, 1, 2):
      tri = lambda x, y: jsl.solve_triangular(x, y, lower=lower, trans=trans)
      err("complex_solve_triangular" + sfx, on(dev, tri, m, b), on(cpu, tri, m, b))

# Tridiagonal solves (lapack_?gtsv): rows exchanged where a subdiagonal
# element outweighs its diagonal one, batched, real and complex, against local
# CPU JAX; a singular system gives NaN.
for dt, sfx in ((np.float32, ""), (np.float64, "_f64"), (np.complex64, ""), (np.complex128, "_f64")):
  dl, dd, du, rhs = rand(dt, 3, 7), rand(dt, 3, 7), rand(dt, 3, 7), rand(dt, 3, 7, 2)
  dl[:, 0], du[:, -1] = 0, 0
  err_relative("tridiagonal_solve" + sfx, on(dev, lla.tridiagonal_solve, dl, dd, du, rhs), on(cpu, lla.tridiagonal_solve, dl, dd, du, rhs))
  dd[:, 0] = 0  # a zero first pivot: only the row exchange solves it
  err_relative("tridiagonal_solve" + sfx, on(dev, lla.tridiagonal_solve, dl, dd, du, rhs), on(cpu, lla.tridiagonal_solve, dl, dd, du, rhs))
  zero = np.zeros(4, dt)
  sing = on(dev, lla.tridiagonal_solve, zero, zero, zero, np.ones((4, 1), dt))
  record("tridiagonal_solve_singular_nan", 0.0 if np.all(np.isnan(sing)) else 1.0)

# jaxlib's perturbed tridiagonal solve (tridiagonal_solve_perturbed_ffi), the
# inverse iteration of eigh_tridiagonal's eigenvectors: against local CPU JAX
# where the system is regular; a singular one gives a finite answer whose
# direction is the null vector; eigh_tridiagonal's vectors satisfy T v = v w.
perturbed = lambda *a: lla.tridiagonal_solve(*a, perturb_singular=True)
for dt, sfx in ((np.float32, ""), (np.float64, "_f64"), (np.complex64, ""), (np.complex128, "_f64")):
  dl, dd, du, rhs = rand(dt, 3, 7), rand(dt, 3, 7), rand(dt, 3, 7), rand(dt, 3, 7, 2)
  dl[:, 0], du[:, -1], dd[:, 0] = 0, 0, 1e-3
  err_relative("tridiagonal_solve_perturbed" + sfx, on(dev, perturbed, dl, dd, du, rhs), on(cpu, perturbed, dl, dd, du, rhs))
  x = on(dev, perturbed, np.array([0, 1, 1], dt), np.zeros(3, dt), np.array([1, 1, 0], dt), np.array([[1], [0], [0]], dt)).ravel()
  record("tridiagonal_solve_perturbed_singular_finite", 0.0 if np.all(np.isfinite(x)) else 1.0)
  err("tridiagonal_solve_perturbed_null_vector" + sfx, np.abs(x / np.linalg.norm(x)), np.array([1, 0, 1]) / np.sqrt(2))
for dt, sfx in ((np.float32, ""), (np.float64, "_f64")):
  d, e = rand(dt, 9), rand(dt, 8)
  w, v = on(dev, lambda d, e: jsl.eigh_tridiagonal(d, e, eigvals_only=False), d, e)
  t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
  err("eigh_tridiagonal_vectors" + sfx, t @ v, v * w)
  err("eigh_tridiagonal_orthonormal" + sfx, mT(v) @ v, np.eye(9))
  err("eigh_tridiagonal_values_vs_cpu" + sfx, w, on(cpu, lambda d, e: jsl.eigh_tridiagonal(d, e, eigvals_only=False)[0], d, e))

# Empty matrices (0x0, a batch of them, none in a batch, a 3x0 right-hand
# side): each function gives local CPU JAX's shapes and values.
for name, f, args in (
    ("inv", jnp.linalg.inv, [(0, 0), (2, 0, 0), (0, 3, 3)]),
    ("solve", jnp.linalg.solve, [(0, 0), (0, 1)]),
    ("det", jnp.linalg.det, [(0, 0), (2, 0, 0)]),
    ("slogdet", lambda x: jnp.linalg.slogdet(x)[1], [(0, 0)]),
    ("cholesky", jnp.linalg.cholesky, [(0, 0), (3, 0, 0)]),
    ("eigh", lambda x: jnp.linalg.eigh(x)[0], [(0, 0), (2, 0, 0)]),
    ("eig", lambda x: jnp.linalg.eig(x)[1], [(0, 0), (2, 0, 0)]),
    ("complex_eig", lambda x: jnp.linalg.eig(x.astype(jnp.complex64))[1], [(0, 0)]),
    ("schur", lambda x: jsl.schur(x)[1], [(0, 0), (2, 0, 0)]),
    ("complex_schur", lambda x: jsl.schur(x, output="complex")[1], [(0, 0)]),
    ("hessenberg", lambda x: jsl.hessenberg(x, calc_q=True)[1], [(0, 0), (1, 1)]),
    ("lu", lambda x: jsl.lu(x)[2], [(0, 0), (3, 0)]),
    ("lu_factor", lambda x: jsl.lu_factor(x)[0], [(0, 0)]),
    ("expm", jsl.expm, [(0, 0)]),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, lower=True), [(3, 3), (3, 0)]),
):
  shapes = args if name in ("solve", "solve_triangular") else args[:1]
  runs = [shapes] if name in ("solve", "solve_triangular") else [[sh] for sh in args]
  for shapes in runs:
    xs = [np.eye(*sh[-2:], dtype=np.float32) if sh[-1] == sh[-2] and sh[-1] else np.ones(sh, np.float32) for sh in shapes]
    got, want = on(dev, f, *xs), on(cpu, f, *xs)
    record("empty_" + name, 1.0 if np.shape(got) != np.shape(want) else np.max(np.abs(np.asarray(got) - np.asarray(want)), initial=0.0))

# Flax's default recurrent kernel initializer runs QR on the proxy. The key
# starts as host data: the proxy cannot copy arrays to the local CPU device.
key_data = np.zeros(2, np.uint32)


def orthogonal(shape):
  return lambda kd: jax.nn.initializers.orthogonal()(jax.random.wrap_key_data(kd), shape)


w = on(dev, orthogonal((8, 8)), key_data)
err("orthogonal_init_orthonormal", w.T @ w, np.eye(8))
err("orthogonal_init_vs_cpu", w, on(cpu, orthogonal((8, 8)), key_data))
w = on(dev, orthogonal((16, 4)), key_data)
err("orthogonal_init_orthonormal", w.T @ w, np.eye(4))

_common.emit(errors=errors)
