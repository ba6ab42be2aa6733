# stream2d-1: the streaming register kernel (crates/ndimage/src/filters/stream2d.cu, branch stream2d)
# for sobel (axis 0) and uniform_filter (size 9), f32[4096,4096], on the H200: bit-identity with
# the tree's ndi_sep2f kernel (sep2d.cu, through a wrapper), every mode, awkward shapes; agreement
# with cupyx and with a float64 numpy reference; timings of the variants against a float4 copy.
# Run from the repo root (cwd = a copy of the worktree). `--dump-prelude FILE` or `--dump-src FILE` (no CuPy needed)
# writes the prelude or the whole module source for a local NVRTC check.
import os, sys, time
import numpy as np

ROOT = os.getcwd()
rd = lambda p: open(os.path.join(ROOT, p)).read()

HEAD = ('#define T float\n#define W float\n#define NDI_WF32\n#define NDI_FLOAT_T\n'
        '#define NDI_SEP2_PIPE 0\n#define NDI_SEP2_FLAT 0\n#define NDI_SEP2_V4 0\n#define NDI_SEP2_H4 0\n')


def prelude():
    # the real helpers of the tree; NdiTaps as filters.cu defines it (filters.cu itself is large)
    return (rd('crates/core/src/cuda/common.cuh') + HEAD + rd('crates/ndimage/src/modes.cuh') +
            '\nstruct NdiTaps { W w[64]; };\n')


if len(sys.argv) == 3 and sys.argv[1] == '--dump-prelude':
    open(sys.argv[2], 'w').write(prelude())
    sys.exit(0)

t_start = time.time()
# variants: name -> (S, PF, EDGE, VEC, HINT, ALT, threads per block)
VARIANTS = {  # name -> (S, PF, EDGE, VEC, HINT, ALT, threads per block,
    # min blocks per SM for __launch_bounds__: 0 or (sobel, uniform))
    'base  S32 PF2 E1    nt128': (32, 2, 1, 1, 0, 0, 128, 0),
    'S16   S16 PF2 E1    nt128': (16, 2, 1, 1, 0, 0, 128, 0),
    'S64   S64 PF2 E1    nt128': (64, 2, 1, 1, 0, 0, 128, 0),
    'PF0   S32 PF0 E1    nt128': (32, 0, 1, 1, 0, 0, 128, 0),
    'E0    S32 PF2 E0    nt128': (32, 2, 0, 1, 0, 0, 128, 0),
    'HINT  S32 PF2 E1 H  nt128': (32, 2, 1, 1, 1, 0, 128, 0),
    'ALT   S32 PF2 E1 A  nt128': (32, 2, 1, 1, 0, 1, 128, 0),
    'mb    S32 PF2 E1 mb6/3 nt128': (32, 2, 1, 1, 0, 0, 128, (6, 3)),
    'E0mb  S32 PF2 E0 mb6/4 nt128': (32, 2, 0, 1, 0, 0, 128, (6, 4)),
    'E0A   S64 PF0 E0 A  nt128': (64, 0, 0, 1, 0, 1, 128, 0),
    'scalar S32 PF2 E1 noVEC  ': (32, 2, 1, 0, 0, 0, 128, 0),
}
FILTERS = {  # name -> (NV, NH, SH, sv, vertical taps, dv, horizontal taps, dh)
    'sobel0': (3, 3, 1, 1, [-1.0, 0.0, 1.0], 1.0, [1.0, 2.0, 1.0], 1.0),
    'uniform9': (9, 9, 4, 4, [1.0] * 9, 9.0, [1.0] * 9, 9.0),
}
MODES = {'reflect': 0, 'constant': 1, 'nearest': 2, 'mirror': 3, 'wrap': 4, 'grid-constant': 5,
         'grid-mirror': 6, 'grid-wrap': 7}

wrappers = {}  # module key -> wrapper source
fn_names = {}
for vi, (vname, (S, PF, E, VEC, HINT, ALT, NT, MB)) in enumerate(VARIANTS.items()):
    for fi, (fname, (NV, NH, SH, *_r)) in enumerate(FILTERS.items()):
        kn = 's2_%d_%s' % (vi, fname)
        mb = MB[fi] if MB else 0
        fn_names[(vname, fname)] = kn
        tv = ''.join('tv.w[%d] = v%d; ' % (k, k) for k in range(9))
        th = ''.join('th.w[%d] = h%d; ' % (k, k) for k in range(9))
        wrappers[vname] = wrappers.get(vname, '') + ('''
extern "C" __global__ void __launch_bounds__(%s) %s(const float* __restrict__ x, float* __restrict__ out,
    i64 outer, i64 H, i64 Wd, float v0, float v1, float v2, float v3, float v4, float v5, float v6, float v7,
    float v8, int sv, float dv, float h0, float h1, float h2, float h3, float h4, float h5, float h6, float h7,
    float h8, float dh, int mode, float cval) {
  NdiTaps tv, th; %s %s
  ndi_stream2_body<%d, %d, %d, %d, %d, %d, %s, %s, %s>(x, out, outer, H, Wd, tv, sv, dv, th, dh, mode, cval);
}''' % ('%d, %d' % (NT, mb) if mb else '%d' % NT, kn, tv, th, NV, NH, SH, S, PF, E, 'true' if VEC else 'false', 'true' if HINT else 'false',
        'true' if ALT else 'false'))
