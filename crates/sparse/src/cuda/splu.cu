// ---------------- sparse LU with partial pivoting (direct.rs splu) ----------------
// Appended to the solver module (sparse.cu, solvers.cu: T, R, TZERO, TRE, sl_vload). The CPU
// twin is `factor_cpu` in direct.rs: the same column steps (`factor_column`), the same roundings.
//
// Left-looking LU on a static structure (George & Ng; SuperLU_MT's scheduling): the host
// analysis gives, for each column j of A Pc (Pc the column ordering), the list deps(j) of the
// earlier columns that can update it (the structure of R(0..j, j), R the Cholesky factor of
// (A Pc)^T (A Pc)), sorted ascending, and slot capacities for L(:, j) and U(:, j). Columns are
// handed out in order by an atomic ticket (a topological order of the column elimination tree),
// so a block only waits for columns taken by blocks already running: no deadlock whatever the
// grid. Each block owns a dense workspace x[0..n) (original row ids), a mark per row (0
// untouched, 1 touched, 2 touched and pivotal for a column of deps(j)) and a list of touched
// rows.

// Products, sums and quotients rounded once each (no FMA contraction), as the CPU computes them,
// so that real factors are bitwise the CPU's and both devices choose the same pivots.
__device__ __forceinline__ float lu_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double lu_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float lu_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double lu_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float lu_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double lu_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float lu_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double lu_div(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float lu_abs2(float a) { return lu_mul(a, a); }
__device__ __forceinline__ double lu_abs2(double a) { return lu_mul(a, a); }
__device__ __forceinline__ bool lu_finite(float a) { return isfinite(a); }
__device__ __forceinline__ bool lu_finite(double a) { return isfinite(a); }
// complex: num_complex's product and cusci's Smith quotient (math.rs cdiv), |z|^2 = re^2 + im^2
#define LU_CPLX(C)                                                                                \
__device__ __forceinline__ C lu_mul(C a, C b) {                                                   \
  return mk(lu_sub(lu_mul(a.re, b.re), lu_mul(a.im, b.im)),                                       \
            lu_add(lu_mul(a.re, b.im), lu_mul(a.im, b.re))); }                                    \
__device__ __forceinline__ C lu_sub(C a, C b) { return mk(lu_sub(a.re, b.re), lu_sub(a.im, b.im)); } \
__device__ __forceinline__ C lu_div(C a, C b) {                                                   \
  if (fabs(b.re) >= fabs(b.im)) {                                                                 \
    if (b.re == 0 && b.im == 0) return mk(lu_div(a.re, b.re), lu_div(a.im, b.re));                \
    auto r = lu_div(b.im, b.re);                                                                  \
    auto d = lu_add(b.re, lu_mul(b.im, r));                                                       \
    return mk(lu_div(lu_add(a.re, lu_mul(a.im, r)), d), lu_div(lu_sub(a.im, lu_mul(a.re, r)), d)); \
  }                                                                                               \
  auto r = lu_div(b.re, b.im);                                                                    \
  auto d = lu_add(lu_mul(b.re, r), b.im);                                                         \
  return mk(lu_div(lu_add(lu_mul(a.re, r), a.im), d), lu_div(lu_sub(lu_mul(a.im, r), a.re), d)); } \
__device__ __forceinline__ auto lu_abs2(C a) { return lu_add(lu_mul(a.re, a.re), lu_mul(a.im, a.im)); } \
__device__ __forceinline__ bool lu_finite(C a) { return isfinite(a.re) && isfinite(a.im); }
LU_CPLX(cplx32)
LU_CPLX(cplx64)

// loads of data written by other blocks during the kernel: past L1 (not coherent across SMs)
__device__ __forceinline__ int lu_ldi(const int* p) { return *(const volatile int*)p; }

// The shared-memory table of a column (open addressing, linear probing): key[h] = original row
// (-1 empty), val[h] = x[row], st[h] = 1 when the row is pivotal for a column of deps(j).
// Inserts of distinct rows may run concurrently; the probe chain of a present key holds no empty
// slot, so a concurrent lookup of another key is unaffected. -1: the table is full.
__device__ __forceinline__ int lu_slot(int* key, int mask, int shift, int i, bool insert) {
  unsigned h = ((unsigned)i * 0x9E3779B1u) >> shift;
  for (int p = 0; p <= mask; ++p, h = (h + 1) & mask) {
    const int o = ((volatile int*)key)[h];
    if (o == i) return (int)h;
    if (o == -1) {
      if (!insert) return -1;
      const int prev = atomicCAS(&key[h], -1, i);
      if (prev == -1 || prev == i) return (int)h;
    }
  }
  return -1;
}

// flags: [0] the column ticket, [1] the smallest singular column, [2] the smallest column whose
// L part overflowed its slot, [3] the smallest column that met a row pivotal for a column outside
// deps(j) ([1..4) start at INT_MAX). done[j]: 0 pending, 1 factored, 2 failed (or a dependency
// failed: the column is skipped). The slots: L(:, k) at lrow/lval[loff[k]..loff[k+1]) (original
// row ids, lcnt[k] used), U(:, j) at urow/uval[uoff[j]..uoff[j+1]) (column ids of A Pc, ucnt[j]
// used, the diagonal last). piv[j] = the pivot row of column j, pinv[row] = j (-1 before).
// xw, mw, tw: gridDim.x workspaces of n entries each (x and mark zero on entry, left zero).
// Dynamic shared memory: hcap * (sizeof(T) + 5) bytes. The columns j >= tail (the dense tail)
// apply only their deps before the tail (didx[dptr[j]..dend[j])), choose no pivot and store
// their candidate rows unscaled in their L slots (lcnt[j]) and their U entries (ucnt[j], no
// diagonal yet); lu_tail_gather and lu_tail_store finish them around a dense LU.
//
// Two workspaces for x, chosen per column:
// - when b = |deps(j)| + (the slots of L(:, j)) + 1 bounds the rows of the column (each is
//   pivotal for a column of deps(j) or a candidate for its pivot) and a table of 4/3 b slots
//   fits the dynamic shared memory (hcap slots, a power of two; 0: none): x lives in a
//   shared-memory table (lu_slot) of the smallest power of two >= 32 slots above 4/3 b, so that
//   a dependency costs shared-memory round trips only (a full table, impossible by the bound,
//   would be reported as flags[3]);
// - otherwise the block's global workspace: x[0..n) indexed by row, mark (0 untouched, 1
//   touched, 2 touched and pivotal for a column of deps(j)) and the list of touched rows.
// Both apply the same operations in the same order, so the values are the same.
extern "C" __global__ void lu_factor(i64 n, const int* acp, const int* ari, const T* av,
                                     const int* pc, const i64* dptr, const i64* dend,
                                     const int* didx, i64 tail,
                                     const i64* loff, const i64* uoff, int* lrow, T* lval,
                                     int* lcnt, int* urow, T* uval, int* ucnt, int* piv, int* pinv,
                                     int* done, int* flags, T* xw, int* mw, int* tw, int hcap) {
  __shared__ int s_j, s_fail, s_cnt, s_lcnt, s_nan, s_int, s_row, s_state;
  __shared__ R s_v[NT];
  __shared__ int s_r[NT];
  __shared__ int s_k[NT], s_pk[NT], s_lc[NT], s_rd[NT], s_wv[NT];
  __shared__ i64 s_l0[NT];
  extern __shared__ __align__(16) unsigned char lu_dyn[];
  T* hval = (T*)lu_dyn;
  int* hkey = (int*)(hval + hcap);
  unsigned char* hst = (unsigned char*)(hkey + hcap);
  const int tid = threadIdx.x;
  T* x = xw + (i64)blockIdx.x * n;
  int* mark = mw + (i64)blockIdx.x * n;
  int* list = tw + (i64)blockIdx.x * n;
  for (;;) {
    __syncthreads();  // the previous column's shared state is no longer read
    if (tid == 0) {
      s_j = atomicAdd(&flags[0], 1);
      s_fail = 0; s_cnt = 0; s_lcnt = 0; s_nan = 0; s_int = 0; s_row = -1; s_state = 0;
    }
    __syncthreads();
    const int j = s_j;
    if ((i64)j >= n) return;
    const i64 d0 = dptr[j], d1 = dend[j];
    const bool tcol = (i64)j >= tail;
    const i64 l0 = loff[j];
    const i64 cap = loff[j + 1] - l0;
    // the table: the smallest power of two (>= 32) at least 4/3 of the bound on the rows
    const i64 need = (4 * ((d1 - d0) + cap + 1) + 2) / 3;
    int hc = 32;
    while (hc < need && hc < hcap) hc <<= 1;
    const bool tab = hc <= hcap && hc >= need;
    const int hmask = hc - 1, hshift = __clz(hc) + 1;
    if (tab)
      for (int t = tid; t < hc; t += NT) { hkey[t] = -1; hval[t] = TZERO; hst[t] = 0; }
    __syncthreads();
    // scatter A(:, pc[j]) (canonical: distinct rows)
    const int c = pc[j];
    for (int e = acp[c] + tid; e < acp[c + 1]; e += NT) {
      const int i = ari[e];
      if (tab) {
        const int h = lu_slot(hkey, hmask, hshift, i, true);
        if (h < 0) s_int = 1;
        else hval[h] = av[e];
      } else {
        x[i] = av[e];
        mark[i] = 1;
        list[atomicAdd(&s_cnt, 1)] = i;
      }
    }
    __syncthreads();
    // x -= L(:, k) U(k, j) for k in deps(j), ascending, each as soon as column k is done (not
    // after all of deps(j): the critical path is then the chain of single updates, not of whole
    // columns). The deps come in chunks of NT: each thread checks one dependency without waiting
    // and, if it is done, loads its pivot row and slot bounds (s_rd: its done word, 0 pending);
    // thread 0 waits for a pending one at its turn (s_wv: its done word), then every thread loads
    // them. Each thread loads its first entry of L(:, k) one dependency ahead when that column is
    // done, so that a dependency costs the round trips to x (x[piv[k]], then the updated rows)
    // between barriers. A failed dependency makes the column fail too (done 2, no flag), as the
    // serial order skips it.
    int nu = 0;  // U entries stored (thread 0)
    const i64 u0 = uoff[j];
    bool dead = false;  // a dependency failed (the same in every thread): no pivot, no store
    for (i64 c0 = d0; c0 < d1 && !dead; c0 += NT) {
      const int m = (int)min((i64)NT, d1 - c0);
      __syncthreads();  // the previous chunk is no longer read
      if (tid < m) {
        const int k = didx[c0 + tid];
        const int v = lu_ldi(done + k);
        s_k[tid] = k;
        s_rd[tid] = v;
        if (v == 1) {
          __threadfence();
          s_pk[tid] = lu_ldi(piv + k);
          s_lc[tid] = lu_ldi(lcnt + k);
          s_l0[tid] = loff[k];
        } else if (v == 2) {
          s_fail = 1;
        }
      }
      __syncthreads();
      if (s_fail) {
        dead = true;
        break;
      }
      int iN = 0;
      T vN = TZERO;
      bool have = s_rd[0] == 1;  // iN, vN hold this thread's first entry of the next dependency
      if (have && tid < s_lc[0]) {
        iN = lu_ldi(lrow + s_l0[0] + tid);
        vN = sl_vload(lval + s_l0[0] + tid);
      }
      for (int q = 0; q < m; ++q) {
        const int k = s_k[q];
        int pk, lc;
        i64 lk;
        if (s_rd[q] == 1) {
          pk = s_pk[q];
          lc = s_lc[q];
          lk = s_l0[q];
        } else {  // s_rd was written before the last barrier: a uniform branch
          if (tid == 0) {
            int v;
            while ((v = lu_ldi(done + k)) == 0) {
#if __CUDA_ARCH__ >= 700
              __nanosleep(32);
#endif
            }
            __threadfence();
            s_wv[q] = v;
          }
          __syncthreads();
          if (s_wv[q] != 1) {
            dead = true;
            break;
          }
          // every thread reads them itself: the chunk's slots stay as loaded (a thread may have
          // read s_lc[q] ahead of its s_rd test), so no shared slot is rewritten without a barrier
          pk = lu_ldi(piv + k);
          lc = lu_ldi(lcnt + k);
          lk = loff[k];
        }
        int i0 = iN;
        T v0 = vN;
        if (!have && tid < lc) {
          i0 = lu_ldi(lrow + lk + tid);
          v0 = sl_vload(lval + lk + tid);
        }
        have = q + 1 < m && s_rd[q + 1] == 1;
        if (have && tid < s_lc[q + 1]) {
          iN = lu_ldi(lrow + s_l0[q + 1] + tid);
          vN = sl_vload(lval + s_l0[q + 1] + tid);
        }
        int hp = -1;
        T xr;
        if (tab) {
          hp = lu_slot(hkey, hmask, hshift, pk, false);
          xr = hp >= 0 ? hval[hp] : TZERO;
        } else {
          xr = x[pk];
        }
        if (tid == 0) {
          if (tab) {
            if (hp >= 0) hst[hp] = 1;
          } else if (mark[pk] != 0) {
            mark[pk] = 2;
          }
          if (xr != TZERO) {
            urow[u0 + nu] = k;
            uval[u0 + nu] = xr;
            ++nu;
          }
        }
        if (xr != TZERO) {  // the same value in every thread: a uniform branch
          for (int t = tid; t < lc; t += NT) {
            const int i = t == tid ? i0 : lu_ldi(lrow + lk + t);
            const T l = t == tid ? v0 : sl_vload(lval + lk + t);
            if (tab) {
              const int h = lu_slot(hkey, hmask, hshift, i, true);
              if (h < 0) s_int = 1;
              else hval[h] = lu_sub(hval[h], lu_mul(l, xr));
            } else {
              if (mark[i] == 0) {
                mark[i] = 1;
                list[atomicAdd(&s_cnt, 1)] = i;
              }
              x[i] = lu_sub(x[i], lu_mul(l, xr));
            }
          }
          __syncthreads();
        }
      }
    }
    __syncthreads();
    // the pivot: the largest |x[i]| over the touched rows not pivotal yet, ties to the smallest
    // row; a NaN candidate or a non-finite pivot makes the column singular
    const int cnt = tab ? hc : s_cnt;
    R bv = (R)0;
    int br = 0x7fffffff;
    for (int t = tid; t < cnt; t += NT) {
      int i;
      T xi;
      if (tab) {
        i = hkey[t];
        if (i < 0 || hst[t]) continue;
        xi = hval[t];
      } else {
        i = list[t];
        if (mark[i] != 1) continue;
        xi = x[i];
      }
      if (lu_ldi(pinv + i) >= 0) s_int = 1;
      const R a = lu_abs2(xi);
      if (a != a) s_nan = 1;
      else if (a > (R)0 && (a > bv || (a == bv && i < br))) { bv = a; br = i; }
    }
    s_v[tid] = bv;
    s_r[tid] = br;
    __syncthreads();
    for (int s = NT / 2; s > 0; s >>= 1) {
      if (tid < s) {
        const R ov = s_v[tid + s];
        const int orow = s_r[tid + s];
        if (ov > s_v[tid] || (ov == s_v[tid] && orow < s_r[tid])) {
          s_v[tid] = ov;
          s_r[tid] = orow;
        }
      }
      __syncthreads();
    }
    T pv = TZERO;  // the pivot (every thread)
    {
      const int r = s_r[0];
      if (r != 0x7fffffff) pv = tab ? hval[lu_slot(hkey, hmask, hshift, r, false)] : x[r];
      if (tid == 0) {
        if (dead) {}  // skipped: neither a pivot nor a flag
        else if (s_int) s_state = 3;
        else if (tcol) {}  // no pivot: the dense block's
        else if (s_nan || r == 0x7fffffff || !lu_finite(pv)) s_state = 1;
        else s_row = r;
      }
    }
    __syncthreads();
    const int prow = s_row;
    if (prow >= 0 || (tcol && !dead)) {
      for (int t = tid; t < cnt; t += NT) {
        int i;
        T xi;
        if (tab) {
          i = hkey[t];
          if (i < 0 || hst[t]) continue;
          xi = hval[t];
        } else {
          i = list[t];
          if (mark[i] != 1) continue;
          xi = x[i];
        }
        if (i != prow && xi != TZERO) {
          const int s = atomicAdd(&s_lcnt, 1);
          if ((i64)s < cap) {
            lrow[l0 + s] = i;
            lval[l0 + s] = tcol ? xi : lu_div(xi, pv);
          }
        }
      }
    }
    __syncthreads();
    // clear the global workspace
    if (!tab)
      for (int t = tid; t < cnt; t += NT) {
        const int i = list[t];
        x[i] = TZERO;
        mark[i] = 0;
      }
    __threadfence();
    __syncthreads();
    if (tid == 0) {
      int state = s_state;
      if (state == 0 && (i64)s_lcnt > cap) state = 2;
      if (dead) {
        atomicExch(&done[j], 2);
      } else if (state != 0) {
        atomicMin(&flags[state], j);
        __threadfence();
        atomicExch(&done[j], 2);
      } else if (tcol) {
        ucnt[j] = nu;
        lcnt[j] = s_lcnt;
        __threadfence();
        atomicExch(&done[j], 1);
      } else {
        urow[u0 + nu] = j;
        uval[u0 + nu] = pv;
        ucnt[j] = nu + 1;
        lcnt[j] = s_lcnt;
        piv[j] = prow;
        pinv[prow] = j;
        __threadfence();
        atomicExch(&done[j], 1);
      }
    }
  }
}

// The dense tail (m = n - tail columns, direct.rs tail_cpu is the CPU twin): S (row-major m x m,
// zero on entry) gets the candidates of tail column c (unscaled, in its L slots) at
// S[map[row] * m + c], map[row] the row's index among the rows not pivotal; a non-finite entry
// makes column tail + c singular (flags[1]); one warp per column.
extern "C" __global__ void lu_tail_gather(i64 n, i64 tail, const i64* loff, const int* lrow,
                                          const T* lval, const int* lcnt, const int* map, T* S,
                                          int* flags) {
  const int lane = threadIdx.x & 31;
  const i64 m = n - tail;
  const i64 w0 = (blockIdx.x * (i64)blockDim.x + threadIdx.x) >> 5;
  const i64 nw = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 c = w0; c < m; c += nw) {
    const i64 l0 = loff[tail + c];
    for (int t = lane; t < lcnt[tail + c]; t += 32) {
      const T v = lval[l0 + t];
      if (!lu_finite(v)) atomicMin(&flags[1], (int)(tail + c));
      S[(i64)map[lrow[l0 + t]] * m + c] = v;
    }
  }
}

