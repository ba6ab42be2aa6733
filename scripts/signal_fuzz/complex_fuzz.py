#!/usr/bin/env python3
"""Differential fuzz of cusci-signal's complex spectral input against SciPy (issue 32).

    python3 scripts/signal_fuzz/complex_fuzz.py SEED COUNT     # writes /tmp/cfuzz/SEED
    CUSCI_CFUZZ=SEED cargo test -p cusci-signal --test signal complex_fuzz -- --ignored --nocapture

Random complex inputs (1-D and 2-D, either axis) and options for welch, csd, coherence,
periodogram, spectrogram (psd, complex, magnitude, phase), stft and istft (two-sided,
input_onesided=False); SciPy's outputs (or its error) are stored beside the inputs, and the Rust
test (`crates/signal/tests/complex_fuzz.rs`, ignored by default) runs every case on every device
and prints one BAD line per difference (relative 1e-9 of the output's scale). Left out, as in
fuzz.py: coherence bins whose power spectra are at rounding level and spectrogram phase columns
holding a value at rounding level (their angles are noise, and unwrap carries it down the column).
"""
import numpy as np, scipy.signal as ss, random, sys, os, warnings
warnings.simplefilter('ignore')
seed, count = int(sys.argv[1]), int(sys.argv[2])
R = random.Random(seed); rng = np.random.default_rng(seed)
d = f'/tmp/cfuzz/{seed}'; os.makedirs(d, exist_ok=True)
for f in os.listdir(d): os.remove(f'{d}/{f}')
WINDOWS = ['hann', 'hamming', 'boxcar', 'blackman']
FUNCS = ['welch', 'csd', 'coherence', 'periodogram', 'spectrogram', 'stft', 'istft']
lines = []
for i in range(count):
    f = FUNCS[i % len(FUNCS)]
    nd = R.choice([1, 1, 2])
    n = R.choice([1, 5, 16, 33, 100, 257])
    s = (n,) if nd == 1 else ((R.choice([1, 3]), n) if R.random() < 0.5 else (n, R.choice([1, 3])))
    axis = -1 if nd == 1 else (1 if s[1] == n else 0)
    if R.random() < 0.5 and nd == 2:
        axis = axis - 2
    x = rng.normal(size=s) + 1j * rng.normal(size=s)
    np.save(f'{d}/x_{i}.npy', x)
    p = dict(axis=axis)
    kw = dict(axis=axis)
    kw['fs'] = p['fs'] = R.choice([1.0, 2.0, 100.0])
    kw['window'] = p['window'] = R.choice(WINDOWS)
    if R.random() < 0.8:
        kw['nperseg'] = p['nperseg'] = R.choice([1, 4, 16, 31, 64])
        nps = min(kw['nperseg'], n)
        if R.random() < 0.5:
            kw['noverlap'] = p['noverlap'] = R.randrange(0, max(nps, 1))
        if R.random() < 0.3:
            kw['nfft'] = p['nfft'] = nps + R.choice([0, 1, 7])
    if f != 'stft' and f != 'istft':
        kw['detrend'] = R.choice(['constant', 'linear', False]); p['detrend'] = kw['detrend'] or 'none'
    if f in ('welch', 'csd', 'periodogram', 'spectrogram'):
        sc = R.choice(['density', 'spectrum']); kw['scaling'] = sc; p['scaling'] = sc
    if f in ('stft', 'istft'):
        sc = R.choice(['psd', 'spectrum']); kw['scaling'] = sc; p['scaling'] = 'density' if sc == 'psd' else sc
    if f in ('welch', 'csd'):
        kw['average'] = p['average'] = R.choice(['mean', 'median'])
    try:
        if f == 'welch': out = ss.welch(x, **kw)
        elif f == 'periodogram':
            for k in ('nperseg', 'noverlap'): kw.pop(k, None); p.pop(k, None)
            out = ss.periodogram(x, **kw)
        elif f in ('csd', 'coherence'):
            y = rng.normal(size=s) + 1j * rng.normal(size=s); np.save(f'{d}/y_{i}.npy', y)
            out = (ss.csd if f == 'csd' else ss.coherence)(x, y, **kw)
            if f == 'coherence':
                pxx, pyy = ss.welch(x, **kw)[1], ss.welch(y, **kw)[1]
                tiny = lambda q: q <= 1e-12 * max(np.max(q, initial=0), 1.0)
                out = (out[0], np.where(tiny(pxx) | tiny(pyy), np.nan, out[1]))
        elif f == 'spectrogram':
            kw['mode'] = p['smode'] = R.choice(['psd', 'complex', 'magnitude', 'phase'])
            out = ss.spectrogram(x, **kw)
            if kw['mode'] == 'phase':
                z = ss.spectrogram(x, **{**kw, 'mode': 'complex'})[2]
                fa = axis - 1 if axis < 0 else axis
                bad = np.any(np.abs(z) <= 1e-9 * max(np.abs(z).max(initial=0), 1.0), axis=fa, keepdims=True)
                out = (out[0], out[1], np.where(bad, np.nan, out[2]))
        elif f == 'stft':
            kw['boundary'] = R.choice(['zeros', 'even', 'odd', 'constant', None]); p['boundary'] = kw['boundary'] or 'none'
            kw['padded'] = R.random() < 0.5; p['padded'] = int(kw['padded'])
            out = ss.stft(x, **kw)
        else:  # istft of a random two-sided array (freq, time)
            nf = kw.get('nfft', kw.get('nperseg', R.choice([4, 8, 9])))
            z = rng.normal(size=(nf, 5)) + 1j * rng.normal(size=(nf, 5))
            np.save(f'{d}/x_{i}.npy', z)
            kw.pop('axis'); p.pop('axis')
            kw['boundary'] = R.random() < 0.5; p['bnd'] = int(kw['boundary'])
            kw['input_onesided'] = False
            if 'nperseg' in kw and kw['nperseg'] > nf: kw['nperseg'] = p['nperseg'] = nf
            if 'noverlap' in kw and kw['noverlap'] >= kw.get('nperseg', nf): kw.pop('noverlap'); p.pop('noverlap')
            out = ss.istft(z, **kw)
        out = [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]
        for k, o in enumerate(out):
            np.save(f'{d}/want_{i}_{k}.npy', o.astype(np.complex128))
    except Exception as e:
        open(f'{d}/serr_{i}.txt', 'w').write(f'{type(e).__name__}: {e}')
    lines.append(f'{i} {f} ' + ' '.join(f'{k}={v}' for k, v in p.items()))
open(f'{d}/cases.txt', 'w').write('\n'.join(lines) + '\n')
print('ok', count)
