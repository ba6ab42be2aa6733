# Differential fuzz of the filters, interpolation and Fourier filters (CPU, f64 and f32) against SciPy:
#   python3 scripts/ndimage_fuzz/filters.py SEED COUNT [FUNC,FUNC,...]   (see README.md)
import numpy as np, scipy.ndimage as ndi, os, sys, shutil, random, warnings
from common import run_driver, ours, case_line, raised, GF, gf1d, transform_call, random_shape
warnings.simplefilter('ignore')
seed, count = int(sys.argv[1]), int(sys.argv[2])
only = sys.argv[3].split(',') if len(sys.argv) > 3 else None
R = random.Random(seed); rng = np.random.default_rng(seed)
D = f'/tmp/ndimage_fuzz_filters_{seed}'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
MODES = ['reflect', 'constant', 'nearest', 'mirror', 'wrap', 'grid-constant', 'grid-mirror', 'grid-wrap']
FUNCS = ['correlate', 'convolve', 'uniform', 'minimum', 'maximum', 'median', 'rank', 'percentile', 'gaussian',
         'gaussian_laplace', 'ggm', 'sobel', 'prewitt', 'laplace', 'zoom', 'shift', 'rotate', 'affine', 'map_coordinates',
         'correlate1d', 'convolve1d', 'gaussian1d', 'uniform1d', 'minimum1d', 'maximum1d', 'fgauss', 'funiform', 'fellipsoid',
         'generic', 'generic1d', 'spline', 'spline1d']
