// cusci-sparse kernels. The Rust side prepends `typedef <type> T; typedef <real> R;`, the
// macros TZERO (T zero) and TRE (a real as T) and `typedef <int or long long> I;` (the index
// type of the matrices); one module per (element type, index type). Grid-stride loops, 64-bit
// counts. The vector and solver kernels do not use I.
#define NT 256
#define GRID_LOOP(i, n) for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// the structure checks, COO -> CSR, CSR <-> dense and CSR -> COO kernels are in formats.cu
// (generic in the index type)

// ---------------- vectors ----------------
// partials[block] = sum conj(x) * y over the block's grid-stride share (fixed order)
extern "C" __global__ void sp_dot_partial(const T* x, const T* y, i64 n, T* partials) {
  __shared__ T sh[NT];
  T acc = TZERO;
  GRID_LOOP(i, n) { acc = acc + cusci_conj(x[i]) * y[i]; }
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) sh[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

// the sum of g partials in a fixed order, by one block of NT threads; every thread gets it
__device__ T sum_partials(const T* p, int g) {
  __shared__ T sh[NT];
  T acc = TZERO;
  for (int i = threadIdx.x; i < g; i += NT) acc = acc + p[i];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) sh[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + s];
    __syncthreads();
  }
  return sh[0];
}

// out[0] = sum of partials
extern "C" __global__ void sp_sum_partials(const T* p, int g, T* out) {
  T s = sum_partials(p, g);
  if (threadIdx.x == 0) out[0] = s;
}

// out = a - b
extern "C" __global__ void sp_sub(const T* a, const T* b, T* out, i64 n) {
  GRID_LOOP(i, n) { out[i] = a[i] - b[i]; }
}

// ---------------- conjugate gradients (SciPy's cg, state on the device) ----------------
// st: [rho_prev, rho_cur, alpha, rnorm2]; ist: [done, iterations at convergence]
// rnorm2 = r.r; converged when sqrt(|rnorm2|) < atol; without a preconditioner rho_cur = r.r
extern "C" __global__ void sp_cg_rr(const T* partials, int g, T* st, int* ist, double atol, int it, int rho_is_rr) {
  T s = sum_partials(partials, g);
  if (threadIdx.x == 0 && !ist[0]) {
    st[3] = s;
    if (sqrt((double)cusci_abs(s)) < atol) { ist[0] = 1; ist[1] = it; }
    else if (rho_is_rr) st[1] = s;
  }
}

// rho_cur = r.z (with a preconditioner)
extern "C" __global__ void sp_cg_rho(const T* partials, int g, T* st, const int* ist) {
  T s = sum_partials(partials, g);
  if (threadIdx.x == 0 && !ist[0]) st[1] = s;
}

// p = z (first iteration) or p = beta p + z with beta = rho_cur / rho_prev
extern "C" __global__ void sp_cg_update_p(const T* z, T* p, i64 n, const T* st, const int* ist, int first) {
  if (ist[0]) return;
  if (first) { GRID_LOOP(i, n) { p[i] = z[i]; } return; }
  T beta = st[1] / st[0];
  GRID_LOOP(i, n) { p[i] = beta * p[i] + z[i]; }
}

// alpha = rho_cur / (p.q); rho_prev = rho_cur
extern "C" __global__ void sp_cg_alpha(const T* partials, int g, T* st, const int* ist) {
  T s = sum_partials(partials, g);
  if (threadIdx.x == 0 && !ist[0]) { st[2] = st[1] / s; st[0] = st[1]; }
}

// x += alpha p; r -= alpha q
extern "C" __global__ void sp_cg_update_xr(T* x, T* r, const T* p, const T* q, i64 n, const T* st, const int* ist) {
  if (ist[0]) return;
  T a = st[2];
  GRID_LOOP(i, n) { x[i] = x[i] + a * p[i]; r[i] = r[i] - a * q[i]; }
}

// ---------------- structure-preserving operations ----------------
// counts[r + 1] = stored entries of row r that are not zero
extern "C" __global__ void sp_nz_count(const I* indptr, const T* data, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) if (data[j] != TZERO) c++;
    counts[r + 1] = c;
  }
}

extern "C" __global__ void sp_nz_write(const I* indptr, const I* indices, const T* data, i64 m,
                                       const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = outptr[r];
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      if (data[j] != TZERO) { oind[o] = indices[j]; odat[o] = data[j]; o++; }
    }
  }
}

