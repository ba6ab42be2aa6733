"""Shared by the differential fuzz scripts: the Rust driver (examples/ndimage_fuzz.rs: reads
DIR/cases.txt, runs each case on the CPU, writes DIR/out_I.npy or DIR/err_I.txt) and its outputs."""
import os
import subprocess
import sys

import numpy as np

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
