// cusci-linalg: banded and tridiagonal kernels (module "linalg_banded"), every element type in one
// module (suffix _f32, _f64, _c32, _c64). One block per system of a stack (grid-stride over the
// systems); the block's threads share each elimination step of the factorisation (threads across
// the band), then take one right-hand-side column each for the substitutions. The operation
// order and pivot choices are those of the CPU reference (band_cpu.rs): LAPACK's gbtrf/gbtrs and
// pbtrf/pbtrs.
//
// status (2 x u64, zeroed by the host): status[0] = max over failing systems of
// ~(system << 32 | first failing column) (a zero pivot, or a leading minor that is not positive
// definite); the low word of status[1] is set when any input element is NaN or infinite.

__device__ __forceinline__ bool lb_fin(float v) { return isfinite(v); }
__device__ __forceinline__ bool lb_fin(double v) { return isfinite(v); }
__device__ __forceinline__ bool lb_fin(cplx32 v) { return isfinite(v.re) && isfinite(v.im); }
__device__ __forceinline__ bool lb_fin(cplx64 v) { return isfinite(v.re) && isfinite(v.im); }

template <class T> __device__ __forceinline__ double lb_abs1(T v) {
  return fabs((double)cusci_real(v)) + fabs((double)cusci_imag(v));
}

__device__ __forceinline__ void lb_fail(unsigned long long* status, i64 s, i64 j) {
  atomicMax(&status[0], ~(((unsigned long long)s << 32) | (unsigned long long)j));
}

// Solves a x = b for each band matrix of ab (count x (l+u+1) x n, row-major, SciPy's storage
// ab[u + i - j, j] = a[i, j]) and b (count x n x k, row-major); x (count x n x k) may not alias b.
// work: count x n x (2l+u+1) elements, piv: count x n ints (scratch). The band is held column by
// column in work (a[i, c] at work[c * ldw + i - c + l + u], the first l rows of each column are
// the fill-in), as LAPACK's gbtrf holds it.
template <class T>
__device__ void lb_gbsv(const T* __restrict__ ab, const T* __restrict__ b, T* __restrict__ x,
                        T* __restrict__ work, int* __restrict__ piv, i64 count, i64 n, i64 l,
                        i64 u, i64 k, unsigned long long* status) {
  const T zero = cusci_cast(T, 0.0);
  const i64 kv = l + u, ldw = 2 * l + u + 1;
  bool bad = false;
  for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
    const T* A = ab + s * (l + u + 1) * n;
    const T* B = b + s * n * k;
    T* X = x + s * n * k;
    T* W = work + s * n * ldw;
    int* P = piv + s * n;
    for (i64 t = threadIdx.x; t < n * ldw; t += blockDim.x) {
      const i64 c = t / ldw, r = t - c * ldw;
      T v = zero;
      if (r >= l) {
        v = A[(r - l) * n + c];
        bad |= !lb_fin(v);
      }
      W[t] = v;
    }
    for (i64 t = threadIdx.x; t < n * k; t += blockDim.x) {
      const T v = B[t];
      bad |= !lb_fin(v);
      X[t] = v;
    }
    __syncthreads();
    if (n == 1) {
      // SciPy divides by the diagonal, without a singularity check
      const T dg = W[kv];
      for (i64 q = threadIdx.x; q < k; q += blockDim.x) X[q] = X[q] / dg;
      __syncthreads();
      continue;
    }
    // every thread makes the same pivot choice (no broadcast needed)
    i64 ju = 0, info = -1;
    for (i64 j = 0; j < n; ++j) {
      const i64 km = l < n - 1 - j ? l : n - 1 - j;
      const T* colj = W + j * ldw + kv;  // colj[t] = a[j + t, j]
      i64 p = 0;
      double best = lb_abs1(colj[0]);
      for (i64 t = 1; t <= km; ++t) {
        const double m = lb_abs1(colj[t]);
        if (m > best) {
          best = m;
          p = t;
        }
      }
      const bool zpiv = colj[p] == zero;
      if (threadIdx.x == 0) P[j] = (int)(j + p);
      __syncthreads();  // every thread has read column j before the interchange writes it
      if (zpiv) {
        if (info < 0) info = j;
        continue;
      }
      const i64 jnew = j + u + p < n - 1 ? j + u + p : n - 1;
      ju = ju > jnew ? ju : jnew;
      if (p != 0) {
        for (i64 c = j + threadIdx.x; c <= ju; c += blockDim.x) {
          T* cc = W + c * ldw + kv - c;  // cc[i] = a[i, c]
          const T tmp = cc[j];
          cc[j] = cc[j + p];
          cc[j + p] = tmp;
        }
      }
      __syncthreads();
      T* cj = W + j * ldw + kv;  // cj[t] = a[j + t, j] after the interchange
      const T d = cj[0];
      for (i64 t = 1 + threadIdx.x; t <= km; t += blockDim.x) cj[t] = cj[t] / d;
      __syncthreads();
      const i64 width = ju - j;  // columns j+1 .. ju
      for (i64 e = threadIdx.x; e < km * width; e += blockDim.x) {
        const i64 t = 1 + e % km, c = j + 1 + e / km;
        T* cc = W + c * ldw + kv - c;
        cc[j + t] = cc[j + t] - cj[t] * cc[j];
      }
      __syncthreads();
    }
    if (info >= 0) {
      if (threadIdx.x == 0) lb_fail(status, s, info);
      __syncthreads();
      continue;
    }
    for (i64 q = threadIdx.x; q < k; q += blockDim.x) {
      for (i64 j = 0; j < n - 1; ++j) {
        const i64 km = l < n - 1 - j ? l : n - 1 - j;
        const i64 pj = P[j];
        const T bj = X[pj * k + q];
        if (pj != j) {
          X[pj * k + q] = X[j * k + q];
          X[j * k + q] = bj;
        }
        const T* cj = W + j * ldw + kv;
        for (i64 t = 1; t <= km; ++t) X[(j + t) * k + q] = X[(j + t) * k + q] - cj[t] * bj;
      }
      for (i64 j = n - 1; j >= 0; --j) {
        const T* cc = W + j * ldw + kv - j;  // cc[i] = u[i, j]
        const T xj = X[j * k + q] / cc[j];
        X[j * k + q] = xj;
        const i64 i0 = j - kv > 0 ? j - kv : 0;
        for (i64 i = i0; i < j; ++i) X[i * k + q] = X[i * k + q] - cc[i] * xj;
      }
    }
    __syncthreads();
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr((unsigned int*)&status[1], 1u);
}