// out[i] = A[r, r + k] for the i-th element of diagonal k (duplicates summed)
extern "C" __global__ void sp_diagonal(const I* indptr, const I* indices, const T* data, i64 len, i64 k, T* out) {
  GRID_LOOP(i, len) {
    i64 r = k >= 0 ? i : i - k;
    i64 c = r + k;
    T s = TZERO;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) if ((i64)indices[j] == c) s = s + data[j];
    out[i] = s;
  }
}

// dst[i] = scale * src[i]
extern "C" __global__ void sp_copy_scaled(const T* src, T* dst, i64 n, T scale) {
  GRID_LOOP(i, n) { dst[i] = scale * src[i]; }
}

// dst[i] = src[i] for index arrays
extern "C" __global__ void sp_copy_idx(const I* src, I* dst, i64 n) {
  GRID_LOOP(i, n) { dst[i] = src[i]; }
}

// ---------------- SpGEMM by expansion (products), then COO -> CSR sums them ----------------
// counts[j + 1] = length of row indices[j] of B, for every stored entry j of A (64-bit counts)
extern "C" __global__ void sp_gemm_count(const I* a_ind, i64 nnz_a, const I* b_ptr, i64* counts) {
  GRID_LOOP(j, nnz_a) { I k = a_ind[j]; counts[j + 1] = (i64)(b_ptr[k + 1] - b_ptr[k]); }
}

extern "C" __global__ void sp_gemm_expand(const I* a_rows, const I* a_ind, const T* a_dat, i64 nnz_a,
                                          const I* b_ptr, const I* b_ind, const T* b_dat,
                                          const i64* off, I* orow, I* ocol, T* oval) {
  GRID_LOOP(j, nnz_a) {
    I k = a_ind[j];
    i64 o = off[j];
    I r = a_rows[j];
    T av = a_dat[j];
    for (I t = b_ptr[k]; t < b_ptr[k + 1]; ++t) { orow[o] = r; ocol[o] = b_ind[t]; oval[o] = av * b_dat[t]; o++; }
  }
}

// ---------------- element-wise product of two canonical CSR matrices ----------------
__device__ __forceinline__ I find_col(const I* ind, I s, I e, I c) {
  while (s < e) { I h = s + (e - s) / 2; if (ind[h] < c) s = h + 1; else e = h; }
  return s;
}

extern "C" __global__ void sp_mul_count(const I* a_ptr, const I* a_ind, const T* a_dat,
                                        const I* b_ptr, const I* b_ind, const T* b_dat, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    I c = 0, be = b_ptr[r + 1];
    for (I j = a_ptr[r]; j < a_ptr[r + 1]; ++j) {
      I t = find_col(b_ind, b_ptr[r], be, a_ind[j]);
      if (t < be && b_ind[t] == a_ind[j] && a_dat[j] * b_dat[t] != TZERO) c++;
    }
    counts[r + 1] = c;
  }
}

extern "C" __global__ void sp_mul_write(const I* a_ptr, const I* a_ind, const T* a_dat,
                                        const I* b_ptr, const I* b_ind, const T* b_dat, i64 m,
                                        const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = outptr[r], be = b_ptr[r + 1];
    for (I j = a_ptr[r]; j < a_ptr[r + 1]; ++j) {
      I t = find_col(b_ind, b_ptr[r], be, a_ind[j]);
      if (t < be && b_ind[t] == a_ind[j]) {
        T v = a_dat[j] * b_dat[t];
        if (v != TZERO) { oind[o] = a_ind[j]; odat[o] = v; o++; }
      }
    }
  }
}

// ---------------- csgraph: weakly connected components by min-label propagation ----------------
// node labels are of the index type (atomicMin on int and long long)
extern "C" __global__ void cc_init(I* label, i64 n) {
  GRID_LOOP(i, n) { label[i] = (I)i; }
}

// for every edge (r, c): both ends take the smaller label; changed is set when one moved
extern "C" __global__ void cc_hook(const I* indptr, const I* indices, i64 m, I* label, int* changed) {
  GRID_LOOP(r, m) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      I c = indices[j];
      I lr = label[r], lc = label[c];
      if (lr < lc) { atomicMin(&label[c], lr); atomicMin(&label[lc], lr); *changed = 1; }
      else if (lc < lr) { atomicMin(&label[r], lc); atomicMin(&label[lr], lc); *changed = 1; }
    }
  }
}

