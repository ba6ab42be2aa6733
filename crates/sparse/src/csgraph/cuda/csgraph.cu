// cusci-sparse csgraph kernels. The Rust side prepends the prelude of the element type (T: float
// or double) and `typedef <int or long long> I;` (the graph's index type); one module per
// (element type, index type). Grid-stride loops over 64-bit counts. Every floating-point step is
// an addition, subtraction, comparison, correctly rounded division or square root, as on the
// CPU (csgraph/cpu.rs), so both devices give the same bits.
#define NT 256
#define GRID_LOOP(i, n) for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)
#define NULL_IDX (-9999)
#define FWT 32

__device__ __forceinline__ T cg_inf() { return (T)__longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ T cg_nan() { return (T)__longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ bool cg_isinf(T x) { return x == cg_inf() || x == -cg_inf(); }

extern "C" __global__ void cg_fill(T* out, i64 len, T v) {
  GRID_LOOP(i, len) { out[i] = v; }
}

extern "C" __global__ void cg_fill_int(int* out, i64 len, int v) {
  GRID_LOOP(i, len) { out[i] = v; }
}

// ---------------- csgraph_to_dense ----------------
// one thread per row of a NaN-filled m x n array: at each position with stored entries the
// smallest of inf and their values (NaN values never win; the first of equal ones, in stored order)
extern "C" __global__ void cg_to_dense_rows(const I* ip, const I* ind, const T* val, i64 m, i64 n,
                                            T* out) {
  GRID_LOOP(r, m) {
    T* row = out + r * n;
    for (I e = ip[r]; e < ip[r + 1]; ++e) {
      T v = val[e];
      i64 c = (i64)ind[e];
      T cur = row[c];
      if (cur != cur) cur = cg_inf();
      row[c] = (v < cur) ? v : cur;
    }
  }
}

// the positions still NaN (no edge) become v
extern "C" __global__ void cg_nan_to(T* out, i64 len, T v) {
  GRID_LOOP(i, len) {
    T x = out[i];
    if (x != x) out[i] = v;
  }
}

// ---------------- csgraph_from_dense ----------------
__device__ __forceinline__ bool cg_is_null(T x, T nl, int nan_null, int inf_null) {
  return x == nl || (nan_null && x != x) || (inf_null && cg_isinf(x));
}

// counts[r + 1] = the edges of row r of the row-major m x n array a
extern "C" __global__ void cg_from_dense_count(const T* a, i64 n, const T* nullv, int nan_null,
                                               int inf_null, i64 m, I* counts) {
  T nl = *nullv;
  GRID_LOOP(r, m) {
    I c = 0;
    for (i64 j = 0; j < n; ++j)
      if (!cg_is_null(a[r * n + j], nl, nan_null, inf_null)) ++c;
    counts[r + 1] = c;
  }
}

extern "C" __global__ void cg_from_dense_write(const T* a, i64 n, const T* nullv, int nan_null,
                                               int inf_null, i64 m, const I* ptr, I* oind,
                                               T* odat) {
  T nl = *nullv;
  GRID_LOOP(r, m) {
    I o = ptr[r];
    for (i64 j = 0; j < n; ++j) {
      T x = a[r * n + j];
      if (!cg_is_null(x, nl, nan_null, inf_null)) {
        oind[o] = (I)j;
        odat[o] = x;
        ++o;
      }
    }
  }
}

// ---------------- laplacian ----------------
// s = 1 where the degree is 0, else its square root
__device__ __forceinline__ T cg_s(T x) { return x == (T)0 ? (T)1 : cusci_sqrt(x); }

// counts[r + 1] = the off-diagonal entries of row r, plus its diagonal
extern "C" __global__ void cg_lap_count(const I* ip, const I* ind, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    I c = 1;
    for (I e = ip[r]; e < ip[r + 1]; ++e)
      if ((i64)ind[e] != r) ++c;
    counts[r + 1] = c;
  }
}

// row r: each off-diagonal entry negated (normed: / s[r], then / s[c], then negated), then the
// diagonal (w[r]; normed: 1, or 0 where w = 0)
extern "C" __global__ void cg_lap_write(const I* ip, const I* ind, const T* val, const T* w,
                                        int normed, i64 m, const I* ptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = ptr[r];
    for (I e = ip[r]; e < ip[r + 1]; ++e) {
      i64 c = (i64)ind[e];
      if (c == r) continue;
      T v = normed ? -((val[e] / cg_s(w[r])) / cg_s(w[c])) : -val[e];
      oind[o] = (I)c;
      odat[o] = v;
      ++o;
    }
    oind[o] = (I)r;
    odat[o] = normed ? (w[r] == (T)0 ? (T)0 : (T)1) : w[r];
  }
}