// The LU factors of S into the slots of the tail columns: g column-major (g[c * m + r] = F(r, c),
// F = L + U - I of S with its row interchanges applied), rowperm[r] the original row of F's row r.
// L(:, j) gets F's entries below the diagonal (rows rowperm[r]), U(:, j) after its entries of the
// sparse columns those on and above it (rows tail + r, the diagonal last); a zero pivot or a
// non-finite entry in F's column c makes column j singular (flags[1]: a NaN of S can end up
// above the diagonal only, when getrf skips zero multipliers). One block per column.
extern "C" __global__ void lu_tail_store(i64 n, i64 tail, const T* g, const int* rowperm,
                                         const i64* loff, int* lrow, T* lval, int* lcnt,
                                         const i64* uoff, int* urow, T* uval, int* ucnt, int* piv,
                                         int* pinv, int* flags) {
  __shared__ int s_l, s_u, s_bad;
  const int tid = threadIdx.x;
  const i64 m = n - tail;
  for (i64 c = blockIdx.x; c < m; c += gridDim.x) {
    const i64 j = tail + c;
    __syncthreads();
    if (tid == 0) { s_l = 0; s_u = ucnt[j]; s_bad = 0; }
    __syncthreads();
    const T* col = g + c * m;
    const i64 l0 = loff[j], u0 = uoff[j];
    for (i64 r = tid; r < m; r += NT) {
      const T v = col[r];
      if (r == c || v == TZERO) continue;
      if (!lu_finite(v)) s_bad = 1;
      if (r > c) {
        const int s = atomicAdd(&s_l, 1);
        lrow[l0 + s] = rowperm[r];
        lval[l0 + s] = v;
      } else {
        const int s = atomicAdd(&s_u, 1);
        urow[u0 + s] = (int)(tail + r);
        uval[u0 + s] = v;
      }
    }
    __syncthreads();
    if (tid == 0) {
      const T d = col[c];
      urow[u0 + s_u] = (int)j;
      uval[u0 + s_u] = d;
      ucnt[j] = s_u + 1;
      lcnt[j] = s_l;
      piv[j] = rowperm[c];
      pinv[rowperm[c]] = (int)j;
      if (s_bad || d == TZERO || !lu_finite(d)) atomicMin(&flags[1], (int)j);
    }
  }
}