// pointer jumping to the root (label[x] <= x always, so chains end)
extern "C" __global__ void cc_jump(I* label, i64 n) {
  GRID_LOOP(i, n) {
    I l = label[i];
    while (label[l] != l) l = label[l];
    label[i] = l;
  }
}

// roots[i + 1] = 1 when i is its component's root
extern "C" __global__ void cc_roots(const I* label, i64 n, I* roots) {
  GRID_LOOP(i, n) { roots[i + 1] = label[i] == (I)i ? 1 : 0; }
}

// out[i] = the number of roots before label[i] (components numbered by their smallest node);
// int32 labels, as SciPy's (the caller checks n fits)
extern "C" __global__ void cc_relabel(const I* label, const I* rank, i64 n, int* out) {
  GRID_LOOP(i, n) { out[i] = (int)rank[label[i]]; }
}

// ---------------- the generic solver engine (krylov.rs): scalars st[], flag ist[0] ----------------
// every kernel does nothing once ist[0] != 0 (converged or broken down), so polling the flag
// every few iterations gives the result of a test after every step.
// st[slot] = sum of the partials (a dot product)
extern "C" __global__ void sp_dot_store(const T* partials, int g, T* st, const int* ist, int slot) {
  T s = sum_partials(partials, g);
  if (threadIdx.x == 0 && !ist[0]) st[slot] = s;
}

// st[dst] = st[a] op st[b]; op: 0 mul, 1 div, 2 add, 3 sub, 4 copy a
extern "C" __global__ void sp_scalar(T* st, const int* ist, int op, int dst, int a, int b) {
  if (ist[0] || threadIdx.x != 0) return;
  T x = st[a], y = st[b], r;
  switch (op) {
    case 0: r = x * y; break;
    case 1: r = x / y; break;
    case 2: r = x + y; break;
    case 3: r = x - y; break;
    default: r = x; break;
  }
  st[dst] = r;
}

// sets ist = (code, it) when |st[slot]| (its square root when take_sqrt) < tol
extern "C" __global__ void sp_check(const T* st, int* ist, int slot, double tol, int take_sqrt, int code, int it) {
  if (ist[0] || threadIdx.x != 0) return;
  double v = (double)cusci_abs(st[slot]);
  if (take_sqrt) v = sqrt(v);
  if (v < tol) { ist[0] = code; ist[1] = it; }
}

// y += c x with c = coef (slot < 0) or coef * st[slot]
extern "C" __global__ void sp_axpy(T* y, const T* x, i64 n, const T* st, const int* ist, int slot, T coef) {
  if (ist[0]) return;
  T c = slot < 0 ? coef : coef * st[slot];
  GRID_LOOP(i, n) { y[i] = y[i] + c * x[i]; }
}

// y = st[slot] y
extern "C" __global__ void sp_scal(T* y, i64 n, const T* st, const int* ist, int slot) {
  if (ist[0]) return;
  T c = st[slot];
  GRID_LOOP(i, n) { y[i] = c * y[i]; }
}

// out = a - b (gated)
extern "C" __global__ void sp_sub_g(const T* a, const T* b, T* out, i64 n, const int* ist) {
  if (ist[0]) return;
  GRID_LOOP(i, n) { out[i] = a[i] - b[i]; }
}

// out = a + b (gated)
extern "C" __global__ void sp_add_g(const T* a, const T* b, T* out, i64 n, const int* ist) {
  if (ist[0]) return;
  GRID_LOOP(i, n) { out[i] = a[i] + b[i]; }
}

// dst = src (gated)
extern "C" __global__ void sp_copy_g(const T* src, T* dst, i64 n, const int* ist) {
  if (ist[0]) return;
  GRID_LOOP(i, n) { dst[i] = src[i]; }
}

// st[slot] = v (not gated)
extern "C" __global__ void sp_set_scalar(T* st, int* ist, int slot, T v) {
  if (threadIdx.x == 0) st[slot] = v;
}

