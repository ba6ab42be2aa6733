// cusci-sparse format kernels, generic in the index type. The Rust side prepends the element
// prelude (T, R, TZERO, TRE) and `typedef <int | long long> I;`: one module per (element, index)
// type. Grid-stride loops with 64-bit counters.
#define NT 256
#define GRID_LOOP(i, n) for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

__device__ __forceinline__ int atom_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ long long atom_add(long long* p, long long v) {
  return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);
}

// ---------------- structure checks ----------------
// flags: 1 indptr not monotone or out of [0, nnz], 2 an index out of bounds, 4 indptr[0] != 0 or
// indptr[m] != nnz, 8 not canonical (indices unsorted or repeated within a row)
extern "C" __global__ void fm_csr_check(const I* indptr, const I* indices, i64 m, i64 n, i64 nnz, int* flags) {
  GRID_LOOP(r, m) {
    I s = indptr[r], e = indptr[r + 1];
    if (r == 0 && s != 0) atomicOr(flags, 4);
    if (r == m - 1 && (i64)e != nnz) atomicOr(flags, 4);
    if (e < s || s < 0 || (i64)e > nnz) { atomicOr(flags, 1); continue; }
    for (I j = s; j < e; ++j) {
      I c = indices[j];
      if (c < 0 || (i64)c >= n) atomicOr(flags, 2);
      if (j > s && c <= indices[j - 1]) atomicOr(flags, 8);
    }
  }
}

extern "C" __global__ void fm_coo_check(const I* row, const I* col, i64 nnz, i64 m, i64 n, int* flags) {
  GRID_LOOP(i, nnz) {
    I r = row[i], c = col[i];
    if (r < 0 || (i64)r >= m || c < 0 || (i64)c >= n) atomicOr(flags, 2);
  }
}

// ---------------- COO -> CSR (duplicates summed, indices sorted) ----------------
// counts has m + 1 zeroed entries; counts[r + 1] becomes the length of row r
extern "C" __global__ void fm_coo_count(const I* row, i64 nnz, I* counts) {
  GRID_LOOP(i, nnz) { atom_add(&counts[row[i] + 1], (I)1); }
}

// bucket entries by row: (column, original position, value); fill has m zeroed entries
extern "C" __global__ void fm_coo_scatter(const I* row, const I* col, const T* val, i64 nnz,
                                          const I* indptr, I* fill, I* bcol, I* bidx, T* bval) {
  GRID_LOOP(i, nnz) {
    I r = row[i];
    I pos = indptr[r] + atom_add(&fill[r], (I)1);
    bcol[pos] = col[i];
    bidx[pos] = (I)i;
    bval[pos] = val[i];
  }
}

__device__ __forceinline__ bool key_less(I ca, I ia, I cb, I ib) {
  return ca < cb || (ca == cb && ia < ib);
}
__device__ __forceinline__ void swap3(I* c, I* ix, T* v, i64 a, i64 b) {
  I tc = c[a]; c[a] = c[b]; c[b] = tc;
  I ti = ix[a]; ix[a] = ix[b]; ix[b] = ti;
  T tv = v[a]; v[a] = v[b]; v[b] = tv;
}
__device__ void sift_down(I* c, I* ix, T* v, i64 root, i64 end) {
  while (true) {
    i64 child = 2 * root + 1;
    if (child >= end) break;
    if (child + 1 < end && key_less(c[child], ix[child], c[child + 1], ix[child + 1])) child++;
    if (key_less(c[root], ix[root], c[child], ix[child])) { swap3(c, ix, v, root, child); root = child; }
    else break;
  }
}
// sorts a segment by (column, original position): insertion sort when short, heapsort otherwise
__device__ void seg_sort(I* c, I* ix, T* v, i64 len) {
  if (len <= 24) {
    for (i64 i = 1; i < len; ++i) {
      I kc = c[i], ki = ix[i]; T kv = v[i];
      i64 j = i - 1;
      while (j >= 0 && key_less(kc, ki, c[j], ix[j])) { c[j + 1] = c[j]; ix[j + 1] = ix[j]; v[j + 1] = v[j]; --j; }
      c[j + 1] = kc; ix[j + 1] = ki; v[j + 1] = kv;
    }
    return;
  }
  for (i64 s = len / 2 - 1; s >= 0; --s) sift_down(c, ix, v, s, len);
  for (i64 e = len - 1; e > 0; --e) { swap3(c, ix, v, 0, e); sift_down(c, ix, v, 0, e); }
}