extern "C" __global__ void cg_lap_diag(const T* w, i64 n, T* out) {
  GRID_LOOP(i, n) { out[i] = cg_s(w[i]); }
}

// ---------------- construct_dist_matrix ----------------
// undirected: zeros become inf, then the smaller of g[i, j] and g[j, i] (g[j, i] on ties)
extern "C" __global__ void cg_sym_min(const T* g, i64 n, T* s) {
  GRID_LOOP(ij, n * n) {
    i64 i = ij / n, j = ij - (ij / n) * n;
    T a = g[ij], b = g[j * n + i];
    if (a == (T)0) a = cg_inf();
    if (b == (T)0) b = cg_inf();
    s[ij] = (b <= a) ? b : a;
  }
}

// one thread per (i, j): the weights summed from j back to i along the predecessors; nullv
// where a predecessor is outside 0..n or the walk takes more than n steps
extern "C" __global__ void cg_dist_from_pred(const T* s, const int* pred, i64 n, T nullv, T* out) {
  GRID_LOOP(ij, n * n) {
    i64 i = ij / n, j = ij - (ij / n) * n;
    T acc = (T)0;
    i64 k2 = j, steps = 0;
    while (k2 != i) {
      int k1 = pred[i * n + k2];
      if (k1 < 0 || (i64)k1 >= n || steps == n) {
        acc = nullv;
        break;
      }
      acc = acc + s[(i64)k1 * n + k2];
      k2 = k1;
      ++steps;
    }
    out[ij] = acc;
  }
}

// ---------------- reconstruct_path ----------------
extern "C" __global__ void cg_tree_flag(const int* pred, i64 n, I* flags) {
  GRID_LOOP(j, n) {
    int p = pred[j];
    flags[j + 1] = (p >= 0 && (i64)p < n) ? 1 : 0;
  }
}

// the sum of the entries stored at (u, j), in stored order (0 when none)
__device__ T cg_entry(const I* ip, const I* ind, const T* val, i64 u, i64 j) {
  T acc = (T)0;
  for (I e = ip[u]; e < ip[u + 1]; ++e)
    if ((i64)ind[e] == j) acc = acc + val[e];
  return acc;
}

// the edge pred[j] -> j at pos[j] of the COO arrays, with SciPy's weight
extern "C" __global__ void cg_tree_write(const I* ip, const I* ind, const T* val, const int* pred,
                                         i64 n, int directed, const I* pos, I* row, I* col,
                                         T* data) {
  GRID_LOOP(j, n) {
    int p = pred[j];
    if (p < 0 || (i64)p >= n) continue;
    i64 u = p;
    T d1 = cg_entry(ip, ind, val, u, j);
    T w = d1;
    if (!directed) {
      T a = d1 == (T)0 ? cg_inf() : d1;
      T b = cg_entry(ip, ind, val, j, u);
      if (b == (T)0) b = cg_inf();
      w = (b < a) ? b : a;
    }
    I o = pos[j];
    row[o] = (I)u;
    col[o] = (I)j;
    data[o] = w;
  }
}

// ---------------- Floyd-Warshall, blocked in FWT x FWT tiles ----------------
// the start: undirected the smaller direction, unweighted every non-infinite value 1, the
// diagonal 0; predecessors i where i -> j is a finite edge
extern "C" __global__ void cg_fw_init(const T* a, i64 n, int directed, int unw, int want_p, T* d,
                                      int* p) {
  GRID_LOOP(ij, n * n) {
    i64 i = ij / n, j = ij - (ij / n) * n;
    T v;
    if (i == j) {
      v = (T)0;
    } else {
      T x = a[ij], y = a[j * n + i];
      v = (!directed && y < x) ? y : x;
      if (unw && !cg_isinf(v)) v = (T)1;
    }
    d[ij] = v;
    if (want_p) p[ij] = (i != j && v < cg_inf()) ? (int)i : NULL_IDX;
  }
}

