// Distance transforms (cusci-ndimage distance.rs). NDI_T: the input's element type.

struct NdiSampling { double s[NDI_MAXD]; };

// f = 0 on the background (zero input), +inf elsewhere; feat = own index on the background, -1.
extern "C" __global__ void ndi_edt_init(const NDI_T* __restrict__ in, double* __restrict__ f,
                                        i64* __restrict__ feat, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    bool bg = !(in[i] != (NDI_T)0);
    f[i] = bg ? 0.0 : __longlong_as_double(0x7ff0000000000000ll);
    feat[i] = bg ? i : -1;
  }
}

// The intersection of the parabolas of sites q and vk, rounded step by step exactly as the CPU
// computes ((g + w·q·q) − (gv + w·vk·vk)) / (2·w·(q − vk)): no FMA contraction (explicit _rn
// intrinsics), so GPU and CPU envelopes, features and distances are bit-identical.
__device__ __forceinline__ double edt_sep(double g, i64 q, double gv, i64 vk, double w) {
  const double qf = (double)q, vf = (double)vk;
  const double a = __dadd_rn(g, __dmul_rn(__dmul_rn(w, qf), qf));
  const double b = __dadd_rn(gv, __dmul_rn(__dmul_rn(w, vf), vf));
  return __ddiv_rn(__dsub_rn(a, b), __dmul_rn(__dmul_rn(2.0, w), __dsub_rn(qf, vf)));
}

// One exact pass (Felzenszwalb–Huttenlocher lower envelope of parabolas w·(p−q)² + f(q)) along an
// axis of length m and stride `stride`; one thread per line. v and z are per-element scratch
// (z[j+1] of the line is stored at the line's element j).
extern "C" __global__ void ndi_edt_pass(const double* __restrict__ fi, const i64* __restrict__ ki,
                                        double* __restrict__ fo, i64* __restrict__ ko, i64* vv,
                                        double* zz, i64 m, i64 stride, i64 nlines, double w,
                                        const int* __restrict__ need) {
  const double INF = __longlong_as_double(0x7ff0000000000000ll);
  for (i64 l = blockIdx.x * (i64)blockDim.x + threadIdx.x; l < nlines; l += (i64)blockDim.x * gridDim.x) {
    if (need != nullptr && need[l] == 0) continue;
    const i64 outer = l / stride, inner = l % stride;
    const i64 base = outer * m * stride + inner;
#define AT(j) (base + (i64)(j) * stride)
    i64 k = -1;
    for (i64 q = 0; q < m; ++q) {
      const double g = fi[AT(q)];
      if (isinf(g)) continue;
      if (k < 0) {
        k = 0;
        vv[AT(0)] = q;
        zz[AT(0)] = INF;
        continue;
      }
      double s;
      while (true) {
        const i64 vk = vv[AT(k)];
        const double gv = fi[AT(vk)];
        s = edt_sep(g, q, gv, vk, w);
        if (k > 0 && s <= zz[AT(k - 1)]) {
          --k;
        } else {
          break;
        }
      }
      ++k;
      vv[AT(k)] = q;
      zz[AT(k - 1)] = s;
      zz[AT(k)] = INF;
    }
    if (k < 0) {
      for (i64 p = 0; p < m; ++p) {
        fo[AT(p)] = INF;
        ko[AT(p)] = -1;
      }
    } else {
      i64 j = 0;
      for (i64 p = 0; p < m; ++p) {
        while (j < k && zz[AT(j)] < (double)p) ++j;
        const i64 q = vv[AT(j)];
        const double d = (double)(p - q);
        fo[AT(p)] = __dadd_rn(__dmul_rn(__dmul_rn(w, d), d), fi[AT(q)]);
        ko[AT(p)] = ki[AT(q)];
      }
    }
#undef AT
  }
}

