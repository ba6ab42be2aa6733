"""Differential fuzz of cusci-signal against SciPy: random calls on the CPU (the driver
examples/signal_fuzz.rs) compared with scipy.signal on the same inputs.

    python3 scripts/signal_fuzz/fuzz.py SEED COUNT [FUNCTIONS]

FUNCTIONS is a comma list (default: all of FAMILIES). Prints one BAD line per case where the two
differ (values, shapes, or one side raising) and a count per function. Cases, inputs and outputs
stay in /tmp/signal_fuzz_SEED/."""
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import scipy.signal as ss

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAMILIES = ['lfilter', 'sosfilt', 'filtfilt', 'sosfiltfilt', 'medfilt', 'wiener', 'savgol', 'convolve',
            'correlate', 'fftconvolve', 'oaconvolve', 'convolve2d', 'correlate2d', 'welch', 'periodogram',
            'csd', 'coherence', 'spectrogram', 'resample', 'resample_poly', 'upfirdn', 'decimate',
            'find_peaks']
WINDOWS = ['hann', 'hamming', 'boxcar', 'blackman', 'bartlett', 'flattop', 'triang', 'cosine']


def driver():
    target = os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target'))
    p = os.environ.get('CUSCI_FUZZ_DRIVER') or os.path.join(target, 'release', 'examples', 'signal_fuzz')
    if not os.path.exists(p):
        sys.exit(f'{p} is missing: cargo build --release --example signal_fuzz')
    return p


def shape(R, nd_max=3, total=6000):
    nd = R.choice([1, 1, 2, 3][:nd_max + 1] if nd_max > 1 else [1])
    s = [R.choice([1, 2, 3, 5, 8, 17, 64, 129, 300]) for _ in range(nd)]
    while np.prod(s) > total:
        s = s[1:]
    return tuple(s)