// phase 1: the diagonal tile k0.., one block of FWT x FWT threads; for each k of the tile in
// turn every element reads, the block syncs, the improved ones are written
extern "C" __global__ void __launch_bounds__(FWT * FWT) cg_fw_phase1(T* d, int* p, i64 n, i64 k0, int want_p) {
  __shared__ T sd[FWT][FWT + 1];
  __shared__ int sp[FWT][FWT + 1];
  int ti = threadIdx.y, tj = threadIdx.x;
  i64 i = k0 + ti, j = k0 + tj;
  bool in = i < n && j < n;
  sd[ti][tj] = in ? d[i * n + j] : cg_inf();
  sp[ti][tj] = (in && want_p) ? p[i * n + j] : NULL_IDX;
  __syncthreads();
  int kmax = (int)((n - k0) < FWT ? (n - k0) : FWT);
  for (int k = 0; k < kmax; ++k) {
    T cand = sd[ti][k] + sd[k][tj];
    bool better = cand < sd[ti][tj];
    int pk = sp[k][tj];
    __syncthreads();
    if (better) {
      sd[ti][tj] = cand;
      sp[ti][tj] = pk;
    }
    __syncthreads();
  }
  if (in) {
    d[i * n + j] = sd[ti][tj];
    if (want_p) p[i * n + j] = sp[ti][tj];
  }
}

// phase 2: blockIdx.y = 0, the tile (kb, blockIdx.x) of the tile row; 1, the tile
// (blockIdx.x, kb) of the tile column; each through the final diagonal tile, k in turn
extern "C" __global__ void __launch_bounds__(FWT * FWT) cg_fw_phase2(T* d, int* p, i64 n, i64 k0, int want_p) {
  if ((i64)blockIdx.x * FWT == k0) return;
  __shared__ T sk[FWT][FWT + 1];
  __shared__ T so[FWT][FWT + 1];
  __shared__ int skp[FWT][FWT + 1];
  __shared__ int sop[FWT][FWT + 1];
  int ti = threadIdx.y, tj = threadIdx.x;
  bool rowtile = blockIdx.y == 0;
  i64 o0 = (i64)blockIdx.x * FWT;
  i64 i = rowtile ? k0 + ti : o0 + ti;
  i64 j = rowtile ? o0 + tj : k0 + tj;
  bool in = i < n && j < n;
  i64 di = k0 + ti, dj = k0 + tj;
  bool din = di < n && dj < n;
  sk[ti][tj] = din ? d[di * n + dj] : cg_inf();
  skp[ti][tj] = (din && want_p) ? p[di * n + dj] : NULL_IDX;
  so[ti][tj] = in ? d[i * n + j] : cg_inf();
  sop[ti][tj] = (in && want_p) ? p[i * n + j] : NULL_IDX;
  __syncthreads();
  int kmax = (int)((n - k0) < FWT ? (n - k0) : FWT);
  for (int k = 0; k < kmax; ++k) {
    T cand;
    int pk;
    if (rowtile) {
      cand = sk[ti][k] + so[k][tj];
      pk = sop[k][tj];
    } else {
      cand = so[ti][k] + sk[k][tj];
      pk = skp[k][tj];
    }
    bool better = cand < so[ti][tj];
    __syncthreads();
    if (better) {
      so[ti][tj] = cand;
      sop[ti][tj] = pk;
    }
    __syncthreads();
  }
  if (in) {
    d[i * n + j] = so[ti][tj];
    if (want_p) p[i * n + j] = sop[ti][tj];
  }
}

// phase 3: every tile off the tile row and column kb, through the final tiles (blockIdx.y, kb)
// and (kb, blockIdx.x); each element keeps its value in a register over k in turn
extern "C" __global__ void __launch_bounds__(FWT * FWT) cg_fw_phase3(T* d, int* p, i64 n, i64 k0, int want_p) {
  if ((i64)blockIdx.x * FWT == k0 || (i64)blockIdx.y * FWT == k0) return;
  __shared__ T sc[FWT][FWT + 1];
  __shared__ T sr[FWT][FWT + 1];
  __shared__ int srp[FWT][FWT + 1];
  int ti = threadIdx.y, tj = threadIdx.x;
  i64 i = (i64)blockIdx.y * FWT + ti, j = (i64)blockIdx.x * FWT + tj;
  i64 kc = k0 + tj, kr = k0 + ti;
  sc[ti][tj] = (i < n && kc < n) ? d[i * n + kc] : cg_inf();
  sr[ti][tj] = (kr < n && j < n) ? d[kr * n + j] : cg_inf();
  srp[ti][tj] = (kr < n && j < n && want_p) ? p[kr * n + j] : NULL_IDX;
  __syncthreads();
  if (i < n && j < n) {
    int kmax = (int)((n - k0) < FWT ? (n - k0) : FWT);
    T cur = d[i * n + j];
    int pc = want_p ? p[i * n + j] : NULL_IDX;
    bool moved = false;
    for (int k = 0; k < kmax; ++k) {
      T cand = sc[ti][k] + sr[k][tj];
      if (cand < cur) {
        cur = cand;
        pc = srp[k][tj];
        moved = true;
      }
    }
    if (moved) {
      d[i * n + j] = cur;
      if (want_p) p[i * n + j] = pc;
    }
  }
}