// The Hermitian band storage c ((kd+1) x n row-major): L[i, j] (j <= i <= j + kd) is c[i - j, j]
// in lower storage; upper storage holds U[j, i] = conj(L[i, j]) at c[kd + j - i, i].
template <class T>
__device__ __forceinline__ T lb_get(const T* c, i64 n, i64 kd, int lower, i64 i, i64 j) {
  return lower ? c[(i - j) * n + j] : cusci_conj(c[(kd + j - i) * n + i]);
}
template <class T>
__device__ __forceinline__ void lb_set(T* c, i64 n, i64 kd, int lower, i64 i, i64 j, T v) {
  if (lower)
    c[(i - j) * n + j] = v;
  else
    c[(kd + j - i) * n + i] = cusci_conj(v);
}

// Banded Cholesky in place of each of the count matrices of c (count x (kd+1) x n): a = L L^H
// (lower) or U^H U (upper), only the real part of the diagonal read (LAPACK's pbtrf). Stops a
// system at its first leading minor that is not positive definite (status[0]).
template <class T, class R>
__device__ void lb_pbtrf(T* c, i64 count, i64 n, i64 kd, int lower,
                         unsigned long long* status) {
  bool bad = false;
  for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
    T* C = c + s * (kd + 1) * n;
    for (i64 t = threadIdx.x; t < (kd + 1) * n; t += blockDim.x) bad |= !lb_fin(C[t]);
    for (i64 j = 0; j < n; ++j) {
      __syncthreads();  // the previous step's update (and the check's reads) are done
      const R ajj = cusci_real(lb_get(C, n, kd, lower, j, j));
      const bool fail = !(ajj > (R)0);  // NaN fails too
      __syncthreads();  // every thread has read L[j, j] before thread 0 writes it
      if (fail) {
        if (threadIdx.x == 0) lb_fail(status, s, j);
        break;
      }
      const R ljj = sqrt(ajj);
      const i64 m = kd < n - 1 - j ? kd : n - 1 - j;
      if (threadIdx.x == 0) lb_set(C, n, kd, lower, j, j, cusci_cast(T, ljj));
      for (i64 t = threadIdx.x; t < m; t += blockDim.x) {
        const i64 i = j + 1 + t;
        lb_set(C, n, kd, lower, i, j, lb_get(C, n, kd, lower, i, j) / ljj);
      }
      __syncthreads();
      for (i64 e = threadIdx.x; e < m * m; e += blockDim.x) {
        const i64 a = e / m, bcol = e - a * m;
        if (bcol > a) continue;
        const i64 i = j + 1 + a, cc = j + 1 + bcol;
        const T v = lb_get(C, n, kd, lower, i, cc) -
                    lb_get(C, n, kd, lower, i, j) * cusci_conj(lb_get(C, n, kd, lower, cc, j));
        lb_set(C, n, kd, lower, i, cc, v);
      }
    }
    __syncthreads();
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr((unsigned int*)&status[1], 1u);
}