if only: FUNCS = only
L = lambda v: ','.join(str(a) for a in v)
# NDIMAGE_FUZZ_BIG=1: longer windows too (with the longer axes of random_shape)
BIG = bool(os.environ.get('NDIMAGE_FUZZ_BIG'))
WS = [1, 2, 3, 4, 5] + ([7, 9, 12] if BIG else [])
cases = []; lines = []
for i in range(count):
    f = R.choice(FUNCS)
    shape = random_shape(R, f); nd = len(shape)
    x = rng.standard_normal(shape) * 3
    if R.random() < 0.2: x = np.round(x)  # ties for rank filters
    f32 = R.random() < 0.35 and f not in ('fgauss', 'funiform', 'fellipsoid')
    if f32: x = x.astype(np.float32)
    np.save(f'{D}/in_{i}.npy', x.astype(np.float64))
    mode = R.choice(MODES); cval = R.choice([0.0, 1.5, -2.0])
    kw = {}; p = {'mode': mode, 'cval': cval}
    if f32: p['dt'] = 'f32'
    # axes subset for filters
    def pick_axes():
        if R.random() < 0.3 and nd > 1:
            k = R.randint(1, nd); ax = R.sample(range(nd), k)
            ax = [a - nd if R.random() < 0.3 else a for a in ax]
            return ax
        return None
    try:
        if f in ('correlate', 'convolve'):
            ax = pick_axes(); na = len(ax) if ax else nd
            ws = tuple(R.choice([1, 2, 3, 4, 5]) for _ in range(na))
            w = rng.standard_normal(ws); np.save(f'{D}/w_{i}.npy', w)
            org = [R.randint(-(s // 2), (s - 1) // 2) for s in ws] if R.random() < 0.5 else None
            if org: p['origin'] = L(org); kw['origin'] = org
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            fn = ndi.correlate if f == 'correlate' else ndi.convolve
            call = lambda: fn(x, w, mode=mode, cval=cval, **kw)
        elif f == 'uniform' or f in ('minimum', 'maximum', 'median', 'rank', 'percentile'):
            ax = pick_axes(); na = len(ax) if ax else nd
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            use_fp = f != 'uniform' and R.random() < 0.5
            if use_fp:
                fs = tuple(R.choice([1, 2, 3, 4]) for _ in range(na))
                fpm = rng.random(fs) < 0.6
                if not fpm.any(): fpm.flat[0] = True
                np.save(f'{D}/w_{i}.npy', fpm.astype(float)); p['fp'] = 1; kw['footprint'] = fpm; sizes = fs
            else:
                sizes = [R.choice(WS) for _ in range(na)]
                p['size'] = L(sizes); kw['size'] = sizes
            org = [R.randint(-(s // 2), (s - 1) // 2) for s in sizes] if R.random() < 0.4 else None
            if org: p['origin'] = L(org); kw['origin'] = org
            if f in ('uniform', 'minimum', 'maximum') and not use_fp and R.random() < 0.3:
                ms = [R.choice(MODES) for _ in range(na)]; p['modes'] = L(ms); m_arg = ms; del p['mode']
            else: m_arg = mode
            emb = f in ('median', 'rank', 'percentile') and nd == 1
            if emb:  # SciPy 1.17's 1-D rank route ignores the footprint's zeros and reads past
                # short lines: its n-D route on x[None] is the reference
                fp1 = kw['footprint'] if use_fp else np.ones(sizes[0], bool)
                x0 = x; x = x0[None]; kw = dict(footprint=fp1[None], origin=[0] + list(kw.get('origin', [0])))
            if f == 'uniform': call = lambda: ndi.uniform_filter(x, mode=m_arg, cval=cval, **kw)
            elif f == 'minimum': call = lambda: ndi.minimum_filter(x, mode=m_arg, cval=cval, **kw)
            elif f == 'maximum': call = lambda: ndi.maximum_filter(x, mode=m_arg, cval=cval, **kw)
            elif f == 'median': call = lambda: ndi.median_filter(x, mode=m_arg, cval=cval, **kw)
            elif f == 'rank':
                n = int(np.prod(sizes)) if not use_fp else int(kw['footprint'].sum())
                r = R.randint(-n, n - 1); p['rank'] = r
                call = lambda: ndi.rank_filter(x, r, mode=m_arg, cval=cval, **kw)
            else:
                q = round(R.uniform(-100, 100), 1); p['pct'] = q
                call = lambda: ndi.percentile_filter(x, q, mode=m_arg, cval=cval, **kw)
            if emb:
                c0 = call; call = lambda: c0()[0]
        elif f in ('gaussian', 'gaussian_laplace', 'ggm'):
            ax = pick_axes(); na = len(ax) if ax else nd
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            sig = [round(R.choice([0.0, 0.5, 1.0, 1.7, 3.0] + ([6.5] if BIG else [])), 2) for _ in range(R.choice([1, na]))]
            p['sigma'] = L(sig)
            if R.random() < 0.3: t = R.choice([1.0, 2.5]); p['truncate'] = t; kw['truncate'] = t
            if R.random() < 0.2 and (f == 'gaussian' or na == nd): rad = [R.randint(0, 4) for _ in range(na)]; p['radius'] = L(rad); kw['radius'] = rad if len(rad) > 1 else rad[0]
            m_arg = mode
            if f == 'gaussian':
                if R.random() < 0.5: o = [R.randint(0, 3) for _ in range(na)]; p['order'] = L(o); kw['order'] = o
                if R.random() < 0.3: ms = [R.choice(MODES) for _ in range(na)]; p['modes'] = L(ms); m_arg = ms; del p['mode']
                call = lambda: ndi.gaussian_filter(x, sig if len(sig) > 1 else sig[0], mode=m_arg, cval=cval, **kw)
            elif f == 'gaussian_laplace': call = lambda: ndi.gaussian_laplace(x, sig if len(sig) > 1 else sig[0], mode=mode, cval=cval, **kw)
            else: call = lambda: ndi.gaussian_gradient_magnitude(x, sig if len(sig) > 1 else sig[0], mode=mode, cval=cval, **kw)
        elif f in ('correlate1d', 'convolve1d', 'gaussian1d', 'uniform1d', 'minimum1d', 'maximum1d'):
            a = R.randint(-nd, nd - 1); p['axis'] = a
            if f in ('correlate1d', 'convolve1d'):
                w = rng.standard_normal(R.randint(1, 6 if not BIG else 15)); np.save(f'{D}/w_{i}.npy', w); ln = len(w)
            elif f != 'gaussian1d':
                ln = R.randint(1, 6 if not BIG else 15); p['size'] = ln
            if f != 'gaussian1d':
                org = R.randint(-(ln // 2), (ln - 1) // 2) if R.random() < 0.5 else 0
                if org: p['origin'] = org
            if f == 'correlate1d': call = lambda: ndi.correlate1d(x, w, a, mode=mode, cval=cval, origin=org)
            elif f == 'convolve1d': call = lambda: ndi.convolve1d(x, w, a, mode=mode, cval=cval, origin=org)
            elif f == 'uniform1d': call = lambda: ndi.uniform_filter1d(x, ln, a, mode=mode, cval=cval, origin=org)
            elif f == 'minimum1d': call = lambda: ndi.minimum_filter1d(x, ln, a, mode=mode, cval=cval, origin=org)
            elif f == 'maximum1d': call = lambda: ndi.maximum_filter1d(x, ln, a, mode=mode, cval=cval, origin=org)
            else:
                sg = R.choice([0.3, 1.0, 2.2]); p['sigma'] = sg; od = R.randint(0, 3); p['order'] = od
                kw = {}
                if R.random() < 0.3: t = R.choice([1.0, 2.5]); p['truncate'] = t; kw['truncate'] = t
                if R.random() < 0.2: rad = R.randint(0, 4); p['radius'] = rad; kw['radius'] = rad
                call = lambda: ndi.gaussian_filter1d(x, sg, a, order=od, mode=mode, cval=cval, **kw)
        elif f == 'generic':
            ax = pick_axes(); na = len(ax) if ax else nd
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            if R.random() < 0.5:
                fs = tuple(R.choice([1, 2, 3]) for _ in range(na)); fpm = rng.random(fs) < 0.6
                if not fpm.any(): fpm.flat[0] = True
                np.save(f'{D}/w_{i}.npy', fpm.astype(float)); p['fp'] = 1; kw['footprint'] = fpm; sizes = fs
            else:
                sizes = [R.choice([1, 2, 3, 4]) for _ in range(na)]; p['size'] = L(sizes); kw['size'] = sizes
            if R.random() < 0.4:
                org = [R.randint(-(s // 2), (s - 1) // 2) for s in sizes]; p['origin'] = L(org); kw['origin'] = org
            name = R.choice(list(GF)); p['gf'] = name
            ex = (round(R.uniform(-2, 2), 2), round(R.uniform(-50, 50), 1)) if name == 'lin' else ()
            if ex: p['extra'] = L(ex)
            call = lambda: ndi.generic_filter(x, GF[name], mode=mode, cval=cval, extra_arguments=ex, **kw)
        elif f == 'generic1d':
            a = R.randint(-nd, nd - 1); p['axis'] = a; ln = R.randint(1, 5); p['size'] = ln
            org = R.randint(-(ln // 2), (ln - 1) // 2) if R.random() < 0.5 else 0
            if org: p['origin'] = org
            name = R.choice(['diff', 'mean']); p['gf'] = name
            ex = (round(R.uniform(-2, 2), 2),) if name == 'diff' else ()
            if ex: p['extra'] = L(ex)
            call = lambda: ndi.generic_filter1d(x, gf1d(name), ln, a, mode=mode, cval=cval, origin=org, extra_arguments=ex)
        elif f in ('spline', 'spline1d'):
            o = R.randint(2, 5); p['ord'] = o
            if f == 'spline': call = lambda: ndi.spline_filter(x, o, mode=mode)
            else:
                a = R.randint(-nd, nd - 1); p['axis'] = a
                call = lambda: ndi.spline_filter1d(x, o, a, mode=mode)
        elif f in ('fgauss', 'funiform', 'fellipsoid'):
            a = R.randint(-nd, nd - 1); p['axis'] = a
            v = [round(R.uniform(0.2, 3), 2) for _ in range(R.choice([1, nd]))]; p['sigma'] = L(v)
            nn = R.choice([None, None, max(1, 2 * shape[a] - R.randint(1, 2)), 2 * shape[a]])
            if nn is not None: p['n'] = nn
            fn = {'fgauss': ndi.fourier_gaussian, 'funiform': ndi.fourier_uniform, 'fellipsoid': ndi.fourier_ellipsoid}[f]
            call = lambda: fn(x, v if len(v) > 1 else v[0], n=-1 if nn is None else nn, axis=a)
        elif f in ('sobel', 'prewitt'):
            a = R.randint(-nd, nd - 1); p['axis'] = a
            fn = ndi.sobel if f == 'sobel' else ndi.prewitt
            call = lambda: fn(x, a, mode=mode, cval=cval)
        elif f == 'laplace':
            ax = pick_axes()
            if ax: p['axes'] = L(ax); kw['axes'] = ax
            call = lambda: ndi.laplace(x, mode=mode, cval=cval, **kw)
        else:
            o = R.randint(0, 5); p['ord'] = o
            pf = R.random() < 0.8; p['prefilter'] = int(pf)
            ikw = dict(order=o, mode=mode, cval=cval, prefilter=pf)
            call = transform_call(f, x, shape, p, ikw, R, rng, f'{D}/c_{i}.npy')
    except Exception as e:
        print('gen error', f, e); continue
    lines.append(case_line(i, f, p))
    try: res = (call(), None)
    except Exception as e: res = (None, f'{type(e).__name__}: {e}')
    cases.append((i, f, p, res, shape))
run_driver(D, lines)
bad = 0
for i, f, p, (ref, serr), shape in cases:
    y, oe = ours(D, i)
    msg = raised(serr, y, oe)
    if msg:
        pass
    elif oe == 'PANIC': msg = 'PANIC'
    elif y is not None:
        ref = np.asarray(ref)
        if y.shape != ref.shape: msg = f'shape {y.shape} vs {ref.shape}'
        else:
            tol = (4e-6 if p.get('dt') == 'f32' else 1e-9) * max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
            # f32 in, f32 out (spline_filter's default output is float64)
            if p.get('dt') == 'f32' and ref.dtype != np.float32 and not f.startswith('spline'): msg = f'scipy dtype {ref.dtype}'
            d = np.abs(y - ref); d[np.isnan(y) & np.isnan(ref)] = 0
            if ref.size and not (d <= tol).all():
                k = int(np.nanargmax(np.where(np.isnan(d), np.inf, d)))
                msg = f'max diff {np.nanmax(d):.3e} at {np.unravel_index(k, ref.shape)} ours {y.flat[k]} scipy {ref.flat[k]}'
    if msg:
        bad += 1
        print(f'BAD {i} {f} shape={shape} ' + ' '.join(f'{k}={v}' for k, v in p.items()) + f' :: {msg}')
print(f'seed {seed}: {len(cases)} cases, {bad} bad')