// flag = 1 when a diagonal distance is negative (a negative cycle)
extern "C" __global__ void cg_fw_negdiag(const T* d, i64 n, int* flag) {
  GRID_LOOP(i, n) {
    if (d[i * n + i] < (T)0) *flag = 1;
  }
}

// ---------------- single-source searches ----------------
// the weight of a stored value w walked u -> v: 1 when unweighted, then w + (h[u] - h[v])
__device__ __forceinline__ T cg_w(T w, i64 u, i64 v, int unw, const T* h, int use_h) {
  T x = unw ? (T)1 : w;
  if (use_h) x = x + (h[u] - h[v]);
  return x;
}

// the sources at distance 0: row t holds sources[t], or (one_row) row 0 holds them all
extern "C" __global__ void cg_sssp_seed(T* dist, i64 n, const i64* sources, i64 nsrc,
                                        int one_row) {
  GRID_LOOP(t, nsrc) {
    i64 r = one_row ? 0 : t;
    dist[r * n + sources[t]] = (T)0;
  }
}

// the sources at level 0, each its own source
extern "C" __global__ void cg_sssp_seed_hops(int* hops, int* src, i64 n, const i64* sources,
                                             i64 nsrc, int one_row) {
  GRID_LOOP(t, nsrc) {
    i64 r = one_row ? 0 : t;
    i64 s = sources[t];
    hops[r * n + s] = 0;
    src[r * n + s] = (int)s;
  }
}

// one Bellman-Ford sweep, in place: each (row, v) takes the best candidate over its in-edges
// (the transpose's row v; undirected also the graph's row v), accepted when smaller and within
// the limit. A thread writes only its own distance; the others it reads are current or older
// (both are sums of walks), so the sweeps stop at the same fixed point as the CPU's.
extern "C" __global__ void cg_sssp_sweep(const I* tip, const I* tind, const T* tval, const I* gip,
                                         const I* gind, const T* gval, int two, i64 n, i64 rows,
                                         int unw, const T* h, int use_h, double limit, T* dist,
                                         int* flag) {
  GRID_LOOP(idx, rows * n) {
    i64 s = idx / n, v = idx - (idx / n) * n;
    const T* drow = dist + s * n;
    T cur = dist[idx];
    T best = cur;
    for (int part = 0; part <= two; ++part) {
      const I* ip = part ? gip : tip;
      const I* ind = part ? gind : tind;
      const T* val = part ? gval : tval;
      for (I e = ip[v]; e < ip[v + 1]; ++e) {
        i64 u = (i64)ind[e];
        T du = drow[u];
        if (!(du < cg_inf())) continue;
        T cand = du + cg_w(val[e], u, v, unw, h, use_h);
        if (cand < best && (double)cand <= limit) best = cand;
      }
    }
    if (best < cur) {
      dist[idx] = best;
      *flag = 1;
    }
  }
}

// one breadth-first level of the tight edges: each unreached (row, v) with a finite distance
// takes the smallest u at `level` with dist[u] + w == dist[v] as its predecessor (and u's
// source); found = 1 when any does
extern "C" __global__ void cg_sssp_level(const I* tip, const I* tind, const T* tval, const I* gip,
                                         const I* gind, const T* gval, int two, i64 n, i64 rows,
                                         int unw, const T* h, int use_h, const T* dist, int* hops,
                                         int* pred, int* src, int level, int* found) {
  GRID_LOOP(idx, rows * n) {
    if (hops[idx] != -1) continue;
    T dv = dist[idx];
    if (!(dv < cg_inf())) continue;
    i64 s = idx / n, v = idx - (idx / n) * n;
    int best = 0x7fffffff;
    for (int part = 0; part <= two; ++part) {
      const I* ip = part ? gip : tip;
      const I* ind = part ? gind : tind;
      const T* val = part ? gval : tval;
      for (I e = ip[v]; e < ip[v + 1]; ++e) {
        i64 u = (i64)ind[e];
        if (hops[s * n + u] != level) continue;
        T cand = dist[s * n + u] + cg_w(val[e], u, v, unw, h, use_h);
        if (cand == dv && (int)u < best) best = (int)u;
      }
    }
    if (best != 0x7fffffff) {
      hops[idx] = level + 1;
      pred[idx] = best;
      src[idx] = src[s * n + best];
      *found = 1;
    }
  }
}