// The same exact pass with one block of exactly 32 threads (one warp) per line. The warp reads
// the line 32 elements at a time (coalesced along the last axis; along the others adjacent blocks
// share the sectors in L2) and every lane runs the same envelope construction in lockstep, taking
// each value from its owner lane by shuffle; the top of the stack stays in registers and the
// stack (breakpoints z as f64, sites v as int: 12·m bytes of dynamic shared memory) is written by
// all lanes with the same values (each lane reads back its own writes; a __syncwarp before each
// push keeps a lane from overwriting entries that a slower lane is still reading). Same steps and roundings as ndi_edt_pass. Then every lane writes
// its elements, finding its parabola by binary search over the strictly increasing breakpoints
// (the same index as the linear scan).
extern "C" __global__ void ndi_edt_pass_smem(const double* __restrict__ fi,
                                             const i64* __restrict__ ki, double* __restrict__ fo,
                                             i64* __restrict__ ko, i64 m, i64 stride, i64 nlines,
                                             double w, const int* __restrict__ need) {
  extern __shared__ double sm[];
  double* z = sm;
  int* v = (int*)(sm + m);
  const int lane = threadIdx.x;
  const double INF = __longlong_as_double(0x7ff0000000000000ll);
  for (i64 l = blockIdx.x; l < nlines; l += gridDim.x) {
    if (need != nullptr && need[l] == 0) continue;
    const i64 outer = l / stride, inner = l % stride;
    const i64 base = outer * m * stride + inner;
    int k = -1;     // top of the stack
    int vk = 0;     // v[k]
    double gvk = 0; // g[v[k]]
    double zk1 = 0; // z[k − 1] (k > 0)
    for (i64 q0 = 0; q0 < m; q0 += 32) {
      const i64 qq = q0 + lane;
      const double mine = qq < m ? fi[base + qq * stride] : INF;
      const int cnt = (int)(m - q0 < 32 ? m - q0 : 32);
      for (int t = 0; t < cnt; ++t) {
        const double gq = __shfl_sync(0xffffffffu, mine, t);
        if (isinf(gq)) continue;
        const int q = (int)q0 + t;
        if (k < 0) {
          k = 0;
          vk = q;
          gvk = gq;
          v[0] = q;
          continue;
        }
        double s;
        while (true) {
          s = edt_sep(gq, q, gvk, vk, w);
          if (k > 0 && s <= zk1) {
            --k;
            vk = v[k];
            gvk = fi[base + (i64)vk * stride];
            if (k > 0) zk1 = z[k - 1];
          } else {
            break;
          }
        }
        // every lane has finished this step's reads before any lane overwrites the stack
        __syncwarp();
        z[k] = s;
        ++k;
        v[k] = q;
        vk = q;
        gvk = gq;
        zk1 = s;
      }
    }
    __syncwarp();
    for (i64 p = lane; p < m; p += 32) {
      const i64 at = base + p * stride;
      if (k < 0) {
        fo[at] = INF;
        ko[at] = -1;
      } else {
        // j = number of breakpoints z[0..k) below p (z strictly increasing)
        int lo = 0, hi = k;
        const double pf = (double)p;
        while (lo < hi) {
          const int mid = (lo + hi) >> 1;
          if (z[mid] < pf) lo = mid + 1; else hi = mid;
        }
        const int q = v[lo];
        const double d = (double)(p - q);
        const i64 src = base + (i64)q * stride;
        fo[at] = __dadd_rn(__dmul_rn(__dmul_rn(w, d), d), fi[src]);
        ko[at] = ki[src];
      }
    }
    __syncwarp();
  }
}

// The first exact pass straight from the input (f = 0 on the background, +inf elsewhere): along
// an axis of length m and stride `stride`, the nearest background element of each element's line
// is the nearer of the last one at or before it and the first one at or after it. A thread handles
// NDI_EDT_SEG consecutive positions of one line (threads of a warp: consecutive inner positions);
// it finds the background elements around its segment by searching outwards. The result is the
// Felzenszwalb–Huttenlocher pass's exactly: value w·d², feature the background element's index,
// and on a tie the pass's choice (the later site where the rounded breakpoint lies below p).
#define NDI_EDT_SEG 32
extern "C" __global__ void ndi_edt_first(const NDI_T* __restrict__ in, double* __restrict__ fo,
                                         i64* __restrict__ ko, i64 m, i64 stride, i64 nlines,
                                         double w) {
  const double INF = __longlong_as_double(0x7ff0000000000000ll);
  const i64 nseg = (m + NDI_EDT_SEG - 1) / NDI_EDT_SEG;
  const i64 total = nlines * nseg;
  for (i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x; t < total; t += (i64)blockDim.x * gridDim.x) {
    const i64 inner = t % stride, r2 = t / stride;
    const i64 seg = r2 % nseg, outer = r2 / nseg;
    const i64 base = outer * m * stride + inner;
#define BG(j) (!(in[base + (i64)(j) * stride] != (NDI_T)0))
    const i64 r0 = seg * NDI_EDT_SEG, r1 = min(m, r0 + (i64)NDI_EDT_SEG);
    i64 last = -1, nxt = m;
    for (i64 q = r0 - 1; q >= 0; --q)
      if (BG(q)) { last = q; break; }
    for (i64 q = r0; q < m; ++q)
      if (BG(q)) { nxt = q; break; }
    for (i64 r = r0; r < r1; ++r) {
      if (nxt < r) {
        nxt = m;
        for (i64 q = r; q < m; ++q)
          if (BG(q)) { nxt = q; break; }
      }
      if (nxt == r) last = r;
      i64 q = -1;
      if (last >= 0 && nxt < m) {
        const i64 dl = r - last, dn = nxt - r;
        if (dl < dn || dl == 0) q = last;
        else if (dn < dl) q = nxt;
        else q = edt_sep(0.0, nxt, 0.0, last, w) < (double)r ? nxt : last;
      } else if (last >= 0) {
        q = last;
      } else if (nxt < m) {
        q = nxt;
      }
      const i64 at = base + r * stride;
      if (q < 0) {
        fo[at] = INF;
        ko[at] = -1;
      } else {
        const double d = (double)(r - q);
        fo[at] = __dadd_rn(__dmul_rn(__dmul_rn(w, d), d), 0.0);
        ko[at] = base + q * stride;
      }
    }
#undef BG
  }
}