for nb in (3, 9):
    wrappers['base'] = wrappers.get('base', '') + ('''
extern "C" __global__ void w_sep2_%d(const float* __restrict__ x, float* __restrict__ out, i64 outer, i64 H,
    i64 Wd, const float* tvp, int nv, int sv, float dv, const float* thp, int nh, int sh, float dh, int mode,
    float cval, int ty, int tx) {
  NdiTaps tv, th;
#pragma unroll
  for (int k = 0; k < %d; ++k) { tv.w[k] = tvp[k]; th.w[k] = thp[k]; }
  ndi_sep2_body<%d>(x, out, outer, H, Wd, tv, nv, sv, dv, th, nh, sh, dh, 1, mode, cval, ty, tx);
}''' % (nb, nb, nb))
COPY = r'''
extern "C" __global__ void c4(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n4;
       i += (unsigned long long)gridDim.x * blockDim.x)
    b[i] = a[i];
}
extern "C" __global__ void c4x2(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
  unsigned long long i = (blockIdx.x * (unsigned long long)blockDim.x) * 2 + threadIdx.x;
  if (i + blockDim.x < n4) { float4 x = a[i], y = a[i + blockDim.x]; b[i] = x; b[i + blockDim.x] = y; }
  else if (i < n4) b[i] = a[i];
}
'''
sep2d = rd('crates/ndimage/src/filters/sep2d.cu')
for nb in (3, 5, 9, 17, 33):
    sep2d = sep2d.replace('NDI_SEP2(%d)\n' % nb, '')
common = prelude() + sep2d + '\n' + rd('crates/ndimage/src/filters/stream2d.cu') + '\n'
wrappers['base'] += COPY
# one module per variant (compiled in parallel processes into CuPy's kernel cache first)
codes = {k: common + w for k, w in wrappers.items()}
src = common + ''.join(wrappers.values())
OPTS = ('--std=c++17',)
if len(sys.argv) == 3 and sys.argv[1] == '--dump-src':
    open(sys.argv[2], 'w').write(src)
    sys.exit(0)
import cupy as cp
import cupyx.scipy.ndimage as cnd

