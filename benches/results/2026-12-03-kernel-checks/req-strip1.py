# strip-1: the Rust build's ndi_strip2 kernels (filters.cu + sep2d.cu + strip2.cu as kernel_source
# composes them) timed in isolation on f32[4096,4096] with variants of block size and rows per strip.
import cupy as cp, numpy as np, os
import cupyx.scipy.ndimage as cnd
root = os.getcwd()
rd = lambda p: open(root + '/' + p).read()
common = rd('crates/core/src/cuda/common.cuh') if os.path.exists(root + '/crates/core/src/cuda/common.cuh') else ''
head = '#define T float\n#define W float\n#define NDI_WF32\n#define NDI_FLOAT_T\n#define NDI_SEP2_PIPE 0\n#define NDI_SEP2_FLAT 0\n#define NDI_SEP2_V4 0\n#define NDI_SEP2_H4 0\n'
src = common + head + rd('crates/ndimage/src/modes.cuh') + rd('crates/ndimage/src/filters/filters.cu') + rd('crates/ndimage/src/filters/sep2d.cu') + rd('crates/ndimage/src/filters/strip2.cu')
WR = ''.join('''
extern "C" __global__ void __launch_bounds__(LB) w_strip_%d(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd,
    const float* tvp, float dv, const float* thp, float dh, int mode, int rs) {
  NdiTaps tv, th;
#pragma unroll
  for (int k = 0; k < %d; ++k) { tv.w[k] = tvp[k]; th.w[k] = thp[k]; }
  ndi_strip2_body<%d>(x, out, outer, H, Wd, tv, dv, th, dh, mode, rs);
}
''' % (n, n, n) for n in (3, 9))
variants = {'lb128': src + WR.replace('LB', '128'), 'lb256': src + WR.replace('LB', '256')}
H = W = 4096
x = cp.random.standard_normal((H, W), dtype=cp.float32); y = cp.empty_like(x)
def timeit(fn, reps=50):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
def taps(w):
    t = np.zeros(64, np.float32); t[:len(w)] = w; return t
for name, code in variants.items():
    try:
        m = cp.RawModule(code=code, options=('--std=c++17',))
    except Exception as ex:
        print(name, 'compile failed', str(ex)[:2000]); continue
    for N, tv, th, dv, dh, ref in [(3, [-1, 0, 1], [1, 2, 1], 1.0, 1.0, lambda: cnd.sobel(x, axis=0, mode='reflect')),
                                    (9, [1] * 9, [1] * 9, 9.0, 9.0, lambda: cnd.uniform_filter(x, 9, mode='reflect'))]:
        f = m.get_function('w_strip_%d' % N)
        print(name, N, 'regs', f.attributes['num_regs'], 'local', f.attributes['local_size_bytes'])
        bt = 128 if name == 'lb128' else 256
        for rs in (4, 8, 16, 32):
            g = ((W // 4 + bt - 1) // bt, (H + rs - 1) // rs, 1)
            args = (x, y, np.int64(1), np.int64(H), np.int64(W), cp.asarray(taps(tv)), np.float32(dv), cp.asarray(taps(th)), np.float32(dh), np.int32(0), np.int32(rs))
            t = timeit(lambda: f(g, (bt,), args))
            print('  %s N=%d rs=%d: %.4f ms (%.2f TB/s)' % (name, N, rs, t, 2 * x.nbytes / t / 1e9))
        err = float(cp.abs(y - ref()).max())
        print('  max |strip - cupyx| =', err)