// Johnson's correction of the reweighted distances: (d + h[v]) - h[source of the row]
extern "C" __global__ void cg_johnson_fix(T* dist, const T* h, const i64* sources, i64 n,
                                          i64 rows) {
  GRID_LOOP(idx, rows * n) {
    i64 s = idx / n, v = idx - (idx / n) * n;
    T x = dist[idx];
    if (x < cg_inf()) dist[idx] = (x + h[v]) - h[sources[s]];
  }
}

// ---------------- traversals ----------------
// The neighbours of u, in SciPy's order: the graph's row u, then (two) the transpose's row u;
// k counts positions along both.

// breadth-first: order[0] = start at level 0
extern "C" __global__ void cg_bfs_seed(int* order, int* level, i64 start) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    order[0] = (int)start;
    level[start] = 0;
  }
}

// each frontier node (rank r: order[f0 + r]) claims its unvisited neighbours: key[v] = the
// smallest (r << 32 | k), the claim SciPy's queue makes first
extern "C" __global__ void cg_bfs_claim(const int* order, i64 f0, i64 f, const I* gip,
                                        const I* gind, const I* tip, const I* tind, int two,
                                        const int* level, unsigned long long* key) {
  GRID_LOOP(r, f) {
    i64 u = order[f0 + r];
    unsigned long long k = 0;
    for (int part = 0; part <= two; ++part) {
      const I* ip = part ? tip : gip;
      const I* ind = part ? tind : gind;
      for (I e = ip[u]; e < ip[u + 1]; ++e, ++k) {
        i64 v = (i64)ind[e];
        if (level[v] < 0) atomicMin(&key[v], ((unsigned long long)r << 32) | k);
      }
    }
  }
}

// counts[r + 1] = the neighbours frontier node r won
extern "C" __global__ void cg_bfs_count(const int* order, i64 f0, i64 f, const I* gip,
                                        const I* gind, const I* tip, const I* tind, int two,
                                        const int* level, const unsigned long long* key,
                                        I* counts) {
  GRID_LOOP(r, f) {
    i64 u = order[f0 + r];
    unsigned long long k = 0;
    I c = 0;
    for (int part = 0; part <= two; ++part) {
      const I* ip = part ? tip : gip;
      const I* ind = part ? tind : gind;
      for (I e = ip[u]; e < ip[u + 1]; ++e, ++k) {
        i64 v = (i64)ind[e];
        if (level[v] < 0 && key[v] == (((unsigned long long)r << 32) | k)) ++c;
      }
    }
    counts[r + 1] = c;
  }
}

// frontier node r writes the neighbours it won, in list order, at order[f0 + f + offs[r]]
extern "C" __global__ void cg_bfs_write(int* order, i64 f0, i64 f, const I* gip, const I* gind,
                                        const I* tip, const I* tind, int two, int* level,
                                        const unsigned long long* key, const I* offs, int* pred,
                                        int newlevel) {
  GRID_LOOP(r, f) {
    i64 u = order[f0 + r];
    i64 o = f0 + f + (i64)offs[r];
    unsigned long long k = 0;
    for (int part = 0; part <= two; ++part) {
      const I* ip = part ? tip : gip;
      const I* ind = part ? tind : gind;
      for (I e = ip[u]; e < ip[u + 1]; ++e, ++k) {
        i64 v = (i64)ind[e];
        if (level[v] < 0 && key[v] == (((unsigned long long)r << 32) | k)) {
          order[o++] = (int)v;
          level[v] = newlevel;
          pred[v] = (int)u;
        }
      }
    }
  }
}

