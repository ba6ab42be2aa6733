"""Shared by the differential fuzz scripts: the Rust driver (examples/ndimage_fuzz.rs: reads
DIR/cases.txt, runs each case on the CPU, writes DIR/out_I.npy or DIR/err_I.txt) and its outputs,
the generic filters' closures and the geometric transforms' random calls."""
import os
import subprocess
import sys

import numpy as np
import scipy.ndimage as ndi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def driver_path():
    target = os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target'))
    p = os.environ.get('CUSCI_FUZZ_DRIVER') or os.path.join(target, 'release', 'examples', 'ndimage_fuzz')
    if not os.path.exists(p):
        sys.exit(f'{p} is missing: cargo build --release --example ndimage_fuzz')
    return p


def run_driver(d, lines):
    """Writes the case lines and runs the driver over them."""
    with open(f'{d}/cases.txt', 'w') as f:
        f.write('\n'.join(lines) + '\n')
    r = subprocess.run([driver_path(), d], capture_output=True, text=True)
    if r.returncode:
        sys.exit('driver failed: ' + r.stderr[-2000:])


def ours(d, i):
    """The driver's result of case i: (array or None, error text or None)."""
    e = f'{d}/err_{i}.txt'
    o = f'{d}/out_{i}.npy'
    return (np.load(o) if os.path.exists(o) else None, open(e).read() if os.path.exists(e) else None)


def case_line(i, f, p):
    """The driver's line of case i: index, function, key=value pairs."""
    return f'{i} {f} ' + ' '.join(f'{k}={v}' for k, v in p.items())


def raised(serr, y, oe):
    """A message when exactly one side raised (SciPy's error text, or the driver's), else None."""
    if serr and y is not None:
        return f'scipy raised ({serr[:120]}) but we returned'
    if not serr and oe is not None:
        return f'we raised ({oe[:160]}) but scipy returned'
    return None


# the closures of examples/ndimage_fuzz.rs (generic_fn, generic_fn1d)
GF = {'sum': lambda v, *e: v.sum(), 'range': lambda v, *e: v.max() - v.min(),
      'lin': lambda v, e0, e1: (v * np.arange(1, len(v) + 1)).sum() * e0 + e1, 'first': lambda v, *e: v[0]}


def gf1d(name):
    def diff(a, o, e0):
        s = len(a) - len(o); o[:] = a[s:] * e0 - a[:len(o)] * 1.5 + 0.25
    def mean(a, o, *e):
        s = len(a) - len(o) + 1; o[:] = [a[k:k + s].sum() / s for k in range(len(o))]
    return diff if name == 'diff' else mean


def transform_call(f, x, shape, p, ikw, R, rng, coords_path):
    """A random zoom, shift, rotate, affine_transform or map_coordinates call on x (SciPy's
    arguments from ikw, read when called), its parameters written into p for the driver; the
    coordinates of map_coordinates saved at coords_path."""
    L = lambda v: ','.join(str(a) for a in v)
    nd = len(shape)
    if f == 'zoom':
        z = [round(R.choice([0.3, 0.5, 1.0, 1.5, 2.0, 2.7]), 2) for _ in range(R.choice([1, nd]))]
        gm = R.random() < 0.3 and ikw['mode'] != 'nearest'; p['zoom'] = L(z); p['grid'] = int(gm)
        return lambda: ndi.zoom(x, z if len(z) > 1 else z[0], grid_mode=gm, **ikw)
    if f == 'shift':
        s = [round(R.uniform(-3, 3), 2) for _ in range(R.choice([1, nd]))]; p['shift'] = L(s)
        return lambda: ndi.shift(x, s if len(s) > 1 else s[0], **ikw)
    if f == 'rotate':
        ax = R.sample(range(nd), 2); ang = round(R.uniform(-200, 200), 1); rs = R.random() < 0.5
        p['raxes'] = L(ax); p['angle'] = ang; p['reshape'] = int(rs)
        return lambda: ndi.rotate(x, ang, axes=ax, reshape=rs, **ikw)
    if f == 'affine':
        kind = R.choice(['diag', 'full', 'full1', 'homog'])
        if kind == 'diag': m = np.round(rng.uniform(0.5, 1.5, nd), 3); p['diag'] = 1; p['matrix'] = L(m)
        else:
            m = np.round(np.eye(nd) + rng.uniform(-0.4, 0.4, (nd, nd)), 3)
            if kind == 'full1': m = np.hstack([m, np.round(rng.uniform(-2, 2, (nd, 1)), 3)])
            if kind == 'homog': m = np.vstack([np.hstack([m, np.round(rng.uniform(-2, 2, (nd, 1)), 3)]), np.eye(1, nd + 1, nd)])
            p['matrix'] = L([m.shape[0], m.shape[1]] + list(m.ravel()))
        off = list(np.round(rng.uniform(-2, 2, nd), 3)) if R.random() < 0.5 else None
        if off is not None: p['offset'] = L(off)
        osh = tuple(R.choice([1, 3, 6, 9]) for _ in range(nd)) if R.random() < 0.4 else None
        if osh: p['oshape'] = L(osh)
        return lambda: ndi.affine_transform(x, m, offset=off if off is not None else 0.0, output_shape=osh, **ikw)
    npt = R.choice([1, 5, 17])
    c = np.stack([rng.uniform(-2, s + 1, npt) for s in shape]); np.save(coords_path, c)
    return lambda: ndi.map_coordinates(x, c, **ikw)


def random_shape(R, f):
    """A random shape of 1 to 3 axes (2 or 3 for rotate) of at most 20,000 elements; with
    NDIMAGE_FUZZ_BIG=1 longer axes too (the CPU's chunked and row-by-row paths)."""
    nd = R.choice([1, 2, 2, 3]) if f != 'rotate' else R.choice([2, 2, 3])
    lens = [1, 2, 3, 4, 5, 7, 8, 11] + ([37, 64, 130] if os.environ.get('NDIMAGE_FUZZ_BIG') else [])
    shape = tuple(R.choice(lens) for _ in range(nd))
    while np.prod(shape) > 20000: shape = shape[1:]
    return shape
