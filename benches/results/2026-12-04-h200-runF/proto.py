# Run F version: its entries pass nst, the run-time strip count of a stream2d.cu variant that was
# measured and not kept (see 2026-12-04-h200.md); runs B and C used the same script with
# compile-time strips only (no nst argument) and the variant lists given in their nd.txt.
# stream2d.cu variants on f32 4096^2 (sobel: 3 taps, uniform 9), timed by events over 200 launches
import cupy as cp, numpy as np, itertools, sys, os
d = os.path.dirname(os.path.abspath(__file__))
rd = lambda f: open(os.path.join(d, f)).read()
head = rd('common.cuh') + "#define T float\n#define W float\n#define NDI_WF32\n#define NDI_FLOAT_T\n" + rd('modes.cuh') + \
    "\nstruct NdiTaps { W w[64]; };\n__constant__ NdiTaps c_tv, c_th;\n" + rd('stream2d.cu')
def entry(name, nv, S, PF, EDGE, HINT, ALT, TH, MB):
    b = lambda v: 'true' if v else 'false'
    return f'''extern "C" __global__ void __launch_bounds__({TH}, {MB}) {name}(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H, i64 Wd, int sv, W dv, W dh, int mode, W cval, i64 nst) {{
  ndi_stream2_body<{nv}, {nv}, {(nv-1)//2}, {S}, {PF}, {EDGE}, true, {b(HINT)}, {b(ALT)}>(x, out, outer, H, Wd, c_tv, sv, dv, c_th, dh, mode, cval, nst);
}}
'''
copy_src = r'''
extern "C" __global__ void copy4(const float4* __restrict__ x, float4* __restrict__ y, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) y[i] = __ldg(x + i);
}'''
N = 4096
x = cp.random.default_rng(1).standard_normal((N, N), dtype=cp.float32)
out = cp.empty_like(x)
def percall(fn, reps=50):
    fn(); cp.cuda.Device().synchronize()
    ts = []
    a, b = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(reps):
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return sorted(ts)[len(ts) // 2]
def timeit(fn, reps=200):
    fn(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(3):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(reps): fn()
        b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) / reps)
    return min(ts)
cm = cp.RawModule(code=copy_src)
ck = cm.get_function('copy4')
n4 = N * N // 4
for g in [132*16, (n4 + 255)//256]:
    print(f'copy 64MiB grid {g}: {timeit(lambda: ck((g,), (256,), (x, out, np.int64(n4)))):.4f} ms per call {percall(lambda: ck((g,), (256,), (x, out, np.int64(n4)))):.4f}', flush=True)
print(f'cudaMemcpy 64MiB per call {percall(lambda: out.set(x) if False else cp.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, 0)):.4f}', flush=True)
big = cp.empty(2**28, cp.float32); bigo = cp.empty_like(big)
print(f'copy 1GiB: {timeit(lambda: ck((132*16,), (256,), (big, bigo, np.int64(2**26))), 20):.4f} ms', flush=True)
del big, bigo
base = dict(S=10, PF=2, EDGE=0, HINT=False, ALT=False, TH=128, GY=0, FIT=False)
mb0 = {3: 6, 9: 4}
grid = []
for S in [8, 10, 12, 16]:
    grid += [dict(S=S), dict(S=S, FIT=True)]
grid += [dict(EDGE=1), dict(EDGE=1, FIT=True), dict(S=8, HINT=True, FIT=True), dict(S=10, MB=8, FIT=True)]
only = sys.argv[1] if len(sys.argv) > 1 else None
for nv in [3, 9]:
    ref = None
    wv = np.zeros(64, np.float32); wh = np.zeros(64, np.float32)
    if nv == 3: wv[:3] = [1, 2, 1]; wh[:3] = [-1, 0, 1]
    else: wv[:9] = 1; wh[:9] = 1
    dvh = 1.0 if nv == 3 else 9.0
    srcs, names, cfgs = [], [], []
    for i, g in enumerate(grid):
        c = dict(base); c['MB'] = mb0[nv]; c.update(g)
        if c['PF'] > c['S']: continue
        name = f'v{nv}_{i}'
        srcs.append(entry(name, nv, c['S'], c['PF'], c['EDGE'], c['HINT'], c['ALT'], c['TH'], c['MB']))
        names.append(name); cfgs.append(c)
    mod = cp.RawModule(code=head + ''.join(srcs), options=('-std=c++17',))
    for sym, w in [('c_tv', wv), ('c_th', wh)]:
        p = mod.get_global(sym); p.copy_from_host(w.ctypes.data, w.nbytes)
    for name, c in zip(names, cfgs):
        f = mod.get_function(name)
        wpb = c['TH'] // 32
        nwx = -(-N // (128 if c['EDGE'] else 120))
        gx = -(-nwx // wpb)
        nst = -(-N // c['S'])
        if c['FIT']:
            regs = -(-f.num_regs // 8) * 8
            slots = 132 * min(65536 // (regs * c['TH']), 2048 // c['TH'], 32)
            eff = lambda k: gx * k / (-(-(gx * k) // slots) * slots)
            nst = max(range(nst, min(N, nst + nst // 4) + 1), key=lambda k: (eff(k), -k))
        gy = c['GY'] or min(nst, 65535)
        args = (x, out, np.int64(1), np.int64(N), np.int64(N), np.int32((nv - 1)//2), np.float32(dvh), np.float32(dvh), np.int32(0), np.float32(0), np.int64(nst))
        t = timeit(lambda: f((gx, gy), (c['TH'],), args)); t1 = percall(lambda: f((gx, gy), (c['TH'],), args))
        o = out.copy()
        if ref is None: ref = o
        same = bool(cp.array_equal(o, ref))
        print(f'nv={nv} {c} regs={f.num_regs} grid=({gx},{gy}) nst={nst} {t:.4f} ms (per call {t1:.4f})  GB/s={2*N*N*4/t/1e6:.0f} same={same}', flush=True)
    import cupyx.scipy.ndimage as nd
    if nv == 3: t = timeit(lambda: nd.sobel(x, output=out), 50); print(f'cupy sobel {t:.4f} ms')
    else: t = timeit(lambda: nd.uniform_filter(x, 9, output=out), 50); print(f'cupy uniform9 {t:.4f} ms')