// depth-first, SciPy's loop, one thread: the top of the stack descends to its first unvisited
// neighbour or is popped; count = the nodes reached
extern "C" __global__ void cg_dfs(const I* gip, const I* gind, const I* tip, const I* tind,
                                  int two, i64 n, i64 start, int* seen, i64* stack, int* order,
                                  int* pred, i64* count) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  i64 top = 0, cnt = 1;
  stack[0] = start;
  order[0] = (int)start;
  seen[start] = 1;
  while (top >= 0) {
    i64 u = stack[top];
    i64 next = -1;
    for (int part = 0; part <= two && next < 0; ++part) {
      const I* ip = part ? tip : gip;
      const I* ind = part ? tind : gind;
      for (I e = ip[u]; e < ip[u + 1]; ++e) {
        i64 v = (i64)ind[e];
        if (!seen[v]) {
          next = v;
          break;
        }
      }
    }
    if (next >= 0) {
      seen[next] = 1;
      pred[next] = (int)u;
      order[cnt++] = (int)next;
      stack[++top] = next;
    } else {
      --top;
    }
    if (cnt == n) break;
  }
  *count = cnt;
}

// ---------------- minimum spanning tree (Boruvka) ----------------
// the order of a weight as an unsigned key: -0 as +0, every NaN one NaN above +inf, the
// sign-magnitude bits made monotone (cpu::weight_key)
__device__ __forceinline__ unsigned long long cg_wkey(T w) {
  double x = (double)w;
  if (x == 0.0) x = 0.0;
  if (x != x) x = __longlong_as_double(0x7ff8000000000000LL);
  unsigned long long b = (unsigned long long)__double_as_longlong(x);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

// rows[e] = the row of entry e; comp[v] = parent[v] = v
extern "C" __global__ void cg_mst_init(const I* ip, i64 n, I* rows, I* comp, I* parent) {
  GRID_LOOP(r, n) {
    for (I e = ip[r]; e < ip[r + 1]; ++e) rows[e] = (I)r;
    comp[r] = (I)r;
    parent[r] = (I)r;
  }
}

// the best keys of every component back to "none" (all ones)
extern "C" __global__ void cg_mst_reset(unsigned long long* bw, unsigned long long* bp, i64 n) {
  GRID_LOOP(i, n) {
    bw[i] = 0xffffffffffffffffULL;
    bp[i] = 0xffffffffffffffffULL;
  }
}

// each entry joining two components offers its weight's key to both
extern "C" __global__ void cg_mst_minw(const I* ip, const I* ind, const T* val, i64 n,
                                       const I* comp, unsigned long long* bw) {
  GRID_LOOP(r, n) {
    i64 a = (i64)comp[r];
    for (I e = ip[r]; e < ip[r + 1]; ++e) {
      i64 b = (i64)comp[ind[e]];
      if (a != b) {
        unsigned long long k = cg_wkey(val[e]);
        atomicMin(&bw[a], k);
        atomicMin(&bw[b], k);
      }
    }
  }
}

// among the entries of a component's best key, the smallest position
extern "C" __global__ void cg_mst_minp(const I* ip, const I* ind, const T* val, i64 n,
                                       const I* comp, const unsigned long long* bw,
                                       unsigned long long* bp) {
  GRID_LOOP(r, n) {
    i64 a = (i64)comp[r];
    for (I e = ip[r]; e < ip[r + 1]; ++e) {
      i64 b = (i64)comp[ind[e]];
      if (a != b) {
        unsigned long long k = cg_wkey(val[e]);
        if (k == bw[a]) atomicMin(&bp[a], (unsigned long long)e);
        if (k == bw[b]) atomicMin(&bp[b], (unsigned long long)e);
      }
    }
  }
}

// each component root with a best entry keeps it and hooks to the other end's component (of a
// pair that chose the same entry, the smaller root stays a root)
extern "C" __global__ void cg_mst_hook(const I* rows, const I* ind, i64 n, const I* comp,
                                       const unsigned long long* bp, I* parent, I* intree,
                                       int* flag) {
  GRID_LOOP(c, n) {
    if ((i64)comp[c] != c) continue;
    unsigned long long e = bp[c];
    if (e == 0xffffffffffffffffULL) continue;
    i64 a = (i64)comp[rows[e]], b = (i64)comp[ind[e]];
    i64 other = (a == c) ? b : a;
    bool mutual = bp[other] == e;
    if (!mutual || c > other) parent[c] = (I)other;
    intree[e] = 1;
    *flag = 1;
  }
}

// every node to the root of its component's new tree
extern "C" __global__ void cg_mst_jump(I* comp, const I* parent, i64 n) {
  GRID_LOOP(v, n) {
    I r = comp[v];
    while (parent[r] != r) r = parent[r];
    comp[v] = r;
  }
}

// counts[r + 1] = the kept nonzero entries of row r
extern "C" __global__ void cg_mst_count(const I* ip, const I* intree, const T* val, i64 m,
                                        I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (I e = ip[r]; e < ip[r + 1]; ++e)
      if (intree[e] && val[e] != (T)0) ++c;
    counts[r + 1] = c;
  }
}

