# sobel-1: how close to the copy roof a column-strip sobel (axis 0, reflect) gets on f32[4096,4096],
# against cupy copies of the same size and cupyx's sobel; checked against cupyx.
import cupy as cp, numpy as np
import cupyx.scipy.ndimage as cnd
SRC = r'''
__device__ __forceinline__ int rf(int i, int n) { return i < 0 ? -i - 1 : (i >= n ? 2 * n - 1 - i : i); }
__device__ __forceinline__ float4 hrow(const float* __restrict__ row, int c, int W) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(row + c));
  const float l = __ldg(row + rf(c - 1, W)), r = __ldg(row + rf(c + 4, W));
  return make_float4(l + 2.f * v.x + v.y, v.x + 2.f * v.y + v.z, v.y + 2.f * v.z + v.w, v.z + 2.f * v.w + r);
}
extern "C" __global__ void __launch_bounds__(256) sobel0(const float* __restrict__ x, float* __restrict__ y, int H, int W, int RS) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int r0 = blockIdx.y * RS;
  if (c >= W) return;
  const int r1 = min(H, r0 + RS);
  float4 a = hrow(x + (size_t)rf(r0 - 1, H) * W, c, W);
  float4 b = hrow(x + (size_t)r0 * W, c, W);
  for (int r = r0; r < r1; ++r) {
    const float4 d = hrow(x + (size_t)rf(r + 1, H) * W, c, W);
    __stcs(reinterpret_cast<float4*>(y + (size_t)r * W + c), make_float4(d.x - a.x, d.y - a.y, d.z - a.z, d.w - a.w));
    a = b; b = d;
  }
}
'''
m = cp.RawModule(code=SRC, options=('--std=c++17',))
k = m.get_function('sobel0')
def timeit(fn, reps=50):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
H = W = 4096
x = cp.random.standard_normal((H, W), dtype=cp.float32)
y = cp.empty_like(x)
nbytes = 2 * x.nbytes
for RS in (8, 16, 32, 64):
    g = ((W // 4 + 255) // 256, (H + RS - 1) // RS)
    t = timeit(lambda: k(g, (256,), (x, y, np.int32(H), np.int32(W), np.int32(RS))))
    print('strip sobel RS=%d: %.4f ms  %.2f TB/s' % (RS, t, nbytes / t / 1e9))
ref = cnd.sobel(x, axis=0, mode='reflect')
print('max |strip - cupyx| =', float(cp.abs(y - ref).max()))
t = timeit(lambda: cp.copyto(y, x)); print('copy 64 MiB: %.4f ms %.2f TB/s' % (t, nbytes / t / 1e9))
big = cp.empty(1 << 28, cp.float32); big2 = cp.empty_like(big)
t = timeit(lambda: cp.copyto(big2, big), 10); print('copy 1 GiB: %.4f ms %.2f TB/s' % (t, 2 * big.nbytes / t / 1e9))
t = timeit(lambda: cnd.sobel(x, axis=0, output=y)); print('cupyx sobel: %.4f ms' % t)