def stable_ba(R, rng):
    """A random stable IIR filter (b, a), order 1 to 6, from poles inside the unit circle."""
    order = R.randint(1, 6)
    r = rng.uniform(0.1, 0.95, order)
    th = rng.uniform(0, np.pi, order)
    poles = r * np.exp(1j * th)
    poles = np.concatenate([poles[: order // 2], np.conj(poles[: order // 2]), r[order // 2 * 2:order]]) \
        if order % 2 else np.concatenate([poles[: order // 2], np.conj(poles[: order // 2])])
    a = np.real(np.poly(poles))
    b = rng.normal(size=R.randint(1, order + 1))
    return b, a


def case(R, rng, f, d, i):
    """Saves the inputs of one random case of f under d; returns (driver params, SciPy call)."""
    p = {}
    sv = lambda name, v: np.save(f'{d}/{name}_{i}.npy', np.asarray(v, dtype=np.float64))
    ax = lambda s: R.randrange(-len(s), len(s))
    if f in ('lfilter', 'filtfilt'):
        b, a = stable_ba(R, rng)
        if R.random() < 0.25:
            a = np.array([R.choice([1.0, 2.0, -0.5])])  # FIR
        s = shape(R); x = rng.normal(size=s); sv('b', b); sv('a', a); sv('x', x)
        p['axis'] = ax(s)
        if f == 'lfilter':
            return p, lambda: ss.lfilter(b, a, x, axis=p['axis'])
        kw = dict(axis=p['axis'])
        if R.random() < 0.3:
            p['method'] = kw['method'] = 'gust'
        else:
            pt = R.choice(['odd', 'even', 'constant', 'none']); p['padtype'] = pt
            kw['padtype'] = None if pt == 'none' else pt
            if R.random() < 0.4:
                p['padlen'] = kw['padlen'] = R.choice([0, 1, 3, 10, 40])
        return p, lambda: ss.filtfilt(b, a, x, **kw)
    if f in ('sosfilt', 'sosfiltfilt'):
        n = R.randint(1, 8); kind = R.choice(['butter', 'cheby1', 'ellip'])
        wn = R.uniform(0.05, 0.9)
        sos = {'butter': lambda: ss.butter(n, wn, output='sos'),
               'cheby1': lambda: ss.cheby1(n, 1, wn, output='sos'),
               'ellip': lambda: ss.ellip(n, 1, 40, wn, output='sos')}[kind]()
        s = shape(R); x = rng.normal(size=s); sv('sos', sos); sv('x', x); p['axis'] = ax(s)
        if f == 'sosfilt':
            return p, lambda: ss.sosfilt(sos, x, axis=p['axis'])
        pt = R.choice(['odd', 'even', 'constant', 'none']); p['padtype'] = pt
        kw = dict(axis=p['axis'], padtype=None if pt == 'none' else pt)
        if R.random() < 0.4:
            p['padlen'] = kw['padlen'] = R.choice([0, 1, 3, 10, 40])
        return p, lambda: ss.sosfiltfilt(sos, x, **kw)
    if f == 'medfilt':
        s = shape(R, total=3000); x = rng.normal(size=s); sv('x', x)
        ks = [R.choice([1, 3, 5]) for _ in s] if R.random() < 0.6 else [R.choice([1, 3, 5, 7])]
        p['ks'] = ','.join(map(str, ks))
        return p, lambda: ss.medfilt(x, ks if len(ks) > 1 else ks[0])
    if f == 'wiener':
        s = shape(R, total=3000); x = rng.normal(size=s); sv('x', x)
        kw = {}
        if R.random() < 0.6:
            m = [R.choice([1, 3, 5]) for _ in s]; p['mysize'] = ','.join(map(str, m)); kw['mysize'] = m
        if R.random() < 0.4:
            p['noise'] = kw['noise'] = round(R.uniform(0.01, 2), 3)
        return p, lambda: ss.wiener(x, **kw)
    if f == 'savgol':
        s = shape(R); x = rng.normal(size=s); sv('x', x); p['axis'] = ax(s)
        wl = R.choice([3, 5, 7, 9, 11, 21]); po = R.randint(0, min(wl - 1, 5))
        mode = R.choice(['interp', 'mirror', 'constant', 'nearest', 'wrap'])
        p.update(wl=wl, po=po, mode=mode, deriv=R.choice([0, 0, 1, 2]), delta=R.choice([1.0, 0.5]))
        if mode == 'constant':
            p['cval'] = round(R.uniform(-2, 2), 2)
        return p, lambda: ss.savgol_filter(x, wl, po, deriv=p['deriv'], delta=p['delta'], axis=p['axis'],
                                           mode=mode, cval=p.get('cval', 0.0))
    if f in ('convolve', 'correlate', 'fftconvolve', 'oaconvolve'):
        nd = R.choice([1, 1, 2, 3])
        sa = tuple(R.choice([1, 2, 5, 9, 33, 100]) for _ in range(nd))
        sb = tuple(R.choice([1, 2, 3, 7, 12]) for _ in range(nd))
        if np.prod(sa) > 20000:
            sa = tuple(min(v, 9) for v in sa)
        mode = R.choice(['full', 'same', 'valid']); p['mode'] = mode
        if mode == 'valid' and R.random() < 0.7:  # SciPy needs one input to contain the other
            sa, sb = tuple(max(u, v) for u, v in zip(sa, sb)), sb
        x = rng.normal(size=sa); v = rng.normal(size=sb); sv('x', x); sv('v', v)
        if f in ('convolve', 'correlate'):
            m = R.choice(['auto', 'direct', 'fft']); p['method'] = m
            g = ss.convolve if f == 'convolve' else ss.correlate
            return p, lambda: g(x, v, mode=mode, method=m)
        if f == 'fftconvolve':
            return p, lambda: ss.fftconvolve(x, v, mode=mode)
        axes = None
        if nd > 1 and R.random() < 0.4:
            axes = sorted(R.sample(range(nd), R.randint(1, nd)))
            v = rng.normal(size=tuple(sb[k] if k in axes else (sa[k] if R.random() < 0.5 else 1) for k in range(nd)))
            sv('v', v); p['axes'] = ','.join(map(str, axes))
        return p, lambda: ss.oaconvolve(x, v, mode=mode, axes=axes)
    if f in ('convolve2d', 'correlate2d'):
        sa = (R.choice([1, 3, 8, 31]), R.choice([1, 4, 9, 40])); sb = (R.choice([1, 2, 3, 5]), R.choice([1, 2, 4, 6]))
        mode = R.choice(['full', 'same', 'valid']); bd = R.choice(['fill', 'wrap', 'symm'])
        if mode == 'valid':
            sa = tuple(max(u, v) for u, v in zip(sa, sb))
        fv = round(R.uniform(-2, 2), 2) if bd == 'fill' and R.random() < 0.5 else 0.0
        x = rng.normal(size=sa); v = rng.normal(size=sb); sv('x', x); sv('v', v)
        p.update(mode=mode, boundary=bd, fillvalue=fv)
        g = ss.convolve2d if f == 'convolve2d' else ss.correlate2d
        return p, lambda: g(x, v, mode=mode, boundary=bd, fillvalue=fv)
    if f in ('welch', 'periodogram', 'csd', 'coherence', 'spectrogram'):
        s = shape(R, nd_max=2, total=8000)
        axis = ax(s); n = s[axis]
        x = rng.normal(size=s); sv('x', x)
        kw = dict(fs=R.choice([1.0, 2.0, 100.0]), axis=axis,
                  detrend=R.choice(['constant', 'linear', False]), scaling=R.choice(['density', 'spectrum']),
                  return_onesided=R.random() < 0.8)
        p.update(fs=kw['fs'], axis=axis, detrend=kw['detrend'] or 'none', scaling=kw['scaling'],
                 onesided=int(kw['return_onesided']))
        if f == 'periodogram':
            if R.random() < 0.5:
                p['window'] = kw['window'] = R.choice(WINDOWS)
            if R.random() < 0.3:
                p['nfft'] = kw['nfft'] = R.choice([n, n + 3, 2 * n + 1])
            return p, lambda: ss.periodogram(x, **kw)
        kw['window'] = p['window'] = R.choice(WINDOWS)
        if R.random() < 0.7:
            kw['nperseg'] = p['nperseg'] = R.choice([1, 4, 16, 31, 64, 256])
            nps = min(kw['nperseg'], n)
            if R.random() < 0.5:
                kw['noverlap'] = p['noverlap'] = R.randrange(0, max(nps, 1))
            if R.random() < 0.3:
                kw['nfft'] = p['nfft'] = nps + R.choice([0, 1, 7])
        if f == 'welch':
            kw['average'] = p['average'] = R.choice(['mean', 'median'])
            return p, lambda: ss.welch(x, **kw)
        if f in ('csd', 'coherence'):
            y = rng.normal(size=s); sv('y', y)
            if f == 'csd':
                kw['average'] = p['average'] = R.choice(['mean', 'median'])
                return p, lambda: ss.csd(x, y, **kw)
            del kw['scaling'], kw['return_onesided']; p.pop('scaling'); p.pop('onesided')
            def coh():
                # bins where a power spectrum is at rounding level are 0/0 (SciPy's NaN) or
                # rounding over rounding: left out
                f_, c = ss.coherence(x, y, **kw)
                wk = {k: v for k, v in kw.items()}
                pxx, pyy = ss.welch(x, **wk)[1], ss.welch(y, **wk)[1]
                tiny = lambda q: q <= 1e-12 * max(np.max(q, initial=0), 1.0)  # inputs of unit variance
                return f_, np.where(tiny(pxx) | tiny(pyy), np.nan, c)
            return p, coh
        kw['mode'] = p['smode'] = R.choice(['psd', 'complex', 'magnitude', 'angle'])
        if kw['mode'] == 'angle':
            # angles of values at rounding level are noise (0 or pi): compared as unit vectors,
            # where the complex spectrum is above rounding
            def angle():
                f_, t_, s_ = ss.spectrogram(x, **kw)
                z = ss.spectrogram(x, **{**kw, 'mode': 'complex'})[2]
                return f_, t_, np.where(np.abs(z) > 1e-9 * max(np.abs(z).max(initial=0), 1.0), np.exp(1j * s_), np.nan)
            return p, angle
        return p, lambda: ss.spectrogram(x, **kw)
    if f == 'resample':
        s = shape(R); x = rng.normal(size=s); sv('x', x); axis = ax(s)
        num = R.choice([1, 2, 7, s[axis], 2 * s[axis] + 1, max(1, s[axis] // 3)])
        p.update(axis=axis, num=num)
        return p, lambda: ss.resample(x, num, axis=axis)
    if f == 'resample_poly':
        s = shape(R); x = rng.normal(size=s); sv('x', x); axis = ax(s)
        up, down = R.choice([1, 2, 3, 5]), R.choice([1, 2, 3, 7])
        pt = R.choice(['constant', 'edge', 'line', 'wrap', 'symmetric', 'reflect', 'mean', 'median', 'maximum', 'minimum'])
        if pt == 'reflect' and s[axis] == 1:
            pt = 'edge'  # SciPy 1.17.1 dies of SIGFPE (a modulo by zero) reflecting a length-1 axis
        p.update(axis=axis, up=up, down=down, padtype=pt)
        kw = dict(axis=axis, padtype=pt)
        if pt == 'constant' and R.random() < 0.5:
            p['cval'] = kw['cval'] = round(R.uniform(-1, 1), 2)
        return p, lambda: ss.resample_poly(x, up, down, **kw)
    if f == 'upfirdn':
        s = shape(R); x = rng.normal(size=s); sv('x', x); axis = ax(s)
        h = rng.normal(size=R.choice([1, 2, 5, 8, 13])); sv('h', h)
        up, down = R.choice([1, 2, 3, 4]), R.choice([1, 2, 3, 5])
        mode = R.choice(['constant', 'edge', 'line', 'wrap', 'symmetric', 'reflect'])
        if mode == 'reflect' and s[axis] == 1:
            mode = 'edge'  # as in resample_poly: SciPy's SIGFPE
        cval = round(R.uniform(-1, 1), 2) if mode == 'constant' else 0.0
        p.update(axis=axis, up=up, down=down, mode=mode, cval=cval)
        return p, lambda: ss.upfirdn(h, x, up, down, axis=axis, mode=mode, cval=cval)
    if f == 'decimate':
        s = shape(R); s = s[:-1] + (max(s[-1], 40),); x = rng.normal(size=s); sv('x', x); axis = -1
        q = R.choice([2, 3, 4, 5, 13]); ft = R.choice(['iir', 'fir']); zp = R.random() < 0.7
        p.update(axis=axis, q=q, ftype=ft, zero_phase=int(zp))
        kw = dict(ftype=ft, axis=axis, zero_phase=zp)
        if R.random() < 0.3:
            p['n'] = kw['n'] = R.choice([2, 4, 6]) if ft == 'iir' else R.choice([10, 20, 31])
        return p, lambda: ss.decimate(x, q, **kw)
    if f == 'find_peaks':
        n = R.choice([1, 3, 10, 100, 1000])
        # `distance` keeps the higher of two close peaks; between equal heights SciPy's pick
        # follows NumPy's unstable argsort, so its cases have no repeated values
        dist = R.choice([1, 2, 5, 20]) if R.random() < 0.3 else None
        x = rng.normal(size=n).cumsum()
        if dist is None:
            x = np.round(x, R.choice([0, 1, 3]))
        sv('x', x)
        kw = {}
        def cond(k, lo, hi):
            if R.random() < 0.35:
                a = round(R.uniform(lo, hi), 2)
                if R.random() < 0.3:
                    b = round(a + R.uniform(0, hi - lo), 2); p[k] = f'{a}:{b}'; kw[k] = (a, b)
                else:
                    p[k] = a; kw[k] = a
        cond('height', -2, 2); cond('threshold', 0, 1); cond('prominence', 0, 3); cond('width', 0, 5)
        cond('plateau_size', 1, 3)
        if dist is not None:
            p['distance'] = kw['distance'] = dist
        if 'prominence' in kw and R.random() < 0.3:
            p['wlen'] = kw['wlen'] = R.choice([3, 5, 21])
        if 'width' in kw and R.random() < 0.3:
            p['rel_height'] = kw['rel_height'] = R.choice([0.25, 1.0])
        def call():
            pk, pr = ss.find_peaks(x, **kw)
            out = [pk.astype(float)]
            for k in ['plateau_sizes', 'left_bases', 'right_bases', 'peak_heights', 'prominences', 'widths',
                      'left_ips', 'right_ips']:
                if k in pr:
                    out.append(np.asarray(pr[k], dtype=float))
            return tuple(out)
        return p, call
    raise ValueError(f)


def excused(f, line, d, i, serr):
    """Differences on purpose (crates/signal/README.md): filtfilt of an order-0 filter (b and a
    of one coefficient), where SciPy's lfilter_zi raises from linalg.companion and cusci filters;
    line-mode extension of a length-1 axis in upfirdn and resample_poly, where SciPy's slope is
    0/0 (NaN) and cusci's extension is the constant."""
    if f == 'filtfilt' and serr and 'length of `a`' in serr:
        return np.load(f'{d}/b_{i}.npy').size == 1 and np.load(f'{d}/a_{i}.npy').size == 1
    if f in ('upfirdn', 'resample_poly') and ('mode=line' in line or 'padtype=line' in line):
        x = np.load(f'{d}/x_{i}.npy')
        ax = int(line.split('axis=')[1].split()[0])
        return x.shape[ax] == 1
    return False


def as_list(r):
    if isinstance(r, tuple):
        return [np.asarray(v) for v in r]
    return [np.asarray(r)]


def real_view(v):
    v = np.asarray(v)
    return np.stack([v.real, v.imag], -1) if np.iscomplexobj(v) else v.astype(float)


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    fams = sys.argv[3].split(',') if len(sys.argv) > 3 else FAMILIES
    R = random.Random(seed); rng = np.random.default_rng(seed)
    d = f'/tmp/signal_fuzz_{seed}'
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    lines, calls = [], []
    for i in range(count):
        f = fams[i % len(fams)]
        p, call = case(R, rng, f, d, i)
        lines.append(f'{i} {f} ' + ' '.join(f'{k}={v}' for k, v in p.items()))
        calls.append((f, call))
    with open(f'{d}/cases.txt', 'w') as fh:
        fh.write('\n'.join(lines) + '\n')
    r = subprocess.run([driver(), d], capture_output=True, text=True)
    if r.returncode:
        sys.exit('driver failed: ' + r.stderr[-2000:])
    bad = {}
    import warnings
    warnings.simplefilter('ignore')
    for i, (f, call) in enumerate(calls):
        try:
            want, serr = [real_view(v) for v in as_list(call())], None
        except Exception as e:  # SciPy's error: ours must raise too
            want, serr = None, f'{type(e).__name__}: {e}'
        if excused(f, lines[i], d, i, serr):
            continue
        e = f'{d}/err_{i}.txt'
        oerr = open(e).read() if os.path.exists(e) else None
        got = []
        k = 0
        while os.path.exists(f'{d}/out_{i}_{k}.npy'):
            got.append(np.load(f'{d}/out_{i}_{k}.npy')); k += 1
        if 'smode=angle' in lines[i] and len(got) == 3 and want:
            keep = ~np.isnan(want[2][..., 0])
            got[2] = np.where(keep, np.exp(1j * got[2]), np.nan)
            got[2] = np.stack([got[2].real, got[2].imag], -1)
        if f == 'coherence' and len(got) == 2 and want:
            got[1] = np.where(np.isnan(want[1]), np.nan, got[1])
        msg = None
        if oerr == 'PANIC':
            msg = 'PANIC'
        elif serr and oerr is None:
            msg = f'scipy raised ({serr[:120]}) but we returned'
        elif not serr and oerr is not None:
            msg = f'we raised ({oerr[:160]}) but scipy returned'
        elif not serr:
            if len(got) != len(want):
                msg = f'{len(got)} outputs, scipy {len(want)}'
            for k, (g, w) in enumerate(zip(got, want)):
                if msg:
                    break
                if g.shape != w.shape:
                    msg = f'output {k}: shape {g.shape}, scipy {w.shape}'
                elif not np.allclose(g, w, rtol=1e-7, atol=1e-9 * max(1.0, np.nanmax(np.abs(w), initial=0)), equal_nan=True):
                    err = np.nanmax(np.abs(g - w)) if g.size else 0
                    msg = f'output {k}: max abs diff {err:.3g} (scale {np.nanmax(np.abs(w), initial=0):.3g})'
        if msg:
            bad.setdefault(f, 0); bad[f] += 1
            print(f'BAD {lines[i]} :: {msg}')
    print(f'{count} cases, {sum(bad.values())} bad: {bad}')


if __name__ == '__main__':
    main()
