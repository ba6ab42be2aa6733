#!/usr/bin/env python3
"""cusci's CPU path against SciPy/NumPy on the same machine, at one thread and at all cores.

For each selected case of the suite's CPU mode (`suite --device cpu`, benches/suite/cpu.rs):
  - cusci: the suite binary, one process per case, with RAYON_NUM_THREADS=T;
  - SciPy/NumPy: the same operation on inputs of the same shapes and dtypes (random normal), in
    this process, with BLAS limited to T threads (threadpoolctl) and scipy.fft's workers set to T
    (scipy.fft.set_workers, which scipy.signal's FFT paths use too); ndimage and most of
    scipy.signal are single-threaded whatever T is.
Both sides time alike: the first call timed; under a second, two more warm-ups and then n_repeat
(at least 5) calls, else 5 calls; the median. A case whose first call takes more than --max-s is
skipped. The cases the suite scales for the CPU (CPU_SCALED in benches/suite/cpu.rs) run at
their scaled size on both sides.

Prints one Markdown table: per case and thread count, cusci-cpu ms, SciPy ms and SciPy / cusci
(above 1: cusci faster).

  python3 benches/cpu_vs_scipy.py --suite PATH/TO/suite-BINARY [--filter REGEX] [--threads 1,2]
      [--max-s 20] [--out table.md] [--json raw.jsonl]

Needs numpy, scipy and threadpoolctl (pip install numpy scipy threadpoolctl). Without --suite the
newest `suite-*` executable under $CARGO_TARGET_DIR (or ./target)/release/deps is used.
"""
import argparse, glob, json, math, os, re, subprocess, sys, tempfile, time

import numpy as np
import scipy
import scipy.fft as sfft
import scipy.linalg as slinalg
import scipy.ndimage as ndi
import scipy.signal as ssig
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from threadpoolctl import threadpool_limits

WARMUP = 3
MIN_REPEAT = 5

CASES = {}


def case(name, n_repeat=20):
    """Registers a SciPy case: setup(workers) -> callable."""
    def deco(fn):
        CASES[name] = (fn, n_repeat)
        return fn
    return deco


def rng(seed=1234):
    return np.random.default_rng(seed)


def randn(shape, dtype=np.float64, seed=1234):
    return rng(seed).standard_normal(shape, dtype=dtype)


def crandn(shape, dtype):
    r = rng()
    re_ = r.standard_normal(shape, dtype=np.float32 if dtype == np.complex64 else np.float64)
    im = r.standard_normal(shape, dtype=re_.dtype)
    return (re_ + 1j * im).astype(dtype)


def poisson2d(n, dtype=np.float64):
    N = n * n
    main = 4 * np.ones(N, dtype=dtype)
    off = -np.ones(N, dtype=dtype)
    return sp.diags([main, off[:-1], off[:-1], off[:-n], off[:-n]], [0, -1, 1, -n, n],
                    format="csr", dtype=dtype)


N28 = 1 << 28

# ---------------- core ----------------
@case("core.copy_f32_2^28")
def _(w):
    x = randn(N28, np.float32); y = np.empty_like(x)
    return lambda: np.copyto(y, x)

@case("core.axpy_f32_2^28")
def _(w):
    x = randn(N28, np.float32); y = randn(N28, np.float32, 5); out = np.empty_like(x)
    def run():
        np.multiply(x, np.float32(2.5), out=out); np.add(out, y, out=out)
    return run

@case("core.sum_f32_2^28")
def _(w):
    x = randn(N28, np.float32)
    return lambda: x.sum()

@case("core.randn_f32_2^28")
def _(w):
    r = rng(7); out = np.empty(N28, dtype=np.float32)
    return lambda: r.standard_normal(out=out, dtype=np.float32)

S0, K, RATE, SIG, T = 100.0, 105.0, 0.05, 0.2, 1.0

@case("core.montecarlo_call_f32_2^26")
def _(w):
    n = 1 << 26; r = rng(7)
    def run():
        z = r.standard_normal(n, dtype=np.float32)
        st = S0 * np.exp((RATE - 0.5 * SIG * SIG) * T + SIG * math.sqrt(T) * z)
        return np.maximum(st - K, 0).mean() * math.exp(-RATE * T)
    return run