// lc[j + 1] = lcnt[j] + 1 (the unit diagonal), uc[j + 1] = ucnt[j]; lc[0] = uc[0] = 0
extern "C" __global__ void lu_counts(i64 n, const int* lcnt, const int* ucnt, int* lc, int* uc) {
  GRID_LOOP(j, n) {
    lc[j + 1] = lcnt[j] + 1;
    uc[j + 1] = ucnt[j];
    if (j == 0) { lc[0] = 0; uc[0] = 0; }
  }
}

// the slots compacted into CSC: L(:, k) as (k, 1) then (pinv[row], value) (rows in pivot
// order), U(:, j) as stored (rows: columns of A Pc); one warp per column
extern "C" __global__ void lu_compact(i64 n, const i64* loff, const int* lrow, const T* lval,
                                      const int* lcnt, const i64* uoff, const int* urow,
                                      const T* uval, const int* ucnt, const int* pinv,
                                      const int* lp, int* li, T* lv, const int* up, int* ui, T* uv) {
  const int lane = threadIdx.x & 31;
  const i64 w0 = (blockIdx.x * (i64)blockDim.x + threadIdx.x) >> 5;
  const i64 nw = ((i64)gridDim.x * blockDim.x) >> 5;
  for (i64 j = w0; j < n; j += nw) {
    const i64 lo = lp[j], ls = loff[j];
    if (lane == 0) { li[lo] = (int)j; lv[lo] = TRE(1.0); }
    for (int t = lane; t < lcnt[j]; t += 32) {
      li[lo + 1 + t] = pinv[lrow[ls + t]];
      lv[lo + 1 + t] = lval[ls + t];
    }
    const i64 uo = up[j], us = uoff[j];
    for (int t = lane; t < ucnt[j]; t += 32) {
      ui[uo + t] = urow[us + t];
      uv[uo + t] = uval[us + t];
    }
  }
}
