# Differential fuzz of the element types (CPU) against SciPy: integer, bool and float inputs with
# SciPy's default output type or an `output=` dtype (the `*_as` functions), the generic filters
# with closures, spline_filter(1d) and the Fourier filters' result types (complex inputs too):
#   python3 scripts/ndimage_fuzz/dtypes.py SEED COUNT [FUNC,FUNC,...]   (see README.md)
import numpy as np, scipy.ndimage as ndi, os, sys, shutil, random, warnings
from common import run_driver, ours, case_line, raised, GF, gf1d, transform_call, random_shape
warnings.simplefilter('ignore')
seed, count = int(sys.argv[1]), int(sys.argv[2])
only = sys.argv[3].split(',') if len(sys.argv) > 3 else None
R = random.Random(seed); rng = np.random.default_rng(seed)
D = f'/tmp/ndimage_fuzz_dtypes_{seed}'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
MODES = ['reflect', 'constant', 'nearest', 'mirror', 'wrap', 'grid-constant', 'grid-mirror', 'grid-wrap']
FUNCS = ['correlate', 'convolve', 'correlate1d', 'convolve1d', 'uniform', 'uniform1d', 'minimum', 'maximum',
         'minimum1d', 'maximum1d', 'median', 'rank', 'percentile', 'gaussian', 'gaussian1d', 'gaussian_laplace',
         'ggm', 'sobel', 'prewitt', 'laplace', 'generic', 'generic1d', 'zoom', 'shift', 'rotate', 'affine',
         'map_coordinates', 'spline', 'spline1d', 'fgauss', 'funiform', 'fellipsoid', 'fshift']
FOURIER = ('fgauss', 'funiform', 'fellipsoid', 'fshift')
if only: FUNCS = only
TYPES = {'bool': np.bool_, 'u8': np.uint8, 'i32': np.int32, 'i64': np.int64, 'f32': np.float32, 'f64': np.float64}
INTS = ('bool', 'u8', 'i32', 'i64')
L = lambda v: ','.join(str(a) for a in v)

def values(t, shape, f):
    """Random values of type t: u8 over its range, integers small or near their range's ends."""
    if t == 'bool': return rng.random(shape) < 0.5
    if t == 'u8': return rng.integers(0, 256, shape).astype(np.uint8)
    if t in ('i32', 'i64'):
        # squares of big i64 values overflow in SciPy's and our sums of squares alike, where
        # last-bit differences of the f64 derivatives then land far apart: 2^26 there
        big = 2 ** 30 if t == 'i32' else 2 ** 26 if f in ('ggm', 'gaussian_laplace', 'laplace') else 2 ** 52
        hi = R.choice([1000, big])
        return rng.integers(-hi, hi, shape).astype(TYPES[t])
    return (rng.standard_normal(shape) * R.choice([1.0, 100.0])).astype(TYPES[t])