// sorts every row's bucket and counts its distinct columns into ucount[r + 1] (ucount[0] = 0)
extern "C" __global__ void fm_row_sort_count(const I* indptr, i64 m, I* bcol, I* bidx, T* bval, I* ucount) {
  GRID_LOOP(r, m) {
    I s = indptr[r], e = indptr[r + 1];
    seg_sort(bcol + s, bidx + s, bval + s, (i64)(e - s));
    I u = 0;
    for (I j = s; j < e; ++j) if (j == s || bcol[j] != bcol[j - 1]) u++;
    ucount[r + 1] = u;
  }
}

// writes each row's distinct columns with their values summed in original order
extern "C" __global__ void fm_row_sum_write(const I* indptr, i64 m, const I* bcol, const T* bval,
                                            const I* outptr, I* ocol, T* oval) {
  GRID_LOOP(r, m) {
    I s = indptr[r], e = indptr[r + 1];
    I o = outptr[r] - 1;
    for (I j = s; j < e; ++j) {
      if (j == s || bcol[j] != bcol[j - 1]) { o++; ocol[o] = bcol[j]; oval[o] = bval[j]; }
      else oval[o] = oval[o] + bval[j];
    }
  }
}

// ---------------- CSR <-> dense, CSR -> COO rows ----------------
extern "C" __global__ void fm_csr_todense(const I* indptr, const I* indices, const T* data, i64 m, i64 n, T* out) {
  GRID_LOOP(r, m) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      i64 k = r * n + (i64)indices[j];
      out[k] = out[k] + data[j];
    }
  }
}

// counts[r + 1] = nonzeros of row r of the row-major m x n matrix a
extern "C" __global__ void fm_dense_count(const T* a, i64 m, i64 n, I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (i64 j = 0; j < n; ++j) if (a[r * n + j] != TZERO) c++;
    counts[r + 1] = c;
  }
}
extern "C" __global__ void fm_dense_write(const T* a, i64 m, i64 n, const I* indptr, I* ind, T* dat) {
  GRID_LOOP(r, m) {
    I o = indptr[r];
    for (i64 j = 0; j < n; ++j) {
      T v = a[r * n + j];
      if (v != TZERO) { ind[o] = (I)j; dat[o] = v; o++; }
    }
  }
}
extern "C" __global__ void fm_csr_rows(const I* indptr, i64 m, I* rows) {
  GRID_LOOP(r, m) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) rows[j] = (I)r;
  }
}

// ---------------- construction ----------------
// dst[i] = src[i] + off (block offsets of bmat)
extern "C" __global__ void fm_copy_offset(const I* src, I* dst, i64 n, i64 off) {
  GRID_LOOP(i, n) { dst[i] = (I)((i64)src[i] + off); }
}
// dst[i] = src[i]
extern "C" __global__ void fm_copy_vals(const T* src, T* dst, i64 n) {
  GRID_LOOP(i, n) { dst[i] = src[i]; }
}

// tril (lower = 1: col - row <= k) / triu (lower = 0: col - row >= k): counts[r + 1] = kept entries
extern "C" __global__ void fm_tri_count(const I* indptr, const I* indices, i64 k, int lower, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      i64 d = (i64)indices[j] - r;
      if (lower ? d <= k : d >= k) c++;
    }
    counts[r + 1] = c;
  }
}
extern "C" __global__ void fm_tri_write(const I* indptr, const I* indices, const T* data, i64 k, int lower,
                                        i64 m, const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = outptr[r];
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      i64 d = (i64)indices[j] - r;
      if (lower ? d <= k : d >= k) { oind[o] = indices[j]; odat[o] = data[j]; o++; }
    }
  }
}

// kron(A, B) in CSR: row r = ia * mb + ib holds, for every entry of row ia of A and then every
// entry of row ib of B, the product at column ja * nb + jb
extern "C" __global__ void fm_kron_count(const I* ap, const I* bp, i64 mb, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    i64 ia = r / mb, ib = r % mb;
    counts[r + 1] = (ap[ia + 1] - ap[ia]) * (bp[ib + 1] - bp[ib]);
  }
}
extern "C" __global__ void fm_kron_write(const I* ap, const I* ai, const T* ad, const I* bp, const I* bi,
                                         const T* bd, i64 mb, i64 nb, i64 m, const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    i64 ia = r / mb, ib = r % mb;
    I o = outptr[r];
    for (I j = ap[ia]; j < ap[ia + 1]; ++j) {
      for (I t = bp[ib]; t < bp[ib + 1]; ++t) {
        oind[o] = (I)((i64)ai[j] * nb + (i64)bi[t]);
        odat[o] = ad[j] * bd[t];
        o++;
      }
    }
  }
}

