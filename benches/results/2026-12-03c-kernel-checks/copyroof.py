# copyroof (2026-12-03, third session): the fastest 64 MiB -> 64 MiB copy on this GPU (what sobel and
# uniform on f32[4096,4096] move), against the 1 GiB copy that compare.py takes as the roof.
import cupy as cp, numpy as np
K = r'''
extern "C" __global__ void c4(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n4; i += (unsigned long long)gridDim.x * blockDim.x)
        b[i] = a[i];
}
extern "C" __global__ void c4x2(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
    unsigned long long i = (blockIdx.x * (unsigned long long)blockDim.x) * 2 + threadIdx.x;
    if (i + blockDim.x < n4) { float4 x = a[i], y = a[i + blockDim.x]; b[i] = x; b[i + blockDim.x] = y; }
    else if (i < n4) b[i] = a[i];
}
'''
m = cp.RawModule(code=K)
sms = cp.cuda.Device().attributes['MultiProcessorCount']
def timeit(fn, reps=50):
    for _ in range(3): fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
for n in (4096 * 4096, 1 << 28):
    a = cp.ones(n, cp.float32); b = cp.empty_like(a); by = 2 * 4 * n
    res = {}
    res['cupy copy'] = timeit(lambda: cp.copyto(b, a))
    res['memcpy d2d'] = timeit(lambda: b.data.copy_from_device(a.data, 4 * n))
    for g in (1, 2, 4, 8, 16, 32):
        f = m.get_function('c4')
        res['float4 grid %d/SM' % g] = timeit(lambda: f((sms * g,), (256,), (a, b, np.uint64(n // 4))))
    f = m.get_function('c4x2')
    res['float4 x2 one pass'] = timeit(lambda: f(((n // 4 + 511) // 512,), (256,), (a, b, np.uint64(n // 4))))
    for k, t in res.items():
        print('n=%10d %-20s %.4f ms  %.2f TB/s' % (n, k, t, by / t / 1e9))
