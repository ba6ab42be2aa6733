// scipy.ndimage boundary modes (cusci-ndimage modes.rs): the codes of Mode::code().
#ifndef CUSCI_NDI_MODES
#define CUSCI_NDI_MODES
#define NDI_REFLECT 0
#define NDI_CONSTANT 1
#define NDI_NEAREST 2
#define NDI_MIRROR 3
#define NDI_WRAP 4
#define NDI_GRID_CONSTANT 5
#define NDI_GRID_MIRROR 6
#define NDI_GRID_WRAP 7

// The most dimensions of an array the crate's morphology, label, measurement and distance
// kernels take (NumPy 1.x's NPY_MAXDIMS; the core's CusciShape stops at 8), and the shape they
// take by value (cuda.rs's `NdiShape`).
#define NDI_MAXD 32
struct NdiShape { i64 n; int ndim; i64 dims[NDI_MAXD]; };

// Index i of an axis of length n (>= 1) mapped into [0, n) as the filters extend the input;
// -1 where the value is the constant cval. Same as Mode::map_index on the CPU.
__device__ __forceinline__ i64 ndi_map_index(i64 i, i64 n, int mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case NDI_CONSTANT:
    case NDI_GRID_CONSTANT:
      return -1;
    case NDI_NEAREST:
      return i < 0 ? 0 : n - 1;
    case NDI_WRAP:
    case NDI_GRID_WRAP: {
      i64 j = i % n;
      return j < 0 ? j + n : j;
    }
    case NDI_MIRROR: {
      if (n == 1) return 0;
      i64 p = 2 * n - 2;
      i64 j = i % p;
      if (j < 0) j += p;
      return j >= n ? p - j : j;
    }
    default: {  // reflect, grid-mirror
      i64 p = 2 * n;
      i64 j = i % p;
      if (j < 0) j += p;
      return j >= n ? p - 1 - j : j;
    }
  }
}
#endif