extern "C" __global__ void cg_mst_write(const I* ip, const I* ind, const T* val, const I* intree,
                                        i64 m, const I* ptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = ptr[r];
    for (I e = ip[r]; e < ip[r + 1]; ++e) {
      if (intree[e] && val[e] != (T)0) {
        oind[o] = ind[e];
        odat[o] = val[e];
        ++o;
      }
    }
  }
}

// ---------------- reverse Cuthill-McKee ----------------
// SciPy's degree: the row's stored entries, plus one when it stores its diagonal
extern "C" __global__ void cg_rcm_degree(const I* ip, const I* ind, i64 n, int* deg) {
  GRID_LOOP(i, n) {
    int d = (int)(ip[i + 1] - ip[i]);
    for (I e = ip[i]; e < ip[i + 1]; ++e) {
      if ((i64)ind[e] == i) {
        ++d;
        break;
      }
    }
    deg[i] = d;
  }
}

// one thread: seeds by a stable counting sort of the degrees (cnt: dmax + 2 zeros, every
// degree <= dmax), then from
// each unvisited seed the breadth-first levels, each node's new neighbours insertion-sorted by
// degree; finally the order reversed in place
extern "C" __global__ void cg_rcm(const I* ip, const I* ind, i64 n, const int* deg, i64 dmax,
                                  int* cnt, int* seeds, int* seen, int* order) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (i64 v = 0; v < n; ++v) ++cnt[deg[v] + 1];
  for (i64 d = 0; d <= dmax; ++d) cnt[d + 1] += cnt[d];
  for (i64 v = 0; v < n; ++v) seeds[cnt[deg[v]]++] = (int)v;
  i64 N = 0;
  for (i64 zz = 0; zz < n && N < n; ++zz) {
    int s = seeds[zz];
    if (seen[s]) continue;
    seen[s] = 1;
    order[N++] = s;
    i64 start = N - 1, end = N;
    while (start < end) {
      for (i64 at = start; at < end; ++at) {
        i64 i = order[at];
        i64 old = N;
        for (I e = ip[i]; e < ip[i + 1]; ++e) {
          int j = (int)ind[e];
          if (!seen[j]) {
            seen[j] = 1;
            order[N++] = j;
          }
        }
        for (i64 k = old + 1; k < N; ++k) {
          int v = order[k];
          i64 l = k;
          while (l > old && deg[v] < deg[order[l - 1]]) {
            order[l] = order[l - 1];
            --l;
          }
          order[l] = v;
        }
      }
      start = end;
      end = N;
    }
  }
  for (i64 a = 0, b = n - 1; a < b; ++a, --b) {
    int t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
}

// ---------------- structural rank ----------------
// one thread: Kuhn's augmenting paths from each row in turn (cpu::max_matching), depth-first
// with an explicit stack (srow, spos), columns stamped with the search's row + 1
extern "C" __global__ void cg_matching(const I* ip, const I* ind, i64 m, i64* matchc, i64* stamp,
                                       i64* srow, i64* spos, i64* size) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  i64 found = 0;
  for (i64 r0 = 0; r0 < m; ++r0) {
    i64 top = 0;
    srow[0] = r0;
    spos[0] = (i64)ip[r0];
    while (top >= 0) {
      i64 r = srow[top], e = spos[top];
      if (e == (i64)ip[r + 1]) {
        --top;
        continue;
      }
      spos[top] = e + 1;
      i64 c = (i64)ind[e];
      if (stamp[c] == r0 + 1) continue;
      stamp[c] = r0 + 1;
      if (matchc[c] < 0) {
        for (i64 t = 0; t <= top; ++t) matchc[(i64)ind[spos[t] - 1]] = srow[t];
        ++found;
        break;
      }
      ++top;
      srow[top] = matchc[c];
      spos[top] = (i64)ip[matchc[c]];
    }
  }
  *size = found;
}