// ---------------- gmres (SciPy's restarted GMRES with Givens rotations) ----------------
// st layout for restart RS: H(col, k) = st[col * (RS + 1) + k] (H of SciPy: h[col, k]), then
// c[RS], s[RS], S[RS + 1], y[RS], then H0SQ, H1SQ, INV, PTOL, PRESID, PMF, BRK, RN2, NRM0.
// ist: [outer status, at, inner stop, column of the stop]
#define G_HN(RS) ((RS) * ((RS) + 1))
#define G_C(RS) (G_HN(RS))
#define G_S(RS) (G_HN(RS) + (RS))
#define G_RHS(RS) (G_HN(RS) + 2 * (RS))
#define G_Y(RS) (G_HN(RS) + 3 * (RS) + 1)
#define G_M(RS) (G_HN(RS) + 4 * (RS) + 1)
enum { GM_H0SQ = 0, GM_H1SQ, GM_INV, GM_PTOL, GM_PRESID, GM_PMF, GM_BRK, GM_RN2, GM_NRM0 };

// the start of a cycle: S = (|v0|, 0, ...), INV = 1/|v0|, inner status and breakdown cleared
extern "C" __global__ void sp_gmres_start(T* st, int* ist, int RS) {
  if (ist[0] || threadIdx.x != 0) return;
  T* S = st + G_RHS(RS);
  T* M = st + G_M(RS);
  double nrm = sqrt((double)cusci_abs(M[GM_NRM0]));
  for (int k = 0; k <= RS; ++k) S[k] = TZERO;
  S[0] = TRE(nrm);
  M[GM_INV] = TRE(1.0 / nrm);
  M[GM_BRK] = TZERO;
  ist[2] = 0; ist[3] = 0;
}

// LAPACK's lartg: [c s; -conj(s) c] [f; g] = [r; 0], c real (computed in double)
__device__ void g_lartg(T f, T g, T* c, T* s, T* r) {
  double af = (double)cusci_abs(f), ag = (double)cusci_abs(g);
  if (ag == 0.0) { *c = TRE(1.0); *s = TZERO; *r = f; return; }
  if (af == 0.0) { *c = TZERO; *s = cusci_conj(g) * TRE(1.0 / ag); *r = TRE(ag); return; }
  double d = hypot(af, ag);
  T sf = f * TRE(1.0 / af);
  *c = TRE(af / d);
  *r = sf * TRE(d);
  *s = cusci_conj(g) * sf * TRE(1.0 / d);
}

// column col of the Arnoldi cycle after its Gram-Schmidt: h1, breakdown, the rotations,
// the residual estimate; stops the cycle (inner status) when presid <= ptol or on breakdown
extern "C" __global__ void sp_gmres_rot(T* st, int* ist, int RS, int col, double eps) {
  if (ist[0] || ist[2] || threadIdx.x != 0) return;
  T* h = st + col * (RS + 1);
  T* C = st + G_C(RS);
  T* Sn = st + G_S(RS);
  T* S = st + G_RHS(RS);
  T* M = st + G_M(RS);
  double h0 = sqrt((double)cusci_abs(M[GM_H0SQ]));
  double h1 = sqrt((double)cusci_abs(M[GM_H1SQ]));
  int brk = 0;
  h[col + 1] = TRE(h1);
  if (h1 <= eps * h0) { h[col + 1] = TZERO; brk = 1; M[GM_INV] = TRE(1.0); }
  else M[GM_INV] = TRE(1.0 / h1);
  for (int k = 0; k < col; ++k) {
    T c = C[k], s = Sn[k], n0 = h[k], n1 = h[k + 1];
    h[k] = c * n0 + s * n1;
    h[k + 1] = TZERO - cusci_conj(s) * n0 + c * n1;
  }
  T c, s, r;
  g_lartg(h[col], h[col + 1], &c, &s, &r);
  C[col] = c; Sn[col] = s;
  h[col] = r; h[col + 1] = TZERO;
  T tmp = TZERO - cusci_conj(s) * S[col];
  S[col] = c * S[col];
  S[col + 1] = tmp;
  double presid = (double)cusci_abs(tmp);
  M[GM_PRESID] = TRE(presid);
  M[GM_BRK] = TRE((double)brk);
  if (presid <= (double)cusci_real(M[GM_PTOL]) || brk) { ist[2] = 1; ist[3] = col; }
}