// Solves L L^H x = b (or U^H U x = b) with the factors c (count x (kd+1) x n) for b (count x n x
// k, row-major) into x (LAPACK's pbtrs); one thread per right-hand-side column. check_c: also
// flag non-finite elements of c (cho_solve_banded's check of its factor).
template <class T>
__device__ void lb_pbtrs(const T* __restrict__ c, const T* __restrict__ b, T* __restrict__ x,
                         i64 count, i64 n, i64 kd, i64 k, int lower, int check_c,
                         unsigned long long* status) {
  bool bad = false;
  for (i64 s = blockIdx.x; s < count; s += gridDim.x) {
    const T* C = c + s * (kd + 1) * n;
    const T* B = b + s * n * k;
    T* X = x + s * n * k;
    if (check_c)
      for (i64 t = threadIdx.x; t < (kd + 1) * n; t += blockDim.x) bad |= !lb_fin(C[t]);
    for (i64 q = threadIdx.x; q < k; q += blockDim.x) {
      for (i64 i = 0; i < n; ++i) {
        T v = B[i * k + q];
        bad |= !lb_fin(v);
        const i64 k0 = i - kd > 0 ? i - kd : 0;
        for (i64 kk = k0; kk < i; ++kk) v = v - lb_get(C, n, kd, lower, i, kk) * X[kk * k + q];
        X[i * k + q] = v / lb_get(C, n, kd, lower, i, i);
      }
      for (i64 i = n - 1; i >= 0; --i) {
        T v = X[i * k + q];
        const i64 k1 = i + kd < n - 1 ? i + kd : n - 1;
        for (i64 kk = i + 1; kk <= k1; ++kk)
          v = v - cusci_conj(lb_get(C, n, kd, lower, kk, i)) * X[kk * k + q];
        X[i * k + q] = v / cusci_conj(lb_get(C, n, kd, lower, i, i));
      }
    }
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr((unsigned int*)&status[1], 1u);
}

// out (count x n x n, row-major) = the symmetric tridiagonal matrices with diagonals d (count x
// n) and off-diagonals e (count x (n-1)); grid-stride over the elements.
template <class T>
__device__ void lb_tridiag_dense(const T* __restrict__ d, const T* __restrict__ e,
                                 T* __restrict__ out, i64 n, i64 count) {
  const i64 total = n * n * count;
  const i64 stride = (i64)gridDim.x * blockDim.x;
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const i64 s = idx / (n * n), r = idx - s * n * n;
    const i64 i = r / n, j = r - i * n;
    T v = cusci_cast(T, 0.0);
    if (i == j)
      v = d[s * n + i];
    else if (j == i + 1)
      v = e[s * (n - 1) + i];
    else if (i == j + 1)
      v = cusci_conj(e[s * (n - 1) + j]);
    out[idx] = v;
  }
}

#define LB_INST(T, R, S)                                                                         \
  extern "C" __global__ void la_gbsv_##S(const T* ab, const T* b, T* x, T* work, int* piv,      \
                                         i64 count, i64 n, i64 l, i64 u, i64 k,                  \
                                         unsigned long long* status) {                           \
    lb_gbsv<T>(ab, b, x, work, piv, count, n, l, u, k, status);                                  \
  }                                                                                              \
  extern "C" __global__ void la_pbtrf_##S(T* c, i64 count, i64 n, i64 kd, int lower,            \
                                          unsigned long long* status) {                          \
    lb_pbtrf<T, R>(c, count, n, kd, lower, status);                                              \
  }                                                                                              \
  extern "C" __global__ void la_pbtrs_##S(const T* c, const T* b, T* x, i64 count, i64 n,       \
                                          i64 kd, i64 k, int lower, int check_c,                 \
                                          unsigned long long* status) {                          \
    lb_pbtrs<T>(c, b, x, count, n, kd, k, lower, check_c, status);                               \
  }                                                                                              \
  extern "C" __global__ void la_tridiag_dense_##S(const T* d, const T* e, T* out, i64 n,        \
                                                  i64 count) {                                   \
    lb_tridiag_dense<T>(d, e, out, n, count);                                                    \
  }
LB_INST(float, float, f32)
LB_INST(double, double, f64)
LB_INST(cplx32, float, c32)
LB_INST(cplx64, double, c64)
