"""JAX programs we did not write, run on hlokit's interpreter and compared with ``jax.jit`` on XLA CPU.

Each entry is a JAX function (jax's own library code: ``jnp``, ``jax.nn``, ``jax.random``, ``jax.scipy``,
``jax.lax``) with its inputs; the test lowers it with ``jax.jit(fn).lower(...).as_text()`` (CHLO ops,
jaxlib's LAPACK custom calls and all), interprets the text and compares every output with XLA's:

* integers and booleans exactly;
* floats and complex numbers normwise: ``max |ours - xla| <= K eps(dtype) max |xla|`` over the finite
  entries (``K`` = 64 unless the entry states its own: summation order, fused multiply-adds and XLA's
  approximations of transcendental functions differ by a few ULPs, and a reduction's error grows with its
  length), with NaNs and infinities in the same places.

Inputs with special values (NaN, +-inf, signed zeros) avoid subnormal numbers: XLA CPU flushes them to
zero, the interpreter keeps them (IEEE 754; ``hlokit-run --engine both`` marks such a difference).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import hlokit

_rng = np.random.default_rng(20261124)


def f32(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def f64(*shape):
    return _rng.standard_normal(shape)


def c64(*shape):
    return (_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)).astype(np.complex64)


def i32(*shape, hi=10):
    return _rng.integers(-hi, hi, shape).astype(np.int32)


def special(*shape, dtype=np.float32):
    """Normal values with a quarter of the entries NaN, -NaN, +-inf, +-0 or 1 (no subnormals)."""
    x = _rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    k = max(1, flat.size // 4)
    idx = _rng.choice(flat.size, k, replace=False)
    flat[idx] = _rng.choice(np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype), k)
    return x


def _key(seed=0):
    return np.asarray(jax.random.key_data(jax.random.key(seed)))


def _keyed(f):
    return lambda k, *a: f(jax.random.wrap_key_data(k), *a)


def _spd(a):
    return a @ a.T + a.shape[-1] * jnp.eye(a.shape[-1], dtype=a.dtype)


#: name -> (function, inputs, K or None for the default 64, whether it needs 64-bit types)
PROGRAMS = {
    # reductions, scans, sorting
    "cumsum_cumprod": (lambda x, n: (jnp.cumsum(x, axis=0), jnp.cumprod(n)), [f32(7, 5), i32(9, hi=3)], None, False),
    "cummax_logcumsumexp": (lambda x: (jax.lax.cummax(x), jax.lax.cumlogsumexp(x)), [f32(33)], None, False),
    "argsort_argmax": (lambda x: (jnp.argsort(x[0]), jnp.argmax(x, 1), jnp.argmin(x, 0)), [f32(6, 20)], None, False),
    "top_k_sort_multi": (lambda x, y: (jax.lax.top_k(x, 4), jax.lax.sort((x[0], y), num_keys=1)),
                         [f32(3, 10), i32(10)], None, False),
    "special_reductions": (lambda x: (jnp.max(x, 1), jnp.min(x, 0), jnp.nanmax(x, 1), jnp.argmax(x, 1), jnp.sort(x, 1),
                                      jax.lax.top_k(x, 3)[0]), [special(6, 8)], None, False),
    "segment_bincount_unique": (lambda d, s: (jax.ops.segment_sum(d, s, 5), jnp.bincount(s, length=5),
                                             jnp.unique(s, size=6, fill_value=-1)),
                                [f32(10), np.array([0, 0, 1, 2, 2, 2, 3, 3, 4, 4], np.int32)], None, False),
    "median_histogram_searchsorted": (lambda a, s, v: (jnp.median(a, axis=1), jnp.histogram(a, 5, (-2, 2))[0],
                                                       jnp.searchsorted(s, v), jnp.lexsort((v > 0, v))),
                                      [f32(5, 9), np.sort(f32(16)), f32(9)], None, False),
    "associative_scan_nonzero": (lambda x: (jax.lax.associative_scan(jnp.maximum, x), jnp.nonzero(x > 0, size=6)),
                                 [f32(13)], None, False),
    # gather / scatter / slicing
    "gather_scatter": (lambda x, i, u: (x[i], x.at[i].add(u), x.at[i].set(u), x.at[i].multiply(u)),
                       [f32(8), np.array([1, 1, 3, 7], np.int32), f32(4)], None, False),
    "out_of_bounds_modes": (lambda x, i, u: (x.at[i].add(u, mode="drop"), x.at[i].set(u, mode="clip"),
                                             x.at[i].get(mode="clip"), x.at[i].get(mode="fill", fill_value=-1.0)),
                            [np.arange(6, dtype=np.float32), np.array([-1, 2, 7, 5, 100], np.int32),
                             np.arange(5, dtype=np.float32)], None, False),
    "dynamic_slices_clamped": (lambda x, i, j: (jax.lax.dynamic_slice(x, (i, j), (3, 2)),
                                                jax.lax.dynamic_update_slice(x, jnp.ones((2, 3)), (i, j))),
                               [np.arange(20, dtype=np.float32).reshape(5, 4), np.int32(4), np.int32(-2)], None, False),
    "pad_roll_tile_flip": (lambda x: (jax.lax.pad(x, np.float32(0), ((1, -1, 1), (-2, 3, 0))), jnp.roll(x, 3, 1),
                                      jnp.tile(x, (2, 2)), jnp.flip(x, 0), jnp.rot90(x), jnp.triu(x, 1)),
                           [f32(4, 5)], None, False),
    # control flow
    "fori_scan_cond_switch": (lambda x, p: (jax.lax.fori_loop(0, 8, lambda i, a: a.at[i].set(a[i] * i), x),
                                            jax.lax.scan(lambda c, v: (c + v, c * v), 0.0, x),
                                            jax.lax.switch(p, [jnp.sin, jnp.cos, jnp.tanh], x)),
                              [f32(8), np.int32(2)], None, False),
    "vmap_while_dynamic_trip": (lambda x, n: (jax.vmap(lambda v: jax.lax.while_loop(
        lambda c: c[0] < 10.0, lambda c: (c[0] + jnp.abs(c[1]) + 0.5, c[1] * 1.1), (v, v))[0])(x),
        jax.lax.fori_loop(0, n, lambda i, a: a * 0.9 + jnp.float32(i), x)), [f32(5), np.int32(7)], None, False),
    # convolutions, windows, contractions
    "conv_dilated_grouped": (lambda x, k, y, g: (jax.lax.conv_general_dilated(x, k, (2,), "SAME", rhs_dilation=(2,)),
                                                 jax.lax.conv_general_dilated(y, g, (1, 1), "VALID",
                                                                              feature_group_count=2)),
                             [f32(2, 3, 20), f32(4, 3, 5), f32(1, 4, 9, 9), f32(8, 2, 3, 3)], None, False),
    "conv_transpose_pooling": (lambda x, k: (jax.lax.conv_transpose(x, k, (2, 2), "SAME",
                                                                    dimension_numbers=("NHWC", "HWIO", "NHWC")),
                                             jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 2, 2, 1),
                                                                   "SAME"),
                                             jax.grad(lambda y: jax.lax.reduce_window(
                                                 y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum())(x)),
                               [f32(1, 6, 6, 2), f32(3, 3, 2, 4)], None, False),
    "einsum_batched_mixed_precision": (lambda a, b, p, q, s, t: (jnp.einsum("ijk,kjl->il", a, b), a @ jnp.transpose(b, (2, 0, 1)),
                                                                 jax.lax.dot(p, q, preferred_element_type=jnp.int32),
                                                                 jnp.dot(s, t, preferred_element_type=jnp.float32)),
                                       [f32(3, 4, 5), f32(5, 4, 3), _rng.integers(-100, 100, (4, 6)).astype(np.int8),
                                        _rng.integers(-100, 100, (6, 3)).astype(np.int8),
                                        f32(8, 16).astype(ml_dtypes.bfloat16), f32(16, 4).astype(ml_dtypes.bfloat16)],
                                       None, False),
    "attention_resize_convolve": (lambda q, k, v, img, a, b: (jax.nn.dot_product_attention(q, k, v, is_causal=True),
                                                              jax.image.resize(img, (9, 7), "bilinear"),
                                                              jax.image.resize(img, (3, 8), "cubic"),
                                                              jnp.convolve(a, b, mode="same")),
                                  [f32(2, 8, 2, 4), f32(2, 8, 2, 4), f32(2, 8, 2, 4), f32(4, 5), f32(20), f32(5)],
                                  None, False),
    # elementwise, special values, narrow and wide types
    "special_values_elementwise": (lambda a, b: (jnp.maximum(a, b), jnp.minimum(a, b), jax.lax.clamp(a, b, a + 1),
                                                 a ** b, jnp.arctan2(a, b), jnp.fmod(a, b), jnp.where(a > b, a, b),
                                                 jnp.exp(a), jnp.log(a), jnp.sqrt(a), jax.lax.rsqrt(a), jnp.round(a),
                                                 jnp.sign(a), a < b, a == b, jnp.isnan(a), jnp.nextafter(a, b)),
                                   [special(30), special(30)], None, False),
    "special_values_convert": (lambda a: (a.astype(jnp.int32), a.astype(jnp.uint8), a.astype(jnp.int8),
                                          a.astype(jnp.bfloat16), a.astype(jnp.float16), a.astype(jnp.float8_e4m3fn)),
                               [np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 255.9, -0.9, 1e5, -0.0],
                                         np.float32)], None, False),
    "integer_edges": (lambda a, b, c, s: (jax.lax.div(a, b), jax.lax.rem(a, b), jax.lax.shift_left(c, s),
                                          jax.lax.shift_right_arithmetic(c, s), jax.lax.shift_right_logical(c, s),
                                          jax.lax.population_count(a), jax.lax.clz(a)),
                      [np.array([-2**31, -7, 7, 0, 5, -2**31], np.int32), np.array([-1, 0, -2, 0, 3, 1], np.int32),
                       np.array([1, -1, 2**30, -5], np.int32), np.array([0, 31, 32, 40], np.int32)], None, False),
    "unsigned_and_bool": (lambda a, b, p, q: (a >> b, a * b, a - b, a.astype(jnp.float32), p & q, p | ~q, jnp.any(p),
                                              p.sum()),
                          [_rng.integers(0, 2**32, 20, dtype=np.uint64).astype(np.uint32),
                           _rng.integers(0, 31, 20).astype(np.uint32), _rng.random(12) > 0.5, _rng.random(12) > 0.3],
                          None, False),
    "narrow_floats": (lambda h, b: (h * h, h / 3, jnp.exp(h), jnp.sqrt(jnp.abs(h)), b * b, jnp.sin(b),
                                    jax.nn.softmax(b), jnp.sum(b)),
                      [f32(30).astype(np.float16), f32(33).astype(ml_dtypes.bfloat16)], None, False),
    "complex_math": (lambda z: (jnp.abs(z), jnp.exp(z), jnp.log(z), jnp.sqrt(z), jnp.tanh(z), jnp.arctan(z), z * z,
                                z / (z + 1), jnp.sum(z, 0), jnp.prod(z, 1)), [c64(6, 4)], None, False),
    "f64_and_i64": (lambda x, a, b: (jnp.expm1(x), jnp.log1p(jnp.abs(x)), jnp.cbrt(x), x ** 3.5, a * b, a // b,
                                     jnp.cumsum(a)),
                    [f64(30), _rng.integers(-2**40, 2**40, 8), _rng.integers(1, 100, 8)], None, True),
    "special_functions": (lambda x: (jax.scipy.special.gammaln(x), jax.scipy.special.digamma(x),
                                     jax.scipy.special.erfinv(jnp.tanh(x) * 0.9), jax.lax.bessel_i0e(x),
                                     jax.lax.bessel_i1e(x), jax.lax.igamma(x, x + 0.5), jax.lax.zeta(x + 1.5, x),
                                     jax.nn.gelu(x), jax.nn.gelu(x, approximate=False)),
                          [np.abs(f32(20)) + 0.1], 1024, False),
    # linear algebra (jaxlib's LAPACK custom calls, legalized for the interpreter)
    "linalg_factorizations": (lambda a, b: (jnp.linalg.qr(a[:, :3]), jnp.linalg.svd(a, compute_uv=False),
                                            jax.scipy.linalg.lu_factor(a)[0], jnp.linalg.inv(_spd(a)),
                                            jnp.linalg.eigh(_spd(a))[0], jnp.linalg.cholesky(_spd(a)),
                                            jnp.linalg.solve(_spd(a), b), jnp.linalg.det(a)),
                              [f32(4, 4), f32(4, 2)], 1024, False),
    "linalg_solvers": (lambda a, b, dl, d, du: (jax.scipy.linalg.solve_triangular(jnp.tril(a) + 4 * jnp.eye(4), b,
                                                                                  lower=True),
                                                jnp.linalg.lstsq(a, b)[0], jax.scipy.linalg.expm(a * 0.3),
                                                jax.lax.linalg.tridiagonal_solve(dl, d, du, b)),
                       [f32(4, 4), f32(4, 2), f32(4), f32(4) + 4, f32(4)], 1024, False),
    "linalg_reductions": (lambda a: (jax.lax.linalg.qr(a, pivoting=True, full_matrices=False),
                                     jax.lax.linalg.hessenberg(a), jax.lax.linalg.tridiagonal(a, lower=False)),
                          [f32(5, 5)], 1024, False),
    "linalg_not_positive_definite": (lambda a, b: (jnp.linalg.cholesky(a),
                                                   jax.scipy.linalg.cho_solve((jnp.linalg.cholesky(a), True), b)),
                                     [f32(4, 4).astype(np.complex64), c64(4, 2)], None, False),
    # random numbers (threefry in StableHLO: bit-exact)
    "random": (_keyed(lambda k, l: (jax.random.permutation(k, 10), jax.random.choice(k, 20, (5,), replace=False),
                                    jax.random.categorical(k, l, shape=(6,)), jax.random.bernoulli(k, 0.3, (12,)),
                                    jax.random.poisson(k, 3.0, (5,)), jax.random.normal(k, (5,)),
                                    jax.random.gamma(k, jnp.array([0.5, 1.0, 3.0]), (3,)),
                                    jax.random.truncated_normal(k, -1.0, 2.0, (5,)))),
               [_key(), f32(7)], 256, False),
    # training-shaped programs
    "grad_hessian_jvp": (lambda x, w: (jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w),
                                       jax.vmap(jax.hessian(lambda v: jnp.sum(jnp.sin(v) * v ** 2)))(x[:, :2]),
                                       jax.jvp(lambda y: jax.lax.scan(lambda c, v: (c * v + 1, c), 1.0, y)[0],
                                               (x[0],), (jnp.ones_like(x[0]),)),
                                       jax.grad(lambda y: jnp.sum(jax.checkpoint(jnp.sin)(y) + jax.nn.softplus(y)))(x)),
                         [f32(3, 4), f32(4, 2)], None, False),
    # more of jnp / jax.nn / jax.scipy / jax.lax, and the op forms they bring (fft, batching dims of gather and
    # scatter, variadic reduce / reduce_window, select_and_scatter, int4 and f8 types, while loops of rng)
    "fft_family": (lambda x, z, y: (jnp.fft.fft(z), jnp.fft.ifft(z), jnp.fft.rfft(x), jnp.fft.irfft(z),
                                    jnp.fft.fft2(z.reshape(2, 4)), jnp.fft.rfftn(y), jnp.fft.irfftn(jnp.fft.rfftn(y), y.shape)),
                   [f32(8), c64(8), f32(4, 6, 3)], None, False),
    "nn_activations": (lambda x: (jax.nn.gelu(x), jax.nn.gelu(x, approximate=False), jax.nn.softmax(x),
                                  jax.nn.log_softmax(x), jax.nn.silu(x), jax.nn.celu(x), jax.nn.glu(x),
                                  jax.nn.one_hot(jnp.argmax(x, -1), 5), jax.nn.logsumexp(x, -1), jax.nn.standardize(x),
                                  jax.nn.hard_tanh(x), jax.nn.mish(x)), [f32(3, 8)], None, False),
    "statistics_interp": (lambda x, p, v, xp, fp: (jnp.nanmean(x), jnp.nanstd(x, 0), jnp.var(x, 1), jnp.percentile(x, 30.0),
                                                   jnp.quantile(x, 0.7, axis=0), jnp.corrcoef(x), jnp.cov(x),
                                                   jnp.average(x, 0, jnp.arange(4.0)), jnp.ptp(x, 1), jnp.polyval(p, v),
                                                   jnp.interp(v, jnp.sort(xp), fp)),
                          [f32(4, 5), f32(4), f32(6), f32(7), f32(7)], 1024, False),
    "array_manipulation": (lambda x, y, i: (jnp.kron(x[:2, :2], y[:2, :2]), jnp.cross(x[:, :3], y[:, :3]), jnp.diff(x, 2),
                                            jnp.gradient(x[0]), jnp.trapezoid(x, axis=1), jnp.lexsort((x[0], i)), jnp.rot90(x),
                                            jnp.take(x, i, axis=1, mode="wrap"), jnp.select([x > 0, x < -1], [x, y], 7.0),
                                            jnp.triu(x, 1), jnp.tril(y, -1), jnp.partition(x[0], 2),
                                            jnp.searchsorted(jnp.sort(x[0]), y[0], method="compare_all"),
                                            jnp.searchsorted(jnp.sort(x[0]), y[0], method="sort"),
                                            jnp.unique(i, size=5, fill_value=-1)),
                           [f32(4, 5), f32(4, 5), i32(5, hi=4)], 256, False),
    "bit_ops_nextafter": (lambda a, b, x, y: (jax.lax.population_count(a), jax.lax.clz(a), jnp.arctan2(x, y),
                                              jnp.nextafter(x, y), jax.lax.bitcast_convert_type(x, jnp.int32),
                                              jax.lax.reduce_precision(x, 5, 10), jax.lax.shift_right_logical(a, b & 31),
                                              jax.lax.shift_right_arithmetic(a, b & 31), jnp.gcd(a, b), jnp.lcm(a % 50, b),
                                              jnp.bitwise_count(a)),
                          [i32(10, hi=1 << 30), i32(10, hi=40), special(10), special(10)], None, False),
    "special_functions_more": (lambda x, a: (jax.scipy.special.erfinv(jnp.tanh(x)), jax.lax.igamma(jnp.abs(a) + 0.5, jnp.abs(x)),
                                             jax.lax.igammac(jnp.abs(a) + 0.5, jnp.abs(x)),
                                             jax.scipy.special.betainc(jnp.abs(a) + 1, 2.0, jax.nn.sigmoid(x)),
                                             jax.scipy.special.i0e(x), jax.scipy.special.i1e(x),
                                             jax.scipy.special.ndtri(jax.nn.sigmoid(x)), jax.scipy.stats.norm.cdf(x),
                                             jax.scipy.special.zeta(jnp.abs(a) + 1.5, 2.0),
                                             jax.scipy.special.polygamma(1, jnp.abs(x) + 0.5)),
                               [f32(12), f32(12)], 4096, False),
    "random_distributions": (_keyed(lambda k: (jax.random.beta(k, 2.0, 3.0, (4,)), jax.random.dirichlet(k, jnp.ones(3)),
                                               jax.random.t(k, 3.0, (4,)), jax.random.orthogonal(k, 3),
                                               jax.random.randint(k, (5,), 0, 100), jax.random.laplace(k, (3,)),
                                               jax.random.key_data(jax.random.split(k, 3)))),
                             [_key(3)], 4096, False),
    "int4_f8_f16_dots": (lambda h, b, q: (jnp.dot(h, h.T), jnp.dot(b, b.T, preferred_element_type=jnp.float32),
                                          q.astype(jnp.int32) * 3, (q + q).astype(jnp.int32),
                                          h.astype(ml_dtypes.float8_e4m3fn).astype(jnp.float32), b.astype(ml_dtypes.float8_e5m2)),
                         [f32(3, 4).astype(np.float16), f32(3, 4).astype(ml_dtypes.bfloat16),
                          np.arange(-4, 4, dtype=ml_dtypes.int4)], None, False),
    "batched_gather_scatter": (lambda x, i, u: (jax.vmap(lambda a, j: a[j])(x, i), jax.vmap(lambda a, j, v: a.at[j].set(v))(x, i, u),
                                                jax.vmap(lambda a, j, v: a.at[j].add(v))(x, i, u),
                                                jax.vmap(lambda a, j: jax.lax.dynamic_slice(a, (j[0],), (2,)))(x, i)),
                               [f32(3, 8), i32(3, 2, hi=4) + 4, f32(3, 2)], None, False),
    "variadic_reduce_window_pool_grad": (lambda x, y, z: (
        jax.lax.reduce((x, y), (np.float32(0), np.float32(1)), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,)),
        jax.lax.reduce_window(x, -np.inf, jax.lax.max, (2, 2), (1, 2), "SAME"),
        jax.lax.reduce_window((x, y), (np.float32(0), np.float32(0)), lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                              (3, 1), (1, 1), ((1, 1), (0, 0))),
        jax.grad(lambda w: jnp.sum(jax.lax.reduce_window(w, -np.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                                         ((0, 0), (1, 1), (1, 1), (0, 0))) ** 2))(z)),
        [f32(4, 6), f32(4, 6), f32(2, 7, 7, 3)], 256, False),
    "stable_sort_update_slice_loops": (lambda a, b, c, x, u, i: (
        jax.lax.sort((a, b, c), num_keys=2, is_stable=True), jax.lax.dynamic_update_slice(x, u, (i, i + 5)),
        jax.lax.dynamic_update_slice(x, u, (-i, 2)),
        jax.lax.while_loop(lambda s: jnp.all(s[0] < 100.0), lambda s: (s[0] * 2 + 1, s[1] + 1), (jnp.abs(x[0]), 0)),
        jax.lax.scan(lambda s, v: ((s[0] * v + s[1], s[1] * 0.5 + 1j), s[0].real), (u[0, :2] * 1j, u[1, :2] + 0j), x[1]),
        jax.lax.cumsum(x, 0, reverse=True), jax.lax.cummin(x, 1, reverse=True)),
        [i32(20, hi=3), i32(20, hi=2), f32(20), f32(5, 6), f32(2, 3), np.int32(3)], 256, False),
    "complex_linalg": (lambda a, b: (jnp.linalg.eigvalsh(a @ a.conj().T + 4 * jnp.eye(3)), jnp.linalg.svd(a, compute_uv=False),
                                     jnp.abs(jnp.linalg.qr(a)[1]), jnp.linalg.cholesky(a @ a.conj().T + 4 * jnp.eye(3)),
                                     jnp.linalg.solve(a, b), jax.scipy.linalg.solve_triangular(jnp.triu(a) + 3 * jnp.eye(3), b),
                                     jnp.linalg.det(a), a @ b, jnp.einsum("ij,jk->ik", a, jnp.conj(a))),
                       [c64(3, 3), c64(3, 2)], 4096, False),
    "linalg_compositions": (lambda a, b: (jnp.linalg.inv(_spd(a)), jnp.linalg.slogdet(a), jnp.linalg.pinv(a),
                                          jnp.linalg.matrix_power(a, 3), jnp.linalg.norm(a, 2), jnp.linalg.matrix_rank(a),
                                          jax.scipy.linalg.expm(a * 0.3), jax.scipy.linalg.lu_factor(a)[0],
                                          jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(_spd(a)), b),
                                          jnp.linalg.lstsq(a, b)[0]),
                            [f32(4, 4), f32(4, 2)], 4096, False),
    "signal_image_conv3d": (lambda x, k, img, v, w: (jax.scipy.signal.convolve2d(img, k[:3].reshape(3, 1) * k[:2], mode="same"),
                                                     jnp.correlate(x, k, "full"),
                                                     jax.scipy.ndimage.map_coordinates(
                                                         img, [jnp.array([0.5, 1.2, 3.7]), jnp.array([2.1, 0.3, 4.4])], order=1),
                                                     jax.scipy.fft.dct(x), jax.image.resize(img, (7, 3), "cubic"),
                                                     jax.lax.conv_general_dilated(v, w, (1, 1, 1), "VALID",
                                                                                  dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))),
                            [f32(10), f32(4), f32(6, 5), f32(2, 2, 4, 4, 3), f32(3, 2, 2, 2, 2)], 1024, False),
}


def _compare(got: np.ndarray, want: np.ndarray, k: int, where: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (where, got.shape, got.dtype, want.shape, want.dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=where)
        return
    g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    w = want.astype(g.dtype)
    for part in ((np.real, np.imag) if g.dtype.kind == "c" else (np.real,)):
        gp, wp = part(g), part(w)
        np.testing.assert_array_equal(np.isnan(gp), np.isnan(wp), err_msg=f"{where}: NaN positions")
        inf = np.isinf(gp) | np.isinf(wp)
        np.testing.assert_array_equal(gp[inf], wp[inf], err_msg=f"{where}: infinities")
    finite = np.isfinite(g) & np.isfinite(w)
    if not finite.any():
        return
    eps = float(ml_dtypes.finfo(np.empty(0, got.dtype).real.dtype).eps)
    scale = float(np.max(np.abs(w[finite])))
    err = float(np.max(np.abs(g[finite] - w[finite])))
    assert err <= k * eps * max(scale, 1e-30), f"{where}: max |diff| {err:.3g} > {k} eps * {scale:.3g}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpreter_equals_jax_jit(name):
    fn, args, k, x64 = PROGRAMS[name]
    with jax.enable_x64(x64):
        text = jax.jit(fn).lower(*args).as_text()
        want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    got = hlokit.interpret(text, [np.asarray(a) for a in args])
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _compare(g, np.asarray(w), k or 64, f"{name} output {i}")