@case("core.fuse_payoff_f32_2^26")
def _(w):
    z = randn(1 << 26, np.float32)
    drift = np.float32((RATE - 0.5 * SIG * SIG) * T); vol = np.float32(SIG * math.sqrt(T))
    disc = math.exp(-RATE * T)
    return lambda: (np.maximum(np.exp(z * vol + drift) * np.float32(S0) - np.float32(K), 0)).mean() * disc

@case("core.fuse_normclip_f32_2^28")
def _(w):
    x = randn(N28, np.float32)
    return lambda: np.clip((x - np.float32(0.1)) * np.float32(1.25), -3, 3) * np.float32(2.5) + np.float32(1)

# ---------------- fft (workers = the thread count) ----------------
@case("fft.c2c_c64_batch4096x4096")
def _(w):
    x = crandn((4096, 4096), np.complex64)
    return lambda: sfft.fft(x, axis=-1, workers=w)

@case("fft.rfft_f32_2^26")
def _(w):
    x = randn(1 << 26, np.float32)
    return lambda: sfft.rfft(x, workers=w)

@case("fft.fft2_c64_4096x4096")
def _(w):
    x = crandn((4096, 4096), np.complex64)
    return lambda: sfft.fft2(x, workers=w)

@case("fft.c2c_c128_2^24")
def _(w):
    x = crandn(1 << 24, np.complex128)
    return lambda: sfft.fft(x, workers=w)

for _n in (512, 256):
    @case(f"fft.rfftn_f32_{_n}^3")
    def _(w, n=_n):
        x = randn((n, n, n), np.float32)
        return lambda: sfft.rfftn(x, workers=w)

# ---------------- linalg (BLAS/LAPACK threads = the thread count) ----------------
for _n in (8192, 2048):
    for _dt, _tag in ((np.float64, "f64"), (np.float32, "f32")):
        @case(f"linalg.matmul_{_tag}_{_n}", n_repeat=10)
        def _(w, n=_n, dt=_dt):
            a = randn((n, n), dt, 1); b = randn((n, n), dt, 2)
            return lambda: a @ b

    @case(f"linalg.solve_f64_{_n}", n_repeat=10)
    def _(w, n=_n):
        a = randn((n, n), seed=1); b = randn((n, 16), seed=2)
        return lambda: np.linalg.solve(a, b)

    @case(f"linalg.cholesky_f64_{_n}", n_repeat=10)
    def _(w, n=_n):
        m = randn((n, n), seed=1); a = m @ m.T + n * np.eye(n)
        return lambda: np.linalg.cholesky(a)

    @case(f"linalg.lu_factor_f64_{_n}", n_repeat=5)
    def _(w, n=_n):
        a = randn((n, n), seed=1)
        return lambda: slinalg.lu_factor(a, overwrite_a=False, check_finite=False)

for _n in (4096, 1024):
    @case(f"linalg.qr_f64_{_n}", n_repeat=5)
    def _(w, n=_n):
        a = randn((n, n), seed=1)
        return lambda: np.linalg.qr(a)

    @case(f"linalg.svd_f32_{_n}", n_repeat=3)
    def _(w, n=_n):
        a = randn((n, n), np.float32, 1)
        return lambda: np.linalg.svd(a)

    @case(f"linalg.eigh_f64_{_n}", n_repeat=3)
    def _(w, n=_n):
        m = randn((n, n), seed=1); a = m + m.T
        return lambda: np.linalg.eigh(a)

    @case(f"linalg.inv_f64_{_n}", n_repeat=5)
    def _(w, n=_n):
        a = randn((n, n), seed=1)
        return lambda: np.linalg.inv(a)

@case("linalg.batched_solve_f32_65536x8x8")
def _(w):
    a = randn((65536, 8, 8), np.float32) + 8 * np.eye(8, dtype=np.float32)
    b = randn((65536, 8, 1), np.float32, 5)
    return lambda: np.linalg.solve(a, b)

# ---------------- sparse ----------------
@case("sparse.spmv_csr_f64_poisson4096")
def _(w):
    A = poisson2d(4096); x = randn(A.shape[0])
    return lambda: A @ x

@case("sparse.spmm_csr_f32_poisson2048_x64", n_repeat=10)
def _(w):
    A = poisson2d(2048, np.float32); X = randn((A.shape[0], 64), np.float32)
    return lambda: A @ X

@case("sparse.cg_f64_poisson1024_200it", n_repeat=5)
def _(w):
    A = poisson2d(1024); b = randn(A.shape[0])
    return lambda: spl.cg(A, b, rtol=0.0, atol=0.0, maxiter=200)