t0 = time.time()
# warm CuPy's kernel cache with one process per module (NVRTC is single-threaded), then load
try:
    import subprocess, tempfile
    tmp = tempfile.mkdtemp()
    procs = []
    for i, code in enumerate(codes.values()):
        fp = os.path.join(tmp, 'm%d.cu' % i)
        open(fp, 'w').write(code)
        procs.append(subprocess.Popen(
            [sys.executable, '-c', 'import sys, cupy; cupy.RawModule(code=open(sys.argv[1]).read(), '
             'options=%r).compile()' % (OPTS,), fp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for pr in procs:
        pr.wait(timeout=300)
except Exception as ex:
    print('parallel compile failed (%s); compiling serially' % str(ex)[:200])
mods = {}
try:
    for k, code in codes.items():
        mods[k] = cp.RawModule(code=code, options=OPTS)
        mods[k].compile()
except Exception as ex:
    print('COMPILE FAILED', k, str(ex)[:6000])
    sys.exit(1)
print('compiled %d modules in %.1f s' % (len(mods), time.time() - t0))
dev = cp.cuda.Device()
sms = dev.attributes['MultiProcessorCount']


def stream(vname, fname, x, mode=0, cval=0.0, out=None):
    S, PF, E, VEC, HINT, ALT, NT, MB = VARIANTS[vname]
    NV, NH, SH, sv, tv, dv, th, dh = FILTERS[fname]
    f = mods[vname].get_function(fn_names[(vname, fname)])
    H, Wd = x.shape[-2], x.shape[-1]
    outer = x.size // (H * Wd)
    if out is None:
        out = cp.full_like(x, np.nan)
    nwx = -(-Wd // (128 if E else 120))
    grid = (-(-nwx // (NT // 32)), min(outer * (-(-H // S)), 65535))
    args = ([x, out, np.int64(outer), np.int64(H), np.int64(Wd)] + [np.float32(v) for v in tv + [0.0] * (9 - len(tv))]
            + [np.int32(sv), np.float32(dv)] + [np.float32(v) for v in th + [0.0] * (9 - len(th))]
            + [np.float32(dh), np.int32(mode), np.float32(cval)])
    f(grid, (NT,), tuple(args))
    return out


SEP2_TAPS = {}


def sep2(fname, x, mode=0, cval=0.0, out=None):
    # launch as engine.rs sep2 does (SEP2_* flags off): tile 32 x 128 (clamped), 256 threads
    NV, NH, SH, sv, tv, dv, th, dh = FILTERS[fname]
    nb = 3 if NV <= 3 else 9
    f = mods['base'].get_function('w_sep2_%d' % nb)
    H, Wd = x.shape[-2], x.shape[-1]
    outer = x.size // (H * Wd)
    ty = min(32, -(-H // 8) * 8)
    tx = min(128, -(-Wd // 32) * 32)
    R, C = ty + NV - 1, tx + NH - 1
    smem = (R * (C | 1) + ty * (C | 1)) * 4
    if out is None:
        out = cp.empty_like(x)
    ntiles = outer * (-(-H // ty)) * (-(-Wd // tx))
    if fname not in SEP2_TAPS:  # uploaded once (not inside the timed launches)
        SEP2_TAPS[fname] = (cp.asarray(np.float32(tv)), cp.asarray(np.float32(th)))
    dtv, dth = SEP2_TAPS[fname]
    f((ntiles,), (256,), (x, out, np.int64(outer), np.int64(H), np.int64(Wd), dtv,
                          np.int32(NV), np.int32(sv), np.float32(dv), dth, np.int32(NH),
                          np.int32(SH), np.float32(dh), np.int32(mode), np.float32(cval), np.int32(ty),
                          np.int32(tx)), shared_mem=smem)
    return out


def cupyx_ref(fname, x, mode='reflect', cval=0.0):
    if fname == 'sobel0':
        return cnd.sobel(x, axis=0, mode=mode, cval=cval)
    return cnd.uniform_filter(x, 9, mode=mode, cval=cval)


def np_ref64(fname, x):
    # float64 reference, reflect (numpy 'symmetric'), vertical then horizontal, 2-D
    NV, NH, SH, sv, tv, dv, th, dh = FILTERS[fname]
    a = np.asarray(x, np.float64)
    H, Wd = a.shape
    p = np.pad(a, ((sv, NV - 1 - sv), (0, 0)), mode='symmetric')
    v = sum(tv[j] * p[j:j + H] for j in range(NV)) / dv
    p = np.pad(v, ((0, 0), (SH, NH - 1 - SH)), mode='symmetric')
    return sum(th[j] * p[:, j:j + Wd] for j in range(NH)) / dh


def np_emul32(fname, x):
    # the kernels' exact f32 arithmetic for these weights (products exact: fma == mul + add),
    # reflect, sums in tap order, times the f32 reciprocal
    NV, NH, SH, sv, tv, dv, th, dh = FILTERS[fname]
    a = np.asarray(x, np.float32)
    H, Wd = a.shape
    p = np.pad(a, ((sv, NV - 1 - sv), (0, 0)), mode='symmetric')
    v = np.zeros((H, Wd), np.float32)
    for j in range(NV):
        v = v + np.float32(tv[j]) * p[j:j + H]
    v = v * (np.float32(1) / np.float32(dv))
    p = np.pad(v, ((0, 0), (SH, NH - 1 - SH)), mode='symmetric')
    o = np.zeros((H, Wd), np.float32)
    for j in range(NH):
        o = o + np.float32(th[j]) * p[:, j:j + Wd]
    return o * (np.float32(1) / np.float32(dh))


def timeit(fn, reps=50):
    for _ in range(3):
        fn()
    dev.synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


ok_all = True
# ---- kernel resources
for (vname, fname), kn in fn_names.items():
    f = mods[vname].get_function(kn)
    a = f.attributes
    print('regs %-28s %-9s %3d regs, local %d B' % (vname, fname, a['num_regs'], a['local_size_bytes']))
print('regs w_sep2_3 %d, w_sep2_9 %d' % (mods['base'].get_function('w_sep2_3').attributes['num_regs'],
                                         mods['base'].get_function('w_sep2_9').attributes['num_regs']))

# ---- correctness: 4096 x 4096, reflect
H = W = 4096
rs = cp.random.RandomState(1)
x = rs.standard_normal((H, W), dtype=cp.float32)
y = cp.empty_like(x)
refs = {}
for fname in FILTERS:
    ref = sep2(fname, x)
    refs[fname] = ref
    cx = cupyx_ref(fname, x)
    print('%-9s 4096^2 reflect: max|sep2 - cupyx| = %.3g (max|ref| %.3g)' % (
        fname, float(cp.abs(ref - cx).max()), float(cp.abs(cx).max())))
    for vname in VARIANTS:
        y.fill(np.nan)
        stream(vname, fname, x, out=y)
        nbad = int((y != ref).sum())
        print('  check %-28s vs sep2: mismatches %d, max|diff| %.3g; vs cupyx max|diff| %.3g' % (
            vname, nbad, float(cp.abs(y - ref).max()), float(cp.abs(y - cx).max())))
        ok_all &= nbad == 0
    del cx

# ---- a 512 x 512 crop (its own array) against float64 numpy and the exact f32 emulation
crop = cp.ascontiguousarray(x[:512, :512])
hc = cp.asnumpy(crop)
for fname in FILTERS:
    yc = cp.asnumpy(stream('base  S32 PF2 E1    nt128', fname, crop))
    r64 = np_ref64(fname, hc)
    e32 = np_emul32(fname, hc)
    print('%-9s crop 512^2: max|stream - f64| / max|f64| = %.3g; vs f32 emulation: %d mismatches' % (
        fname, float(np.abs(yc - r64).max() / np.abs(r64).max()), int((yc != e32).sum())))
    ok_all &= int((yc != e32).sum()) == 0

# ---- awkward shapes, every mode: bit-identity with sep2 (all variants; VEC only where Wd % 4 == 0)
shapes = [(1000, 1003), (5, 4096), (4096, 8), (1, 37), (37, 1), (3, 70, 260), (2, 1, 1), (33, 129)]
for shp in shapes:
    xs = rs.standard_normal(shp, dtype=cp.float32)
    for fname in FILTERS:
        worst = []
        for mname, mcode in MODES.items():
            cval = 1.5 if 'constant' in mname else 0.0
            ref = sep2(fname, xs, mcode, cval)
            for vname, v in VARIANTS.items():
                if v[3] and shp[-1] % 4:
                    continue
                ys = stream(vname, fname, xs, mcode, cval)
                nbad = int((ys != ref).sum())
                if nbad:
                    worst.append('%s/%s: %d mismatches, max %.3g' % (
                        mname, vname.strip(), nbad, float(cp.abs(ys - ref).max())))
        cxd = ''
        if len(shp) == 2:
            cx = cupyx_ref(fname, xs, 'constant', 1.5)
            ys = stream('scalar S32 PF2 E1 noVEC  ', fname, xs, 1, 1.5)
            cxd = ' (constant 1.5: max|stream - cupyx| %.3g)' % float(cp.abs(ys - cx).max())
        print('shape %-14s %-9s all modes x variants vs sep2: %s%s' % (
            str(shp), fname, 'identical' if not worst else 'MISMATCH ' + '; '.join(worst[:6]), cxd))
        ok_all &= not worst
print('ALL CHECKS PASSED' if ok_all else 'SOME CHECKS FAILED')

# ---- timings, f32[4096, 4096] reflect
n = H * W
a1 = x.reshape(-1)
b1 = y.reshape(-1)
tc = {}
c4 = mods['base'].get_function('c4')
c4x2 = mods['base'].get_function('c4x2')
for g in (2, 4, 8, 16):
    tc['float4 copy grid %d/SM' % g] = timeit(lambda: c4((sms * g,), (256,), (a1, b1, np.uint64(n // 4))))
tc['float4 copy x2 one pass'] = timeit(lambda: c4x2(((n // 4 + 511) // 512,), (256,), (a1, b1, np.uint64(n // 4))))
tc['cupy copyto'] = timeit(lambda: cp.copyto(y, x))
tc['memcpy d2d'] = timeit(lambda: b1.data.copy_from_device(a1.data, 4 * n))
roof = min(v for k, v in tc.items() if k.startswith('float4'))
for k, v in tc.items():
    print('time %-34s %.4f ms  %6.1f%% of the float4 copy  %.2f TB/s' % (k, v, 100 * roof / v, 2 * 4 * n / v / 1e9))
for fname in FILTERS:
    for k, fn in (('cupyx', lambda: cupyx_ref(fname, x)), ('sep2 (tree)', lambda: sep2(fname, x, out=y))):
        t = timeit(fn)
        print('time %-9s %-24s %.4f ms  %6.1f%% of the float4 copy' % (fname, k, t, 100 * roof / t))
    for vname in VARIANTS:
        t = timeit(lambda: stream(vname, fname, x, out=y))
        print('time %-9s %-24s %.4f ms  %6.1f%% of the float4 copy%s' % (
            fname, vname, t, 100 * roof / t, '  <= 0.047' if t <= 0.047 else ''))
print('total %.1f s' % (time.time() - t_start))