// y = H[:col+1, :col+1]^-1 S[:col+1] (SciPy's pseudo-solve of the triangular system), zeros after
extern "C" __global__ void sp_gmres_solve(T* st, int* ist, int RS) {
  if (ist[0] || threadIdx.x != 0) return;
  int col = ist[2] ? ist[3] : RS - 1;
  T* S = st + G_RHS(RS);
  T* Y = st + G_Y(RS);
  if (st[col * (RS + 1) + col] == TZERO) S[col] = TZERO;
  for (int k = 0; k < RS; ++k) Y[k] = k <= col ? S[k] : TZERO;
  for (int k = col; k > 0; --k) {
    if (Y[k] != TZERO) {
      Y[k] = Y[k] / st[k * (RS + 1) + k];
      T tmp = Y[k];
      for (int j = 0; j < k; ++j) Y[j] = Y[j] - tmp * st[k * (RS + 1) + j];
    }
  }
  if (Y[0] != TZERO) Y[0] = Y[0] / st[0];
}

// the end of a cycle: converged (status 1) when |r| <= atol, stopped (2) on a breakdown, else
// SciPy's update of the inner tolerance
extern "C" __global__ void sp_gmres_outer(T* st, int* ist, int RS, int it, double atol, double eps) {
  if (ist[0] || threadIdx.x != 0) return;
  T* M = st + G_M(RS);
  double rn = sqrt((double)cusci_abs(M[GM_RN2]));
  double presid = (double)cusci_real(M[GM_PRESID]);
  double ptol = (double)cusci_real(M[GM_PTOL]);
  double pmf = (double)cusci_real(M[GM_PMF]);
  if (rn <= atol) { ist[0] = 1; ist[1] = it + 1; return; }
  if (cusci_real(M[GM_BRK]) != 0) { ist[0] = 2; ist[1] = it + 1; return; }
  if (presid <= ptol) pmf = fmax(eps, 0.25 * pmf); else pmf = fmin(1.0, 1.5 * pmf);
  M[GM_PMF] = TRE(pmf);
  M[GM_PTOL] = TRE(presid * fmin(pmf, atol / rn));
}

// Per-row maximum (want_max != 0) or minimum of the real values v of a CSR matrix without
// repeated columns in a row (canonical), the implicit zeros included when a row stores fewer
// than ncols entries (SciPy's max/min along an axis); any NaN in the row gives NaN (NumPy's
// maximum/minimum); a row without entries gives 0.
extern "C" __global__ void sp_row_minmax(const I* __restrict__ indptr, const R* __restrict__ v, i64 m,
                                         i64 ncols, int want_max, R* __restrict__ out) {
  GRID_LOOP(r, m) {
    const i64 a = (i64)indptr[r], b = (i64)indptr[r + 1];
    R acc = (R)0;
    bool any = false, nan = false;
    R nanv = (R)0;
    for (i64 j = a; j < b; ++j) {
      const R x = v[j];
      if (x != x) {
        nan = true;
        nanv = x;
      } else if (!any) {
        acc = x;
        any = true;
      } else {
        acc = want_max ? (x > acc ? x : acc) : (x < acc ? x : acc);
      }
    }
    if (b - a < ncols) {
      if (!any) acc = (R)0;
      else acc = want_max ? (acc > (R)0 ? acc : (R)0) : (acc < (R)0 ? acc : (R)0);
    }
    out[r] = nan ? nanv : acc;
  }
}

// setdiag: the stored entries that stay are all but those on diagonal k whose index along the
// diagonal (the row for k >= 0, the column for k < 0) is below len (the values set)
__device__ __forceinline__ bool sp_diag_stays(i64 r, i64 c, i64 k, i64 len) {
  return c - r != k || (k >= 0 ? r : c) >= len;
}

extern "C" __global__ void sp_offdiag_count(const I* indptr, const I* indices, i64 k, i64 len, i64 m,
                                            I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j)
      if (sp_diag_stays(r, (i64)indices[j], k, len)) c++;
    counts[r + 1] = c;
  }
}

extern "C" __global__ void sp_offdiag_write(const I* indptr, const I* indices, const T* data, i64 k,
                                            i64 len, i64 m, const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = outptr[r];
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      if (sp_diag_stays(r, (i64)indices[j], k, len)) { oind[o] = indices[j]; odat[o] = data[j]; o++; }
    }
  }
}