@case("sparse.coo_to_csr_f64_50M", n_repeat=5)
def _(w):
    n = 1 << 22; nnz = 50_000_000; r = rng()
    rows = r.integers(0, n, nnz, dtype=np.int32); cols = r.integers(0, n, nnz, dtype=np.int32)
    vals = r.standard_normal(nnz)
    return lambda: sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()

@case("sparse.csr_transpose_f64_poisson4096", n_repeat=10)
def _(w):
    A = poisson2d(4096)
    return lambda: A.T.tocsr()

for _n in (256, 512):
    @case(f"sparse.splu_f64_poisson{_n}", n_repeat=3)
    def _(w, n=_n):
        A = poisson2d(n).tocsc()
        return lambda: spl.splu(A)

# ---------------- signal ----------------
@case("signal.fftconvolve_f32_2^24_k4096", n_repeat=10)
def _(w):
    x = randn(1 << 24, np.float32); h = randn(4096, np.float32, 5)
    return lambda: ssig.fftconvolve(x, h)

@case("signal.convolve2d_f32_4096_k15", n_repeat=10)
def _(w):
    x = randn((4096, 4096), np.float32); k = randn((15, 15), np.float32, 5)
    return lambda: ssig.convolve2d(x, k, mode="same")

@case("signal.lfilter_f64_256x65536_ord8", n_repeat=5)
def _(w):
    b, a = ssig.butter(8, 0.1); x = randn((256, 65536))
    return lambda: ssig.lfilter(b, a, x, axis=-1)

@case("signal.sosfilt_f64_256x65536_ord8", n_repeat=5)
def _(w):
    sos = ssig.butter(8, 0.1, output="sos"); x = randn((256, 65536))
    return lambda: ssig.sosfilt(sos, x, axis=-1)

@case("signal.sosfiltfilt_f64_64x65536_ord8", n_repeat=5)
def _(w):
    sos = ssig.butter(8, 0.1, output="sos"); x = randn((64, 65536))
    return lambda: ssig.sosfiltfilt(sos, x, axis=-1)

@case("signal.welch_f32_2^26_n4096", n_repeat=10)
def _(w):
    x = randn(1 << 26, np.float32)
    return lambda: ssig.welch(x, nperseg=4096)

@case("signal.stft_f32_2^24_n1024", n_repeat=10)
def _(w):
    x = randn(1 << 24, np.float32)
    return lambda: ssig.stft(x, nperseg=1024)

@case("signal.resample_poly_f32_2^24_3over2", n_repeat=10)
def _(w):
    x = randn(1 << 24, np.float32)
    return lambda: ssig.resample_poly(x, 3, 2)

@case("signal.hilbert_f32_2^24", n_repeat=10)
def _(w):
    x = randn(1 << 24, np.float32)
    return lambda: ssig.hilbert(x)

@case("signal.medfilt_f32_2^24_k7", n_repeat=5)
def _(w):
    x = randn(1 << 24, np.float32)
    return lambda: ssig.medfilt(x, 7)

# ---------------- ndimage ----------------
IMG = 4096

@case("ndimage.gaussian_filter_f32_4096_s4", n_repeat=10)
def _(w):
    x = randn((IMG, IMG), np.float32)
    return lambda: ndi.gaussian_filter(x, 4.0)

@case("ndimage.uniform_filter_f32_4096_s9", n_repeat=10)
def _(w):
    x = randn((IMG, IMG), np.float32)
    return lambda: ndi.uniform_filter(x, 9)

@case("ndimage.median_filter_f32_4096_s5", n_repeat=5)
def _(w):
    x = randn((IMG, IMG), np.float32)
    return lambda: ndi.median_filter(x, 5)

@case("ndimage.sobel_f32_4096", n_repeat=10)
def _(w):
    x = randn((IMG, IMG), np.float32)
    return lambda: ndi.sobel(x, axis=0)

for _n in (256, 128):
    @case(f"ndimage.convolve_f32_{_n}^3_k5", n_repeat=5)
    def _(w, n=_n):
        x = randn((n, n, n), np.float32); k = randn((5, 5, 5), np.float32, 5)
        return lambda: ndi.convolve(x, k)

