#!/usr/bin/env python3
"""CuPy's side of the project's cases that the shared cupy_ref.py does not have (issue 34): the
fusion cases and the small/odd family (`small.*`, `odd.*`). It registers them with cupy_ref.py's
own `case` decorator (inputs from its `rng()`, its helpers such as `poisson2d`), and times them as
cupy_ref.py does (cupyx.profiler.benchmark, median of the GPU times), recording two more fields
per case:

  {"case": NAME, "impl": "cupy", "median_ms": X, "host_ms": H, "peak_bytes": P, "bytes": B, "flops": F}

host_ms: the median of cupyx.profiler.benchmark's cpu_times (the host wall time of each call).
peak_bytes: CuPy's default memory pool's total_bytes() after the case (setup, one call, warm-up
and timed calls), with every block freed (and the FFT plan cache cleared) before the case: the
pool keeps what it allocated, so this is its high-water mark, comparable to the project's
`peak_bytes` (the pool's high-water mark of memory in use, kept blocks included).

On the GPU machine, after `run.sh bench`:

  python3 benches/cupy_extra.py --out $OUT/cupy_extra.jsonl [--only SUBSTR]
  python3 .gpu-bundle/compare.py $OUT/cusci.jsonl <(cat $OUT/cupy.jsonl $OUT/cupy_extra.jsonl)
  python3 benches/compare_extra.py $OUT/cusci.jsonl $OUT/cupy_extra.jsonl   # host ms, peak MiB
"""
import argparse, gc, json, math, os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".gpu-bundle"))
sys.path.insert(0, os.path.join(here, "..", "..", "shared", "bench"))
import numpy as np
import cupy as cp
import cupy_ref
from cupy_ref import case, rng, poisson2d, F32, F64, C64, N28, cfft, cndi, csig
from cupyx.profiler import benchmark

cupy_ref.CASES.clear()

# ---------------- fusion (issue 34 §3) ----------------
@case("core.fuse_payoff_f32_2^26", bytes_=(1 << 26) * F32)
def _():
    z = rng().standard_normal(1 << 26, dtype=cp.float32)
    S0, K, r, sig, T = 100.0, 105.0, 0.05, 0.2, 1.0
    drift, vol = (r - 0.5 * sig * sig) * T, sig * math.sqrt(T)
    w = math.exp(-r * T) / z.size  # the discounted mean as one fused sum
    @cp.fuse()
    def payoff(z):
        return cp.sum(cp.maximum(cp.exp(z * vol + drift) * S0 - K, 0) * w)
    return lambda: payoff(z)

@case("core.fuse_normclip_f32_2^28", bytes_=2 * N28 * F32)
def _():
    x = rng().standard_normal(N28, dtype=cp.float32)
    @cp.fuse()
    def normclip(x):
        return cp.clip((x - 0.1) * 1.25, -3.0, 3.0) * 2.5 + 1.0
    return lambda: normclip(x)

# ---------------- small and odd inputs (issue 34 §2) ----------------
SMALL_REPEAT = 100

def butter8_sos():
    """butter(8, 0.1, output='sos') on the GPU, as cupy_ref.py's signal.sosfilt case."""
    return cp.asarray(__import__("scipy.signal", fromlist=["butter"]).butter(8, 0.1, output="sos"))

def randn_c64(n):
    r = rng()
    return (r.standard_normal(n, dtype=cp.float32) + 1j * r.standard_normal(n, dtype=cp.float32)).astype(cp.complex64)

@case("small.fft_c64_4096", bytes_=2 * 4096 * C64, flops=5 * 4096 * 12, n_repeat=SMALL_REPEAT)
def _():
    x = randn_c64(4096)
    return lambda: cfft.fft(x)

@case("small.sosfilt_f64_8192_ord8", bytes_=2 * 8192 * F64, n_repeat=SMALL_REPEAT)
def _():
    sos = butter8_sos(); x = rng().standard_normal(8192)
    return lambda: csig.sosfilt(sos, x)

@case("small.gaussian_filter_f32_512_s2", bytes_=2 * 512 * 512 * F32, n_repeat=SMALL_REPEAT)
def _():
    x = rng().standard_normal((512, 512), dtype=cp.float32)
    return lambda: cndi.gaussian_filter(x, 2.0)

@case("small.solve_f64_16", n_repeat=SMALL_REPEAT)
def _():
    r = rng(); a = r.standard_normal((16, 16)); b = r.standard_normal(16)
    return lambda: cp.linalg.solve(a, b)

@case("small.sum_f32_10^4", bytes_=10_000 * F32, flops=10_000, n_repeat=SMALL_REPEAT)
def _():
    x = rng().standard_normal(10_000, dtype=cp.float32)
    return lambda: x.sum()

@case("small.welch_f32_65536_n1024", n_repeat=SMALL_REPEAT)
def _():
    x = rng().standard_normal(65536, dtype=cp.float32)
    return lambda: csig.welch(x, nperseg=1024)

@case("small.label_256", n_repeat=SMALL_REPEAT)
def _():
    x = rng().standard_normal((256, 256), dtype=cp.float32) > 0.5
    return lambda: cndi.label(x)