// A later exact pass for unit sampling (w = 1: every value is an integer, so every comparison is
// exact): each element searches its line outwards for min_q (p−q)² + f(q), stopping once (p−q)²
// exceeds the best value; the smallest q among equal minima wins, as in the envelope pass. One
// block per line, the line's values in shared memory (m doubles). An element still unresolved at
// distance `cap` marks its line in need[l] (else 0 is written), and ndi_edt_pass(_smem) redoes
// exactly the marked lines.
extern "C" __global__ void ndi_edt_pass_bounded(const double* __restrict__ fi,
                                                const i64* __restrict__ ki,
                                                double* __restrict__ fo, i64* __restrict__ ko,
                                                i64 m, i64 stride, i64 nlines, int cap,
                                                int* __restrict__ need) {
  extern __shared__ double sf[];
  __shared__ int flag;
  for (i64 l = blockIdx.x; l < nlines; l += gridDim.x) {
    const i64 outer = l / stride, inner = l % stride;
    const i64 base = outer * m * stride + inner;
    __syncthreads();  // the previous line's reads of sf and flag are done
    for (i64 p = threadIdx.x; p < m; p += blockDim.x) sf[p] = fi[base + p * stride];
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    for (i64 p = threadIdx.x; p < m; p += blockDim.x) {
      double best = sf[p];
      i64 bq = p;
      bool done = false;
      for (int r = 1; r <= cap; ++r) {
        const double rr = (double)r * (double)r;
        if (rr > best || (p - r < 0 && p + r >= m)) {
          done = true;
          break;
        }
        if (p - r >= 0) {
          const double v = rr + sf[p - r];
          if (v <= best) {
            best = v;
            bq = p - r;
          }
        }
        if (p + r < m) {
          const double v = rr + sf[p + r];
          if (v < best) {
            best = v;
            bq = p + r;
          }
        }
      }
      if (!done) {
        flag = 1;
        continue;
      }
      const i64 at = base + p * stride;
      fo[at] = best;
      ko[at] = isinf(best) ? -1 : ki[base + bq * stride];
    }
    __syncthreads();
    if (threadIdx.x == 0) need[l] = flag;
  }
}

// Coordinates of the feature of every element (−1, 0, … when there is none, as SciPy), then the
// distances (dist may be null) and the indices (idx may be null, ndim planes of n int32).
extern "C" __global__ void ndi_edt_final(const i64* __restrict__ feat, double* dist, int* idx,
                                         NdiShape shape, NdiSampling smp) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 f = feat[i];
    i64 r = i;
    i64 c[NDI_MAXD], fc[NDI_MAXD];
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = r % shape.dims[d];
      r /= shape.dims[d];
      if (f < 0) {
        fc[d] = d == 0 ? -1 : 0;
      } else {
        fc[d] = f % shape.dims[d];
        f /= shape.dims[d];
      }
      if (idx) idx[(i64)d * shape.n + i] = (int)fc[d];
    }
    if (dist) {
      // the CPU's order (axis 0 first) and roundings (no FMA)
      double acc = 0.0;
      for (int d = 0; d < nd; ++d) {
        const double t = __dmul_rn(smp.s[d], (double)(c[d] - fc[d]));
        acc = __dadd_rn(acc, __dmul_rn(t, t));
      }
      dist[i] = __dsqrt_rn(acc);
    }
  }
}

// Chamfer distance by relaxation: d = −1 on the background marker value INT_MAX elsewhere on
// entry (ndi_cdt_init); each step takes the smallest neighbour + 1 (offsets in order, the first
// smallest wins; the element's own value wins ties).
extern "C" __global__ void ndi_cdt_init(const NDI_T* __restrict__ in, int* __restrict__ d,
                                        i64* __restrict__ feat, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    bool bg = !(in[i] != (NDI_T)0);
    d[i] = bg ? 0 : 0x7fffffff;
    feat[i] = bg ? i : -1;
  }
}

