// scipy.ndimage.label on the GPU (cusci-ndimage label.rs): parallel union-find whose roots are the
// smallest flat index of each component (every link points to a smaller index), so a component's
// root is its first element in raster order; labels are the ranks of the roots (a prefix sum).
// NDI_T is the input's element type. NDI_U: the index type of the forest (unsigned int below
// 2^31 elements, half the memory traffic; else u64), NDI_F: the root flags and their ranks (int
// or i64). Background elements hold NDI_BG.

#ifndef NDI_U
#define NDI_U u64
#define NDI_F i64
#endif
#define NDI_BG ((NDI_U)~(NDI_U)0)

extern "C" __global__ void ndi_label_init(const NDI_T* __restrict__ in, NDI_U* __restrict__ parent,
                                          i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    parent[i] = (in[i] != (NDI_T)0) ? (NDI_U)i : NDI_BG;
}

__device__ __forceinline__ NDI_U ndi_find(const volatile NDI_U* p, NDI_U x) {
  NDI_U y = p[x];
  while (y != x) {
    x = y;
    y = p[x];
  }
  return x;
}

// find with path halving (merge phase): every write replaces a parent by its own parent, an
// element of the same tree with a smaller index, so links still point to smaller indices. A
// concurrent atomicMin that this store may overwrite was made on a non-root (it saw old != x) and
// its thread goes on merging `old` with its other tree, so no connection is lost.
__device__ __forceinline__ NDI_U ndi_find_halve(NDI_U* p, NDI_U x) {
  volatile NDI_U* vp = p;
  while (true) {
    const NDI_U y = vp[x];
    if (y == x) return x;
    const NDI_U z = vp[y];
    if (z == y) return y;
    vp[x] = z;
    x = z;
  }
}

// Links the trees of a and b: the larger root is pointed (atomicMin) at the smaller one; when the
// larger was already linked meanwhile, its new parent is merged with the other instead.
__device__ void ndi_unite(NDI_U* p, NDI_U a, NDI_U b) {
  while (true) {
    a = ndi_find_halve(p, a);
    b = ndi_find_halve(p, b);
    if (a == b) return;
    if (a < b) {
      NDI_U t = a;
      a = b;
      b = t;
    }
    NDI_U old = atomicMin((NDI_U*)&p[a], (NDI_U)b);
    if (old == a) return;
    a = old;
  }
}

// offs: noff offsets of ndim coordinates (the structure's elements before its centre in raster
// order); delta: their flat index differences; adj[k]: bit k2 set when offset k2 < k is adjacent
// to offset k under the structure (a foreground neighbour adjacent to one already joined needs
// no union: label.rs explains why).
extern "C" __global__ void ndi_label_merge(NDI_U* parent, NdiShape shape, const i64* __restrict__ offs,
                                           const i64* __restrict__ delta,
                                           const unsigned long long* __restrict__ adj, int noff) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    if (((volatile NDI_U*)parent)[i] == NDI_BG) continue;
    i64 c[NDI_MAXD];
    i64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = r % shape.dims[d];
      r /= shape.dims[d];
    }
    unsigned long long done = 0ull;
    for (int k = 0; k < noff; ++k) {
      bool ok = true;
      for (int d = 0; d < nd; ++d) {
        i64 q = c[d] + offs[k * nd + d];
        if (q < 0 || q >= shape.dims[d]) ok = false;
      }
      if (!ok) continue;
      i64 j = i + delta[k];
      if (((volatile NDI_U*)parent)[j] == NDI_BG) continue;
      const unsigned long long bit = k < 64 ? (1ull << k) : 0ull;
      const bool skip = (adj[k] & done) != 0ull;
      done |= bit;
      if (skip) continue;
      ndi_unite(parent, (NDI_U)i, (NDI_U)j);
    }
  }
}

// parent[i] = root of i; flag[i] = 1 where i is a root.
extern "C" __global__ void ndi_label_flatten(NDI_U* parent, NDI_F* __restrict__ flag, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    NDI_U p = ((volatile NDI_U*)parent)[i];
    if (p == NDI_BG) {
      flag[i] = 0;
      continue;
    }
    NDI_U r = ndi_find(parent, (NDI_U)i);
    parent[i] = r;
    flag[i] = (r == (NDI_U)i) ? 1 : 0;
  }
}

// rank: inclusive prefix sum of flag; out[i] = rank of i's root (0 for the background).
extern "C" __global__ void ndi_label_write(const NDI_U* __restrict__ parent, const NDI_F* __restrict__ rank,
                                           int* __restrict__ out, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    NDI_U p = parent[i];
    out[i] = (p == NDI_BG) ? 0 : (int)rank[p];
  }
}