@case("ndimage.zoom_f32_2048_x2_o3", n_repeat=5)
def _(w):
    x = randn((2048, 2048), np.float32)
    return lambda: ndi.zoom(x, 2.0, order=3)

@case("ndimage.rotate_f32_4096_30deg_o1", n_repeat=5)
def _(w):
    x = randn((IMG, IMG), np.float32)
    return lambda: ndi.rotate(x, 30.0, order=1, reshape=False)

@case("ndimage.map_coordinates_f32_4096_o1", n_repeat=5)
def _(w):
    x = randn((IMG, IMG), np.float32)
    c = rng(5).uniform(0, IMG - 1, (2, IMG * IMG)).astype(np.float32)
    return lambda: ndi.map_coordinates(x, c, order=1)

@case("ndimage.label_4096", n_repeat=5)
def _(w):
    x = randn((IMG, IMG), np.float32) > 0.5
    return lambda: ndi.label(x)

@case("ndimage.distance_transform_edt_2048", n_repeat=5)
def _(w):
    x = randn((2048, 2048), np.float32) > -1.0
    return lambda: ndi.distance_transform_edt(x)

# the CPU's known gaps (benches/suite/cpu.rs)
def smooth(n):
    f = ndi.gaussian_filter(randn((n, n), seed=95), 4.0)
    return f / f.std()

@case("ndimage.gaussian_filter_f32_2047_s4", n_repeat=10)
def _(w):
    x = randn((2047, 2047), np.float32)
    return lambda: ndi.gaussian_filter(x, 4.0)

@case("ndimage.gaussian_filter_f64_1023_s3", n_repeat=10)
def _(w):
    x = randn((1023, 1023))
    return lambda: ndi.gaussian_filter(x, 3.0)

@case("ndimage.median_filter_f32_2048_s7", n_repeat=5)
def _(w):
    x = randn((2048, 2048), np.float32)
    return lambda: ndi.median_filter(x, 7)

@case("ndimage.percentile_filter_f64_1024_p30_s5", n_repeat=5)
def _(w):
    x = randn((1024, 1024))
    return lambda: ndi.percentile_filter(x, 30, size=5)

@case("ndimage.binary_erosion_1024", n_repeat=10)
def _(w):
    m = smooth(1024) > 0.2
    return lambda: ndi.binary_erosion(m)

@case("ndimage.binary_dilation_1024_it5", n_repeat=10)
def _(w):
    m = smooth(1024) > 0.2
    return lambda: ndi.binary_dilation(m, iterations=5)

@case("ndimage.binary_fill_holes_1024", n_repeat=10)
def _(w):
    m = smooth(1024) > 0.2
    return lambda: ndi.binary_fill_holes(m)

@case("ndimage.grey_dilation_f64_1024_s5", n_repeat=10)
def _(w):
    x = smooth(1024)
    return lambda: ndi.grey_dilation(x, size=5)

@case("ndimage.white_tophat_f64_1024_s5", n_repeat=10)
def _(w):
    x = smooth(1024)
    return lambda: ndi.white_tophat(x, size=5)

@case("ndimage.label_smooth_1024", n_repeat=10)
def _(w):
    m = smooth(1024) > 0.2
    return lambda: ndi.label(m)

@case("ndimage.distance_transform_cdt_1024_chessboard", n_repeat=10)
def _(w):
    m = smooth(1024) > 0.2
    return lambda: ndi.distance_transform_cdt(m, metric="chessboard")


# ------------------------------------------------------------------------------------------

def time_py(name, threads, max_s):
    setup, n_repeat = CASES[name]
    with threadpool_limits(limits=threads), sfft.set_workers(threads):
        fn = setup(threads)
        t = time.perf_counter(); fn(); first = time.perf_counter() - t
        if first > max_s:
            return {"skipped": f"one call took {first:.1f} s"}
        warm, reps = (WARMUP - 1, max(n_repeat, MIN_REPEAT)) if first < 1.0 else (0, MIN_REPEAT)
        for _ in range(warm):
            fn()
        times = []
        for _ in range(reps):
            t = time.perf_counter(); fn(); times.append((time.perf_counter() - t) * 1e3)
    return {"median_ms": float(np.median(times)), "n": reps}


def find_suite():
    tgt = os.environ.get("CARGO_TARGET_DIR", "target")
    exes = [p for p in glob.glob(os.path.join(tgt, "release", "deps", "suite-*"))
            if os.access(p, os.X_OK) and not p.endswith(".d")]
    if not exes:
        sys.exit("cpu_vs_scipy: no suite binary; build it (cargo build --release --bench suite) "
                 "or pass --suite")
    return max(exes, key=os.path.getmtime)


