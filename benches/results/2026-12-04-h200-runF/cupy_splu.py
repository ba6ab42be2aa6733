# cupyx.scipy.sparse.linalg.splu on the bench's Poisson matrices, timed as the bench times (events
# around one call, median), beside scipy's splu on the same host
import time, cupy as cp, cupyx.scipy.sparse as csp, cupyx.scipy.sparse.linalg as cla, scipy.sparse as sp, scipy.sparse.linalg as sla
def poisson(m):
    t = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], (m, m))
    e = sp.identity(m); o = sp.diags([-1.0, -1.0], [-1, 1], (m, m))
    return (sp.kron(e, t) + sp.kron(o, e)).tocsr()
for m, reps in [(256, 5), (512, 3)]:
    a = csp.csr_matrix(poisson(m))
    lu = cla.splu(a)  # warm-up
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); lu = cla.splu(a); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort()
    print(f'cupyx splu poisson{m}: median {ts[len(ts)//2]:.1f} ms all {[round(t, 1) for t in ts]}', flush=True)