@case("small.spmv_csr_f64_poisson100", bytes_=100 * 100 * (5 * 12 + 4 + 16), flops=2 * 5 * 100 * 100, n_repeat=SMALL_REPEAT)
def _():
    A = poisson2d(100); x = rng().standard_normal(A.shape[0])
    return lambda: A @ x

PRIME_N = 2_000_003  # prime: cuFFT takes its Bluestein path

@case("odd.fft_c64_prime_2000003", bytes_=2 * PRIME_N * C64, n_repeat=20)
def _():
    x = randn_c64(PRIME_N)
    return lambda: cfft.fft(x)

@case("odd.gaussian_filter_f32_2039x4093_s4", bytes_=2 * 2039 * 4093 * F32, n_repeat=10)
def _():
    x = rng().standard_normal((2039, 4093), dtype=cp.float32)
    return lambda: cndi.gaussian_filter(x, 4.0)

@case("odd.median_filter_f32_2039x4093_s5", bytes_=2 * 2039 * 4093 * F32, n_repeat=5)
def _():
    x = rng().standard_normal((2039, 4093), dtype=cp.float32)
    return lambda: cndi.median_filter(x, 5)

@case("odd.sosfiltfilt_f64_500x20011_ord8", n_repeat=10)
def _():
    sos = butter8_sos(); x = rng().standard_normal((500, 20011))
    return lambda: csig.sosfiltfilt(sos, x, axis=-1)

@case("odd.svdvals_f64_2047", bytes_=2047 * 2047 * F64, n_repeat=3)
def _():
    # cupyx.scipy.linalg has no svdvals: the singular values alone, as scipy's svdvals computes
    a = rng().standard_normal((2047, 2047))
    return lambda: cp.linalg.svd(a, compute_uv=False)

def image_chain(x):
    """The 20 calls of benches/suite/graph.rs's chain."""
    g = cndi.gaussian_filter(x, 2.0)
    sx = cndi.sobel(g, 0); sy = cndi.sobel(g, 1)
    mag = cp.sqrt(sx * sx + sy * sy)
    u = cndi.uniform_filter(mag, 5)
    med = cndi.median_filter(u, size=3)
    rng_ = cndi.maximum_filter(med, size=3) - cndi.minimum_filter(med, size=3)
    lap = cp.abs(cndi.laplace(g))
    s_ = rng_ + lap
    p = cndi.prewitt(s_, 1)
    n = cp.clip((s_ + cp.abs(p)) * 0.25, 0.0, 1.0)
    return n, n.sum(axis=1)

@case("graph.image_chain20_f32_256_eager", n_repeat=200)
def _():
    x = rng().standard_normal((256, 256), dtype=cp.float32)
    return lambda: image_chain(x)

@case("graph.image_chain20_f32_256_replay", n_repeat=200)
def _():
    # CuPy's own graph capture of the same chain (cupy.cuda.Stream.begin_capture); the record
    # is an error where CuPy cannot capture it
    x = rng().standard_normal((256, 256), dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        image_chain(x)
        s.synchronize()
        s.begin_capture()
        image_chain(x)
        g = s.end_capture()
    return lambda: g.launch()

# ---------------- the runner ----------------
def empty_pool():
    """Frees every unused block of CuPy's pools and the FFT plans (whose work areas it holds)."""
    gc.collect()
    cp.fft.config.get_plan_cache().clear()
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()

def time_case(setup, n_repeat):
    """(GPU median ms, host median ms, pool bytes after the case), from an empty pool."""
    empty_pool()
    fn = setup()
    fn(); cp.cuda.Device().synchronize()
    res = benchmark(fn, n_repeat=n_repeat, n_warmup=2)
    ms = float(np.median(res.gpu_times)) * 1e3
    host_ms = float(np.median(res.cpu_times)) * 1e3
    peak = int(cp.get_default_memory_pool().total_bytes())
    return ms, host_ms, peak

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = open(args.out, "w") if args.out else None
    dev = cp.cuda.runtime.getDeviceProperties(0)
    print(f"# cupy {cp.__version__}, device {dev['name'].decode()}, cuda runtime {cp.cuda.runtime.runtimeGetVersion()}", flush=True)
    print(f"{'# case':45s} {'GPU (median)':>13s} {'host (median)':>13s} {'peak MiB':>10s}", flush=True)
    for name, (setup, nbytes, flops, n_repeat) in cupy_ref.CASES.items():
        if args.only and args.only not in name:
            continue
        try:
            ms, host_ms, peak = time_case(setup, n_repeat)
            rec = {"case": name, "impl": "cupy", "median_ms": round(ms, 4), "host_ms": round(host_ms, 4),
                   "peak_bytes": peak, "bytes": nbytes, "flops": flops}
            extra = ""
            if nbytes: extra += f"  {nbytes / ms / 1e6:8.1f} GB/s"
            if flops: extra += f"  {flops / ms / 1e9:9.3f} TFLOP/s"
            print(f"{name:45s} {ms:10.3f} ms {host_ms:10.4f} ms {peak / 2**20:10.2f}{extra}", flush=True)
        except Exception as e:
            rec = {"case": name, "impl": "cupy", "error": f"{type(e).__name__}: {e}"[:300]}
            print(f"{name:45s} ERROR {rec['error']}", flush=True)
        if out: out.write(json.dumps(rec) + "\n"); out.flush()
        empty_pool()

if __name__ == "__main__":
    main()