// ---------------- DIA ----------------
// data is nd x w row-major: the entry (r, r + off[d]) is data[d * w + r + off[d]] when that column
// is in [0, min(n, w)). counts[r + 1] = the row's nonzero entries
extern "C" __global__ void fm_dia_count(const T* data, const i64* off, i64 nd, i64 w, i64 n, i64 m, I* counts) {
  GRID_LOOP(r, m) {
    I c = 0;
    for (i64 d = 0; d < nd; ++d) {
      i64 col = r + off[d];
      if (col >= 0 && col < n && col < w && data[d * w + col] != TZERO) c++;
    }
    counts[r + 1] = c;
  }
}
// order[] lists the diagonals by increasing offset (so each row's columns come out sorted);
// entries at one position from repeated offsets are summed in the order of order[]
extern "C" __global__ void fm_dia_write(const T* data, const i64* off, const i64* order, i64 nd, i64 w, i64 n,
                                        i64 m, const I* outptr, I* oind, T* odat) {
  GRID_LOOP(r, m) {
    I o = outptr[r];
    for (i64 q = 0; q < nd; ++q) {
      i64 d = order[q];
      i64 col = r + off[d];
      if (col >= 0 && col < n && col < w) {
        T v = data[d * w + col];
        if (v != TZERO) { oind[o] = (I)col; odat[o] = v; o++; }
      }
    }
  }
}
// y[r] = sum over diagonals in stored order of data[d, r + off[d]] x[r + off[d]]
extern "C" __global__ void fm_dia_spmv(const T* data, const i64* off, i64 nd, i64 w, i64 n, i64 m,
                                       const T* x, T* y) {
  GRID_LOOP(r, m) {
    T acc = TZERO;
    for (i64 d = 0; d < nd; ++d) {
      i64 col = r + off[d];
      if (col >= 0 && col < n && col < w) acc = acc + data[d * w + col] * x[col];
    }
    y[r] = acc;
  }
}
// flags[c - r + m - 1] = 1 for every stored entry (r, c) of a CSR matrix (todia's offsets)
extern "C" __global__ void fm_dia_mark(const I* indptr, const I* indices, i64 m, int* flags) {
  GRID_LOOP(r, m) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) flags[(i64)indices[j] - r + m - 1] = 1;
  }
}
// the entries of a canonical CSR matrix into the zeroed nd x w DIA data (rank: inclusive scan of
// the flags, so the slot of offset i is rank[i] - 1)
extern "C" __global__ void fm_dia_fill(const I* indptr, const I* indices, const T* val, i64 m,
                                       const int* rank, i64 w, T* data) {
  GRID_LOOP(r, m) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      i64 c = (i64)indices[j];
      data[(i64)(rank[c - r + m - 1] - 1) * w + c] = val[j];
    }
  }
}
// offsets[rank[i] - 1] = i - (m - 1) for every marked i
extern "C" __global__ void fm_dia_offsets(const int* flags, const int* rank, i64 len, i64 m, i64* offsets) {
  GRID_LOOP(i, len) { if (flags[i]) offsets[rank[i] - 1] = i - (m - 1); }
}