def run_cusci(suite, name, threads, max_s):
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as f:
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        subprocess.run([suite, "--device", "cpu", "--cpu-max-s", str(max_s), "--json", f.name,
                        "--filter", name], env=env, check=False, stdout=subprocess.DEVNULL)
        for line in f:
            r = json.loads(line)
            if r["case"] == name:
                return r
    return {"error": "no record"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default=None, help="the suite binary")
    ap.add_argument("--filter", default="", help="a regex over case names")
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}")
    ap.add_argument("--max-s", type=float, default=20.0)
    ap.add_argument("--out", default=None, help="write the Markdown table here too")
    ap.add_argument("--json", default=None, help="append every record here (JSON lines)")
    ap.add_argument("--skip-python", action="store_true")
    args = ap.parse_args()
    suite = args.suite or find_suite()
    threads = sorted({int(t) for t in args.threads.split(",")})
    names = subprocess.run([suite, "--device", "cpu", "--list"], capture_output=True, text=True,
                           check=True).stdout.split()
    rx = re.compile(args.filter)
    names = [n for n in names if rx.search(n)]
    jout = open(args.json, "a") if args.json else None
    rows = []
    for name in names:
        row = {"case": name}
        for t in threads:
            c = run_cusci(suite, name, t, args.max_s)
            row[("cusci", t)] = c
            if jout: jout.write(json.dumps(dict(c, threads=t)) + "\n"); jout.flush()
            if "skipped" in c and c["skipped"].startswith("scaled"):
                break
        if all("skipped" in row.get(("cusci", t), {}) and row[("cusci", t)]["skipped"].startswith("scaled")
               for t in threads[:1]):
            rows.append(row)
            print(f"{name:48s} {row[('cusci', threads[0])]['skipped']}", flush=True)
            continue
        for t in threads:
            if args.skip_python:
                continue
            if name not in CASES:
                p = {"error": "no SciPy formulation"}
            else:
                try:
                    p = time_py(name, t, args.max_s)
                except Exception as e:  # noqa: BLE001
                    p = {"error": f"{type(e).__name__}: {e}"[:200]}
            row[("scipy", t)] = p
            if jout:
                jout.write(json.dumps(dict(p, case=name, impl="scipy", threads=t)) + "\n"); jout.flush()
        rows.append(row)
        print(f"{name:48s} " + "  ".join(
            f"T={t}: {fmt(row.get(('cusci', t)))} / {fmt(row.get(('scipy', t)))}" for t in threads),
            flush=True)
    table = render(rows, threads)
    print()
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


def fmt(r):
    if r is None:
        return "–"
    if "median_ms" in r:
        v = r["median_ms"]
        return f"{v:.3g}" if v < 100 else f"{v:.0f}"
    if "skipped" in r:
        return "skipped"
    return "error"


def ratio(c, p):
    if c and p and "median_ms" in c and "median_ms" in p and c["median_ms"] > 0:
        r = p["median_ms"] / c["median_ms"]
        s = f"{r:.2f}×"
        return f"**{s}**" if r < 1 else s
    return "–"


def render(rows, threads):
    head = "| case |" + "".join(f" cusci {t}T | SciPy {t}T | SciPy/cusci {t}T |" for t in threads)
    sep = "|---|" + "---|---|---|" * len(threads)
    lines = [head, sep]
    notes = []
    for row in rows:
        name = row["case"]
        c0 = row.get(("cusci", threads[0]), {})
        if "skipped" in c0 and c0["skipped"].startswith("scaled"):
            lines.append(f"| {name} | {c0['skipped']} |" + " |" * (3 * len(threads) - 1))
            continue
        cells = []
        for t in threads:
            c, p = row.get(("cusci", t)), row.get(("scipy", t))
            cells += [fmt(c), fmt(p), ratio(c, p)]
            for who, r in (("cusci", c), ("SciPy", p)):
                if r and "median_ms" not in r:
                    notes.append(f"- {name}, {who} at {t} thread(s): {r.get('skipped') or r.get('error')}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    out = "\n".join(lines)
    if notes:
        out += "\n\n" + "\n".join(notes)
    return out


if __name__ == "__main__":
    main()
