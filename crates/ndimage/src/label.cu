// scipy.ndimage.label on the GPU (cusci-ndimage label.rs): parallel union-find whose roots are the
// smallest flat index of each component (every link points to a smaller index), so a component's
// root is its first element in raster order; labels are the ranks of the roots (a prefix sum).
// NDI_T is the input's element type. Background elements hold NDI_BG.

#define NDI_BG 0xFFFFFFFFFFFFFFFFull

extern "C" __global__ void ndi_label_init(const NDI_T* __restrict__ in, u64* __restrict__ parent,
                                          i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x)
    parent[i] = (in[i] != (NDI_T)0) ? (u64)i : NDI_BG;
}

__device__ __forceinline__ u64 ndi_find(const volatile u64* p, u64 x) {
  u64 y = p[x];
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
__device__ __forceinline__ u64 ndi_find_halve(u64* p, u64 x) {
  volatile u64* vp = p;
  while (true) {
    const u64 y = vp[x];
    if (y == x) return x;
    const u64 z = vp[y];
    if (z == y) return y;
    vp[x] = z;
    x = z;
  }
}

// Links the trees of a and b: the larger root is pointed (atomicMin) at the smaller one; when the
// larger was already linked meanwhile, its new parent is merged with the other instead.
__device__ void ndi_unite(u64* p, u64 a, u64 b) {
  while (true) {
    a = ndi_find_halve(p, a);
    b = ndi_find_halve(p, b);
    if (a == b) return;
    if (a < b) {
      u64 t = a;
      a = b;
      b = t;
    }
    u64 old = atomicMin((unsigned long long*)&p[a], (unsigned long long)b);
    if (old == a) return;
    a = old;
  }
}

// offs: noff offsets of ndim coordinates (the structure's elements before its centre in raster
// order); delta: their flat index differences.
extern "C" __global__ void ndi_label_merge(u64* parent, CusciShape shape, const i64* __restrict__ offs,
                                           const i64* __restrict__ delta, int noff) {
  const int nd = shape.ndim;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < shape.n; i += (i64)blockDim.x * gridDim.x) {
    if (((volatile u64*)parent)[i] == NDI_BG) continue;
    i64 c[CUSCI_MAXD];
    i64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = r % shape.dims[d];
      r /= shape.dims[d];
    }
    for (int k = 0; k < noff; ++k) {
      bool ok = true;
      for (int d = 0; d < nd; ++d) {
        i64 q = c[d] + offs[k * nd + d];
        if (q < 0 || q >= shape.dims[d]) ok = false;
      }
      if (!ok) continue;
      i64 j = i + delta[k];
      if (((volatile u64*)parent)[j] == NDI_BG) continue;
      ndi_unite(parent, (u64)i, (u64)j);
    }
  }
}

// parent[i] = root of i; flag[i] = 1 where i is a root.
extern "C" __global__ void ndi_label_flatten(u64* parent, i64* __restrict__ flag, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    u64 p = ((volatile u64*)parent)[i];
    if (p == NDI_BG) {
      flag[i] = 0;
      continue;
    }
    u64 r = ndi_find(parent, (u64)i);
    parent[i] = r;
    flag[i] = (r == (u64)i) ? 1 : 0;
  }
}

// rank: inclusive prefix sum of flag; out[i] = rank of i's root (0 for the background).
extern "C" __global__ void ndi_label_write(const u64* __restrict__ parent, const i64* __restrict__ rank,
                                           int* __restrict__ out, i64 n) {
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)blockDim.x * gridDim.x) {
    u64 p = parent[i];
    out[i] = (p == NDI_BG) ? 0 : (int)rank[p];
  }
}
