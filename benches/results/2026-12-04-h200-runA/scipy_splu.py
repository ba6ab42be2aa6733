import time, scipy, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla
print('scipy', scipy.__version__)
def poisson(m):
    t = sp.diags([-1, 4, -1], [-1, 0, 1], (m, m))
    e = sp.identity(m); o = sp.diags([-1, -1], [-1, 1], (m, m))
    return (sp.kron(e, t) + sp.kron(o, e)).tocsc()
for m in [256, 512]:
    a = poisson(m); ts = []
    for _ in range(3 if m == 256 else 2):
        t0 = time.perf_counter(); lu = sla.splu(a, permc_spec='COLAMD'); ts.append(time.perf_counter() - t0)
    print(f'poisson{m}: n={a.shape[0]} nnz(L)+nnz(U)={lu.L.nnz + lu.U.nnz} splu min {min(ts)*1e3:.0f} ms all {[round(t*1e3) for t in ts]}', flush=True)
