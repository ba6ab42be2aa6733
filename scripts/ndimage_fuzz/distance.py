# Differential fuzz of the distance transforms and label (CPU) against SciPy:
#   python3 scripts/ndimage_fuzz/distance.py SEED COUNT   (see README.md)
import numpy as np, scipy.ndimage as ndi, os, sys, shutil, random, warnings
from common import run_driver, ours, case_line, raised
warnings.simplefilter('ignore')
seed, count = int(sys.argv[1]), int(sys.argv[2])
R = random.Random(seed); rng = np.random.default_rng(seed)
D = f'/tmp/ndimage_fuzz_distance_{seed}'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
L = lambda v: ','.join(str(a) for a in v)
lines = []; cases = []
for i in range(count):
    f = R.choice(['edt', 'bf', 'cdt', 'label'])
    nd = R.choice([1, 2, 2, 3])
    shape = tuple(R.choice([1, 2, 3, 5, 7, 10]) for _ in range(nd))
    x = (rng.random(shape) < R.choice([0.2, 0.5, 0.9])).astype(float)
    if R.random() < 0.3:  # any nonzero value is foreground (NaN and negatives too)
        x = x * rng.choice([1.0, -2.5, 0.3, np.nan, 7.0], shape)
    np.save(f'{D}/in_{i}.npy', x)
    p = {}; idx = None
    try:
        if f in ('edt', 'bf'):
            samp = [round(R.uniform(0.5, 2.5), 2) for _ in range(nd)] if R.random() < 0.4 else None
            if samp: p['sampling'] = L(samp)
            ri = R.random() < 0.5
            if ri: p['idx'] = 1
            if f == 'edt':
                r = ndi.distance_transform_edt(x, sampling=samp, return_indices=ri)
            else:
                m = R.choice(['euclidean', 'taxicab', 'chessboard']); p['metric'] = m
                r = ndi.distance_transform_bf(x, metric=m, sampling=samp, return_indices=ri)
            d, idx = (r if ri else (r, None))
        elif f == 'cdt':
            m = R.choice(['chessboard', 'taxicab']); p['metric'] = m
            if R.random() < 0.3:
                st = ndi.generate_binary_structure(nd, R.randint(1, nd)); np.save(f'{D}/w_{i}.npy', st.astype(float)); p['st'] = 1; m = st
            ri = R.random() < 0.5
            if ri: p['idx'] = 1
            r = ndi.distance_transform_cdt(x, metric=m, return_indices=ri)
            d, idx = (r if ri else (r, None))
        else:
            st = None
            if R.random() < 0.5:
                st = ndi.generate_binary_structure(nd, R.randint(1, nd)); np.save(f'{D}/w_{i}.npy', st.astype(float)); p['st'] = 1
            d, _ = ndi.label(x, st)
        res = (np.asarray(d, float), None if idx is None else np.asarray(idx, float), None)
    except Exception as e:
        res = (None, None, f'{type(e).__name__}: {e}')
    lines.append(case_line(i, f, p))
    cases.append((i, f, p, res, shape))
run_driver(D, lines)
bad = 0
for i, f, p, (d, idx, serr), shape in cases:
    y, oe = ours(D, i)
    msg = raised(serr, y, oe)
    if msg:
        pass
    elif y is not None and f == 'bf' and (np.load(f'{D}/in_{i}.npy') != 0).all():
        if not np.isinf(y).all(): msg = 'no zero element: expected inf'
    elif y is not None:
        if y.shape != d.shape: msg = f'shape {y.shape} vs {d.shape}'
        elif not np.allclose(y, d, 1e-12, 1e-12): msg = f'values differ ({int((~np.isclose(y, d)).sum())} of {d.size})'
        elif idx is not None:
            yi = np.load(f'{D}/idx_{i}.npy')
            if yi.shape != idx.shape: msg = f'idx shape {yi.shape} vs {idx.shape}'
            elif not np.array_equal(yi, idx):
                # an equally near zero element is also right: the distance to our index is d, and it is a zero element
                x = np.load(f'{D}/in_{i}.npy'); nd_ = x.ndim
                grid = np.indices(x.shape).astype(float)
                samp = np.array([float(v) for v in p['sampling'].split(',')]) if 'sampling' in p else np.ones(nd_)
                met = p.get('metric', 'euclidean')
                if f == 'cdt' or met != 'euclidean': samp = np.ones(nd_)
                diff = np.abs(grid - yi) * samp.reshape((nd_,) + (1,) * nd_)
                dd = np.sqrt((diff ** 2).sum(0)) if (f in ('edt', 'bf') and met == 'euclidean') else (diff.sum(0) if met == 'taxicab' else diff.max(0))
                iz = x[tuple(yi.astype(int))] == 0
                if not (np.allclose(dd, y, 1e-12, 1e-12) and iz.all()): msg = f'indices differ and are not equally near'
    if msg:
        bad += 1; print(f'BAD {i} {f} shape={shape} ' + ' '.join(f'{k}={v}' for k, v in p.items()) + f' :: {msg}')
print(f'seed {seed}: {len(cases)} cases, {bad} bad')
