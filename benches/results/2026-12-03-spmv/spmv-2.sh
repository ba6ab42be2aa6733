#!/bin/bash
# spmv-2: the new defaults (2 KiB chunk, MINB 4) scalar vs 16-byte loads, full vs persistent grid
# tree) against cuSPARSE (cupyx A @ x) on sparse.spmv_csr_f64_poisson4096, bytes as CASES.md;
# correctness of every dtype x index width on small random matrices; medium-row timings.
# Runs from the repo root; ~60 s. Prints ms, GB/s, % of copy roof.
set -e
python3 - <<'PY'
import cupy as cp, numpy as np, cupyx.scipy.sparse as csp, re, time, math
t_start = time.time()
common = open('crates/core/src/cuda/common.cuh').read()
SRC = open('crates/sparse/src/cuda/spmv.cu').read()
PRE = {'f32': ('float','float','0.0f', np.float32), 'f64': ('double','double','0.0', np.float64),
       'c64': ('cplx32','float','mk(0.0f, 0.0f)', np.complex64), 'c128': ('cplx64','double','mk(0.0, 0.0)', np.complex128)}
OPTS = ('--std=c++17','--ftz=false','--prec-div=true','--prec-sqrt=true','--device-as-default-execution-space')
def module(t, i, rpts, defines={}):
    ty, r, z, _ = PRE[t]
    body = re.sub(r'^SPMV_KERNELS\((\d+)\)$', lambda mm: mm.group(0) if int(mm.group(1)) in rpts else '', SRC, flags=re.M)
    defs = ''.join(f'#define {k} {v}\n' for k, v in defines.items())
    code = common + '\n' + f'typedef {ty} T;\ntypedef {r} R;\n#define TZERO ({z})\n#define TRE(x) (x)\ntypedef {i} I;\n' + defs + body
    return cp.RawModule(code=code, options=OPTS)

def timeit(f, n=50):
    for _ in range(3): f()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(n):
        s.record(); f(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))

dev = cp.cuda.Device(); SMS = dev.attributes['MultiProcessorCount']
print('GPU', cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'SMs', SMS)
a = cp.random.standard_normal(1 << 28, dtype=cp.float32); b = cp.empty_like(a)
tc = timeit(lambda: cp.copyto(b, a)); COPY = 2 * (1 << 28) * 4 / tc / 1e6
print(f'copy 2^28 f32: {tc:.3f} ms = {COPY:.0f} GB/s'); del a, b

def spmv_call(mod, name, warps, A, x, rpt, grid=None):
    k = mod.get_function(name); m = A.shape[0]
    ntiles = -(-m // (32 * rpt)); blocks = grid or -(-ntiles // warps)
    def f():
        y = cp.empty(m, dtype=x.dtype)
        k((blocks,), (warps * 32,), (A.indptr, A.indices, A.data, x, y, np.int64(m), np.int64(ntiles)))
        return y
    return f

D = {'SPMV_CHB': 2048, 'SPMV_MINB': 4}
def poisson2d(n, dtype=cp.float64):
    N = n * n; main = 4 * cp.ones(N, dtype=dtype); off = -cp.ones(N, dtype=dtype)
    return csp.diags([main, off[:-1], off[:-1], off[:-n], off[:-n]], [0, -1, 1, -n, n], format='csr', dtype=dtype)
def rpt_rule(avg, size):
    ch = 2048 // max(size, 8); want = max(1, round(ch / (32 * avg)))
    return max(r for r in (1, 2, 3, 4, 6, 8) if r <= want)
def bench(label, A, x, bytes_, t_cusp):
    yref = A @ x; size = x.dtype.itemsize; avg = A.nnz / A.shape[0]; r0 = rpt_rule(avg, size)
    t = 'f64' if x.dtype == np.float64 else 'f32'
    rs_ = sorted({max(1, r0 - 1), r0, min(8, r0 + 1)} & {1, 2, 3, 4, 6, 8})
    mod = module(t, 'int', rs_, D)
    out = []
    for r in rs_:
        for v in ('', '_v'):
            for g in (None, 4 * SMS):
                f = spmv_call(mod, f'sp_spmv_r{r}{v}', 8, A, x, r, grid=g)
                err = float(cp.max(cp.abs(f() - yref))); tm = timeit(f)
                out.append((tm, f'r{r}{v} grid {g or "full"}', err))
    out.sort()
    print(f'{label}: avg {avg:.1f} rule r{r0}; cuSPARSE {t_cusp:.3f} ms ({bytes_/t_cusp/1e6/COPY*100:.0f}%)')
    for tm, name, err in out:
        print(f'   {name:22s} {tm:.3f} ms  {bytes_/tm/1e6/COPY*100:5.1f}% of copy  {t_cusp/tm:.2f}x cuSPARSE  err {err:.1e}')
for dt in (cp.float64, cp.float32):
    A = poisson2d(4096, dt); N = A.shape[0]; x = cp.random.default_rng(1).standard_normal(N).astype(dt)
    s = np.dtype(dt).itemsize
    bench(f'Poisson 4096^2 {np.dtype(dt).name}', A, x, 4096 * 4096 * (5 * (s + 4) + 4 + 2 * s), timeit(lambda: A @ x))
    del A, x
for avg in (4, 8, 16, 32):
    m = n = 1 << 21
    lens = cp.random.randint(0, 2 * avg + 1, m).astype(cp.int32)
    ip = cp.concatenate([cp.zeros(1, cp.int32), cp.cumsum(lens, dtype=cp.int32)])
    nnz = int(ip[-1]); ci = cp.random.randint(0, n, nnz).astype(cp.int32); va = cp.random.standard_normal(nnz)
    B = csp.csr_matrix((va, ci, ip), shape=(m, n)); xx = cp.random.standard_normal(n)
    bench(f'random avg {avg}', B, xx, nnz * 12 + m * 4 + 2 * m * 8, timeit(lambda: B @ xx))
print(f'total {time.time()-t_start:.1f} s')
PY