// ---------------- csgraph: strongly connected components by colouring ----------------
// scc[v] = -1 while v is unassigned; colour[v] = v for the unassigned nodes of a round
extern "C" __global__ void scc_init(int* color, const int* scc, i64 n) {
  GRID_LOOP(v, n) { color[v] = scc[v] < 0 ? (int)v : -1; }
}
// forward: every unassigned node takes the largest colour among its unassigned predecessors
extern "C" __global__ void scc_fwd(const I* indptr, const I* indices, i64 n, const int* scc, int* color, int* changed) {
  GRID_LOOP(r, n) {
    if (scc[r] >= 0) continue;
    int cr = color[r];
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      I c = indices[j];
      if (scc[c] < 0 && color[c] < cr) { atomicMax(&color[c], cr); *changed = 1; }
    }
  }
}
// the roots: unassigned nodes that kept their own colour
extern "C" __global__ void scc_root(const int* color, const int* scc, i64 n, int* mark) {
  GRID_LOOP(v, n) { mark[v] = (scc[v] < 0 && color[v] == (int)v) ? 1 : 0; }
}
// backward: a node of a colour reaching a marked node of the same colour is marked
extern "C" __global__ void scc_bwd(const I* indptr, const I* indices, i64 n, const int* scc, const int* color,
                                   int* mark, int* changed) {
  GRID_LOOP(r, n) {
    if (scc[r] >= 0 || mark[r]) continue;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      I c = indices[j];
      if (mark[c] && color[c] == color[r]) { mark[r] = 1; *changed = 1; break; }
    }
  }
}
// marked nodes join the component of their colour; left counts the nodes still unassigned
extern "C" __global__ void scc_assign(const int* color, const int* mark, i64 n, int* scc, int* left) {
  GRID_LOOP(v, n) {
    if (scc[v] >= 0) continue;
    if (mark[v]) scc[v] = color[v]; else atomicAdd(left, 1);
  }
}
// minid[scc[v]] = the smallest node of v's component (minid starts at n)
extern "C" __global__ void scc_min(const int* scc, i64 n, int* minid) {
  GRID_LOOP(v, n) { atomicMin(&minid[scc[v]], (int)v); }
}
extern "C" __global__ void scc_label(const int* scc, const int* minid, i64 n, int* label) {
  GRID_LOOP(v, n) { label[v] = minid[scc[v]]; }
}
// trimming: deg[v] |= 1 when v has an edge to another unassigned node, |= 2 when it has one
// from another unassigned node (deg zeroed first by scc_clear)
extern "C" __global__ void scc_clear(int* a, i64 n) {
  GRID_LOOP(v, n) { a[v] = 0; }
}
extern "C" __global__ void scc_deg(const I* indptr, const I* indices, i64 n, const int* scc, int* deg) {
  GRID_LOOP(r, n) {
    if (scc[r] >= 0) continue;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      I c = indices[j];
      if ((i64)c != r && scc[c] < 0) {
        if (!(deg[r] & 1)) atomicOr(&deg[r], 1);
        if (!(deg[c] & 2)) atomicOr(&deg[c], 2);
      }
    }
  }
}
// an unassigned node without an edge in or without an edge out is a component of its own
extern "C" __global__ void scc_trim(const int* deg, i64 n, int* scc, int* changed) {
  GRID_LOOP(v, n) {
    if (scc[v] < 0 && deg[v] != 3) { scc[v] = (int)v; *changed = 1; }
  }
}

// ---------------- BSR ----------------
// BSR (mb block rows of R x C blocks) -> CSR with every block entry stored: thread t is row
// t of the matrix (block row t / R, row t % R of its blocks)
extern "C" __global__ void fm_bsr_to_csr(const I* bp, const I* bind, const T* bdata, i64 mb, i64 R, i64 C,
                                         I* ip, I* ind, T* dat) {
  GRID_LOOP(t, mb * R) {
    i64 i = t / R, r = t % R;
    i64 s = (i64)bp[i], e = (i64)bp[i + 1];
    i64 at = s * R * C + r * (e - s) * C;
    ip[t] = (I)at;
    if (t == mb * R - 1) ip[mb * R] = (I)(e * R * C);
    for (i64 k = s; k < e; ++k) {
      i64 c0 = (i64)bind[k] * C;
      const T* src = bdata + (k * R + r) * C;
      for (i64 c = 0; c < C; ++c) {
        ind[at] = (I)(c0 + c);
        dat[at] = src[c];
        ++at;
      }
    }
  }
}
// dst[i] = src[i] / q (the block row or column of an index)
extern "C" __global__ void fm_div_index(const I* src, I* dst, i64 n, i64 q) {
  GRID_LOOP(i, n) { dst[i] = (I)((i64)src[i] / q); }
}
// canonical CSR (m rows) -> the blocks of the BSR structure (bp, bind), sorted block columns;
// out zeroed: each entry is written at its place in its block (found by binary search)
extern "C" __global__ void fm_csr_block_scatter(const I* ip, const I* ind, const T* dat, i64 m, i64 R, i64 C,
                                                const I* bp, const I* bind, T* out) {
  GRID_LOOP(row, m) {
    i64 i = row / R, r = row % R;
    for (i64 j = (i64)ip[row]; j < (i64)ip[row + 1]; ++j) {
      i64 col = (i64)ind[j];
      i64 bc = col / C;
      i64 lo = (i64)bp[i], hi = (i64)bp[i + 1] - 1;
      while (lo < hi) {
        i64 mid = lo + (hi - lo) / 2;
        if ((i64)bind[mid] < bc) lo = mid + 1; else hi = mid;
      }
      out[(lo * R + r) * C + col % C] = dat[j];
    }
  }
}