cases = []; lines = []
for i in range(count):
    f = R.choice(FUNCS)
    shape = random_shape(R, f); nd = len(shape)
    it = R.choice(['bool', 'u8', 'u8', 'i32', 'i64', 'f32', 'f64'])
    cx = f in FOURIER and R.random() < 0.3
    if cx:
        it = R.choice(['c64', 'c128'])
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64 if it == 'c64' else np.complex128)
        np.save(f'{D}/in_{i}.npy', np.stack([x.real, x.imag], -1).astype(np.float64))
    else:
        x = values(it, shape, f)
        np.save(f'{D}/in_{i}.npy', x.astype(np.float64))
    # the output type: SciPy's default (None) or an output= dtype
    if f in FOURIER:
        ot = R.choice([None, 'f32', 'f64'])
        if ot == 'f32' and (f == 'fshift' or cx): ot_np = np.complex64
        elif ot == 'f64' and (f == 'fshift' or cx): ot_np = np.complex128
        else: ot_np = TYPES.get(ot)
    else:
        ot = R.choice([None, None, 'u8', 'i32', 'i64', 'f32', 'f64'] + (['bool'] if R.random() < 0.1 else []))
        ot_np = TYPES.get(ot)
    mode = R.choice(MODES); cval = R.choice([0.0, 1.5, -2.0, 7.0])
    p = {'mode': mode, 'cval': cval, 'it': {'c64': 'c32', 'c128': 'c64'}.get(it, it)}
    if cx: p['cx'] = 1
    if f.startswith('spline') and ot is None: ot = 'f64'  # spline_filter's default output
    if ot: p['ot'] = ot
    out = {} if ot_np is None else {'output': ot_np}
    kw = {}
    def pick_axes():
        if R.random() < 0.3 and nd > 1:
            k = R.randint(1, nd); return R.sample(range(nd), k)
        return None
    def origins(sizes):
        return [R.randint(-(s // 2), (s - 1) // 2) for s in sizes] if R.random() < 0.4 else None
    try:
        if f in ('correlate', 'convolve'):
            ax = pick_axes(); na = len(ax) if ax else nd
            ws = tuple(R.choice([1, 2, 3, 4]) for _ in range(na))
            w = np.round(rng.standard_normal(ws), R.choice([1, 3, 8])); np.save(f'{D}/w_{i}.npy', w)
            org = origins(ws)
            if org: p['origin'] = L(org); kw['origin'] = org
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            fn = ndi.correlate if f == 'correlate' else ndi.convolve
            call = lambda: fn(x, w, mode=mode, cval=cval, **kw, **out)
        elif f in ('correlate1d', 'convolve1d', 'uniform1d', 'minimum1d', 'maximum1d', 'generic1d'):
            a = R.randint(-nd, nd - 1); p['axis'] = a
            if f in ('correlate1d', 'convolve1d'):
                w = np.round(rng.standard_normal(R.randint(1, 5)), R.choice([1, 3, 8])); np.save(f'{D}/w_{i}.npy', w); ln = len(w)
            else:
                ln = R.randint(1, 5); p['size'] = ln
            org = R.randint(-(ln // 2), (ln - 1) // 2) if R.random() < 0.5 else 0
            if org: p['origin'] = org
            c1 = dict(mode=mode, cval=cval, origin=org, **out)
            if f == 'correlate1d': call = lambda: ndi.correlate1d(x, w, a, **c1)
            elif f == 'convolve1d': call = lambda: ndi.convolve1d(x, w, a, **c1)
            elif f == 'uniform1d': call = lambda: ndi.uniform_filter1d(x, ln, a, **c1)
            elif f == 'minimum1d': call = lambda: ndi.minimum_filter1d(x, ln, a, **c1)
            elif f == 'maximum1d': call = lambda: ndi.maximum_filter1d(x, ln, a, **c1)
            else:
                name = R.choice(['diff', 'mean']); p['gf'] = name
                ex = (round(R.uniform(-2, 2), 2),) if name == 'diff' else ()
                if ex: p['extra'] = L(ex)
                call = lambda: ndi.generic_filter1d(x, gf1d(name), ln, a, extra_arguments=ex, **c1)
        elif f in ('uniform', 'minimum', 'maximum', 'median', 'rank', 'percentile', 'generic'):
            ax = pick_axes(); na = len(ax) if ax else nd
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            use_fp = f != 'uniform' and R.random() < 0.5
            if use_fp:
                fs = tuple(R.choice([1, 2, 3]) for _ in range(na))
                fpm = rng.random(fs) < 0.6
                if not fpm.any(): fpm.flat[0] = True
                np.save(f'{D}/w_{i}.npy', fpm.astype(float)); p['fp'] = 1; kw['footprint'] = fpm; sizes = fs
            else:
                sizes = [R.choice([1, 2, 3, 4]) for _ in range(na)]
                p['size'] = L(sizes); kw['size'] = sizes
            org = origins(sizes)
            if org: p['origin'] = L(org); kw['origin'] = org
            # SciPy's 1-D rank route ignores a footprint's zeros and reads past lines shorter than
            # the window, and for i64, f32 and f64 inputs writes the input's type into an output
            # of another type (README): its n-D route on x[None] is the reference there
            emb = f in ('median', 'rank', 'percentile') and nd == 1 and (
                use_fp or sizes[0] > shape[0] or (it in ('i64', 'f32', 'f64') and ot not in (None, it)))
            if emb:
                fp1 = kw['footprint'] if use_fp else np.ones(sizes[0], bool)
                x0 = x; x = x0[None]; kw = dict(footprint=fp1[None], origin=[0] + list(kw.get('origin', [0])))
            c = dict(mode=mode, cval=cval, **kw, **out)
            if f == 'uniform': call = lambda: ndi.uniform_filter(x, **c)
            elif f == 'minimum': call = lambda: ndi.minimum_filter(x, **c)
            elif f == 'maximum': call = lambda: ndi.maximum_filter(x, **c)
            elif f == 'median': call = lambda: ndi.median_filter(x, **c)
            elif f == 'rank':
                n = int(np.prod(sizes)) if not use_fp else int(kw['footprint'].sum())
                r = R.randint(-n, n - 1); p['rank'] = r
                call = lambda: ndi.rank_filter(x, r, **c)
            elif f == 'percentile':
                q = round(R.uniform(-100, 100), 1); p['pct'] = q
                call = lambda: ndi.percentile_filter(x, q, **c)
            else:
                name = R.choice(list(GF)); p['gf'] = name
                ex = (round(R.uniform(-2, 2), 2), round(R.uniform(-50, 50), 1)) if name == 'lin' else ()
                if ex: p['extra'] = L(ex)
                call = lambda: ndi.generic_filter(x, GF[name], extra_arguments=ex, **c)
            if emb:
                c0 = call; call = lambda: c0()[0]
        elif f in ('gaussian', 'gaussian1d', 'gaussian_laplace', 'ggm'):
            if f == 'gaussian1d':
                a = R.randint(-nd, nd - 1); p['axis'] = a
                sg = R.choice([0.3, 1.0, 2.2]); p['sigma'] = sg; od = R.randint(0, 3); p['order'] = od
                call = lambda: ndi.gaussian_filter1d(x, sg, a, order=od, mode=mode, cval=cval, **out)
            else:
                ax = pick_axes(); na = len(ax) if ax else nd
                if ax: p['axes'] = L(ax); kw['axes'] = ax
                sig = [R.choice([0.0, 0.5, 1.0, 1.7]) for _ in range(R.choice([1, na]))]; p['sigma'] = L(sig)
                sg = sig if len(sig) > 1 else sig[0]
                if f == 'gaussian' and R.random() < 0.4:
                    o = [R.randint(0, 2) for _ in range(na)]; p['order'] = L(o); kw['order'] = o
                fn = {'gaussian': ndi.gaussian_filter, 'gaussian_laplace': ndi.gaussian_laplace,
                      'ggm': ndi.gaussian_gradient_magnitude}[f]
                call = lambda: fn(x, sg, mode=mode, cval=cval, **kw, **out)
        elif f in ('sobel', 'prewitt'):
            a = R.randint(-nd, nd - 1); p['axis'] = a
            fn = ndi.sobel if f == 'sobel' else ndi.prewitt
            call = lambda: fn(x, a, mode=mode, cval=cval, **out)
        elif f == 'laplace':
            ax = pick_axes()
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            call = lambda: ndi.laplace(x, mode=mode, cval=cval, **kw, **out)
        elif f in FOURIER:
            a = R.randint(-nd, nd - 1); p['axis'] = a
            lo, hi = (-3, 3) if f == 'fshift' else (0.2, 3)
            v = [round(R.uniform(lo, hi), 2) for _ in range(R.choice([1, nd]))]; p['sigma'] = L(v)
            nn = R.choice([None, None, max(1, 2 * shape[a] - R.randint(1, 2)), 2 * shape[a]])
            if nn is not None: p['n'] = nn
            fn = {'fgauss': ndi.fourier_gaussian, 'funiform': ndi.fourier_uniform,
                  'fellipsoid': ndi.fourier_ellipsoid, 'fshift': ndi.fourier_shift}[f]
            call = lambda: fn(x, v if len(v) > 1 else v[0], n=-1 if nn is None else nn, axis=a, **out)
        else:
            o = R.randint(0, 5) if not f.startswith('spline') else R.randint(2, 5); p['ord'] = o
            pf = R.random() < 0.8; p['prefilter'] = int(pf)
            ikw = dict(order=o, mode=mode, cval=cval, prefilter=pf, **out)
            if f == 'spline':
                call = lambda: ndi.spline_filter(x, o, mode=mode, **out)
            elif f == 'spline1d':
                a = R.randint(-nd, nd - 1); p['axis'] = a
                call = lambda: ndi.spline_filter1d(x, o, a, mode=mode, **out)
            else:
                call = transform_call(f, x, shape, p, ikw, R, rng, f'{D}/c_{i}.npy')
    except Exception as e:
        print('gen error', f, e); continue
    lines.append(case_line(i, f, p))
    try: res = (call(), None)
    except Exception as e: res = (None, f'{type(e).__name__}: {e}')
    # the transforms' double results before an integer or bool store, for the ties below
    near = None
    kind = np.dtype(ot_np if ot_np is not None else TYPES.get(it, np.float64)).kind
    if f in ('zoom', 'shift', 'rotate', 'affine', 'map_coordinates') and kind in 'biu' and res[1] is None:
        ikw['output'] = np.float64; near = call()
    cases.append((i, f, p, res, shape, x, near))
run_driver(D, lines)
bad = 0


def spline_ties(x, p):
    """Whether SciPy's spline_filter(1d) into an integer type passes a value within rounding of
    an integer at some axis (its casts truncate between the axes, so a last-bit difference of
    the prefilter moves such a value by one, and the later axes carry that on: README)."""
    o, m, t = p['ord'], p['mode'], TYPES[p['ot']]
    for a in [p['axis']] if 'axis' in p else list(range(x.ndim)):
        v = ndi.spline_filter1d(x, o, a, output=np.float64, mode=m)
        if (np.abs(v - np.round(v)) <= 1e-9 * (1 + np.abs(v))).any():
            return True
        x = ndi.spline_filter1d(x, o, a, output=t, mode=m)
    return False


def transform_ties(v, kind):
    """Whether each double result v lies within rounding of where SciPy's store into an integer
    type (rounded half away from zero) or bool (truncated) changes its value."""
    e = np.abs(v - np.round(v)) if kind == 'b' else np.abs(np.abs(v) % 1 - 0.5)
    return bool((e <= 1e-9 * (1 + np.abs(v))).all())


for i, f, p, (ref, serr), shape, x, near in cases:
    y, oe = ours(D, i)
    msg = raised(serr, y, oe)
    if msg:
        pass
    elif oe == 'PANIC': msg = 'PANIC'
    elif y is not None:
        ref = np.asarray(ref)
        if np.iscomplexobj(ref): ref = np.stack([ref.real, ref.imag], -1)
        if y.shape != ref.shape: msg = f'shape {y.shape} vs {ref.shape}'
        else:
            exact = ref.dtype.kind in 'biu'
            single = ref.dtype in (np.float32, np.complex64) or (ref.dtype == np.float32)
            refd = ref.astype(np.float64)
            # integers past 2^40 (i64): the f64 arithmetic's relative rounding, summed in another order
            top = float(np.abs(refd).max()) if ref.size else 0.0
            tol = (1e-13 * top if top > 2.0 ** 40 else 0) if exact else (4e-6 if single else 1e-9) * max(1.0, float(np.abs(refd).max()) if ref.size else 1.0)
            d = np.abs(y - refd); d[np.isnan(y) & np.isnan(refd)] = 0
            off = ~(d <= tol)
            if ref.size and off.any() and not (exact and (
                    (f.startswith('spline') and spline_ties(x, p))
                    or (near is not None and transform_ties(near[off], ref.dtype.kind)))):
                k = int(np.nanargmax(np.where(np.isnan(d), np.inf, d)))
                nb = int((~(d <= tol)).sum())
                msg = f'{nb} differ, max {np.nanmax(d):.3e} at {np.unravel_index(k, ref.shape)} ours {y.flat[k]} scipy {ref.flat[k]} ({ref.dtype})'
    if msg:
        bad += 1
        print(f'BAD {i} {f} shape={shape} ' + ' '.join(f'{k}={v}' for k, v in p.items()) + f' :: {msg}')
print(f'seed {seed}: {len(cases)} cases, {bad} bad')