extern "C" __global__ void ndi_cdt_step(const int* __restrict__ di, const i64* __restrict__ fi,
                                        int* __restrict__ dout, i64* __restrict__ fout,
                                        NdiShape shape, const i64* __restrict__ offs,
                                        const i64* __restrict__ delta, int noff, int* changed) {
  const int nd = shape.ndim;
  int any = 0;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    int best = di[i];
    i64 bf = fi[i];
    if (best != 0) {
      i64 c[NDI_MAXD];
      i64 rem = i;
      for (int d = nd - 1; d >= 0; --d) {
        c[d] = rem % shape.dims[d];
        rem /= shape.dims[d];
      }
      for (int k = 0; k < noff; ++k) {
        bool ok = true;
        for (int d = 0; d < nd; ++d) {
          i64 q = c[d] + offs[k * nd + d];
          if (q < 0 || q >= shape.dims[d]) ok = false;
        }
        if (!ok) continue;
        const i64 j = i + delta[k];
        const int v = di[j];
        if (v != 0x7fffffff && v + 1 < best) {
          best = v + 1;
          bf = fi[j];
        }
      }
      if (best != di[i]) any = 1;
    }
    dout[i] = best;
    fout[i] = bf;
  }
  if (any && changed) atomicExch(changed, 1);
}

// Final CDT output: INT_MAX (never reached) becomes −1 as SciPy leaves it; features to indices.
extern "C" __global__ void ndi_cdt_final(const int* __restrict__ d, const i64* __restrict__ feat,
                                         int* dist, int* idx, NdiShape shape) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    if (dist) dist[i] = d[i] == 0x7fffffff ? -1 : d[i];
    if (idx) {
      i64 f = feat[i] < 0 ? i : feat[i];
      for (int k = nd - 1; k >= 0; --k) {
        idx[(i64)k * shape.n + i] = (int)(f % shape.dims[k]);
        f /= shape.dims[k];
      }
    }
  }
}

// Brute force: every foreground element against the list of border background elements (flat
// indices, raster order; the first strictly smaller distance wins). metric 0 euclidean,
// 1 taxicab, 2 chessboard.
extern "C" __global__ void ndi_bf(const NDI_T* __restrict__ in, const i64* __restrict__ list,
                                  i64 nlist, double* dist, int* idx, NdiShape shape,
                                  NdiSampling smp, int metric) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 c[NDI_MAXD];
    i64 rem = i;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = rem % shape.dims[d];
      rem /= shape.dims[d];
    }
    i64 bestf = i;
    double best = 0.0;
    if (in[i] != (NDI_T)0) {
      best = __longlong_as_double(0x7ff0000000000000ll);
      bestf = -1;
      for (i64 t = 0; t < nlist; ++t) {
        i64 f = list[t];
        double acc = 0.0;
        for (int d = nd - 1; d >= 0; --d) {
          double x = smp.s[d] * (double)(c[d] - f % shape.dims[d]);
          f /= shape.dims[d];
          if (metric == 0) acc += x * x;
          else if (metric == 1) acc += fabs(x);
          else acc = fmax(acc, fabs(x));
        }
        if (acc < best) {
          best = acc;
          bestf = list[t];
        }
      }
      best = metric == 0 ? sqrt(best) : trunc(best);
    }
    if (dist) dist[i] = best;
    if (idx) {
      i64 f = bestf;
      for (int d = nd - 1; d >= 0; --d) {
        idx[(i64)d * shape.n + i] = f < 0 ? -1 : (int)(f % shape.dims[d]);
        if (f >= 0) f /= shape.dims[d];
      }
    }
  }
}

// flags of the border background (background with a foreground neighbour, full connectivity)
extern "C" __global__ void ndi_bf_border(const NDI_T* __restrict__ in, i64* __restrict__ flag,
                                         NdiShape shape) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    i64 c[NDI_MAXD];
    i64 rem = i;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = rem % shape.dims[d];
      rem /= shape.dims[d];
    }
    int r = 0;
    if (!(in[i] != (NDI_T)0)) {
      int tot = 1;
      for (int d = 0; d < nd; ++d) tot *= 3;
      for (int k = 0; k < tot && !r; ++k) {
        int kk = k;
        i64 j = 0;
        bool ok = true;
        for (int d = nd - 1; d >= 0; --d) {
          i64 q = c[d] + (kk % 3) - 1;
          kk /= 3;
          if (q < 0 || q >= shape.dims[d]) ok = false;
        }
        if (!ok) continue;
        kk = k;
        i64 mul = 1;
        for (int d = nd - 1; d >= 0; --d) {
          j += (c[d] + (kk % 3) - 1) * mul;
          mul *= shape.dims[d];
          kk /= 3;
        }
        if (in[j] != (NDI_T)0) r = 1;
      }
    }
    flag[i] = r;
  }
}

// list[rank[i] - 1] = i where flag[i]
extern "C" __global__ void ndi_compact(const i64* __restrict__ flag, const i64* __restrict__ rank,
                                       i64* __restrict__ list, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    if (flag[i]) list[rank[i] - 1] = i;
}
