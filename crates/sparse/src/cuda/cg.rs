//! `linalg::cg` on the GPU: every vector and scalar of the iteration stays on the device (the
//! `sp_cg_*` kernels of `sparse.cu`); the host reads the convergence flag every
//! [`POLL`] iterations and at the end.

use super::{grid, sparse_fn, NT};
use crate::linalg::{CgProblem, Solution, POLL};
use cusci_core::{Array, CudaDevice, Device, Float, Function, LaunchConfig, Result};

/// The kernel `name` of the vector and solver steps (`sparse.cu`, 32-bit indices) for `T`.
fn kernel<T: Float>(d: &CudaDevice, name: &str) -> Result<Function> {
    sparse_fn::<T, i32>(d, name)
}

/// Partial sums per block of `xᴴ y` into `parts` (one per block of a fixed grid: the same bits
/// on every run).
fn dot_partial<T: Float>(
    d: &CudaDevice,
    x: &Array<T>,
    y: &Array<T>,
    parts: &mut Array<T>,
) -> Result<()> {
    let g = parts.len() as u32;
    d.launch(
        &kernel::<T>(d, "sp_dot_partial")?,
        LaunchConfig::linear(g, NT),
    )
    .arg(x.dev_ptr()?)
    .arg(y.dev_ptr()?)
    .arg(x.len() as i64)
    .arg(parts.dev_ptr_mut()?)
    .run()
}

/// [`cg`](crate::linalg::cg) on the GPU from the start `x` (the problem's device).
pub(crate) fn cg<T: Float>(
    d: &CudaDevice,
    prob: &CgProblem<'_, T>,
    mut x: Array<T>,
) -> Result<Solution<T>> {
    let CgProblem {
        a,
        b,
        m,
        atol,
        maxiter,
        has_x0,
        callback,
    } = *prob;
    let dev = Device::Cuda(d.clone());
    let n = b.len();
    let nb = grid(d, n);
    let g = nb.grid.0 as usize;
    let single = LaunchConfig::linear(1, NT);
    let mut parts = Array::<T>::empty(&[g], &dev)?;
    let mut st = Array::<T>::zeros(&[4], &dev)?;
    let mut ist = Array::<i32>::zeros(&[2], &dev)?;
    let mut r = if has_x0 {
        let ax = crate::linalg::checked_matvec(a, &x)?.contiguous()?;
        let mut r = Array::<T>::empty(&[n], &dev)?;
        d.launch(&kernel::<T>(d, "sp_sub")?, nb)
            .arg(b.dev_ptr()?)
            .arg(ax.dev_ptr()?)
            .arg(r.dev_ptr_mut()?)
            .arg(n as i64)
            .run()?;
        r
    } else {
        b.copy()?
    };
    let mut pv = Array::<T>::zeros(&[n], &dev)?;
    let (rr, rho, update_p) = (
        kernel::<T>(d, "sp_cg_rr")?,
        kernel::<T>(d, "sp_cg_rho")?,
        kernel::<T>(d, "sp_cg_update_p")?,
    );
    let (alpha, update_xr) = (
        kernel::<T>(d, "sp_cg_alpha")?,
        kernel::<T>(d, "sp_cg_update_xr")?,
    );
    let mut it = 0usize;
    while it < maxiter {
        // ‖r‖² (and ρ without a preconditioner); sets the flag when converged
        dot_partial(d, &r, &r, &mut parts)?;
        d.launch(&rr, single)
            .arg(parts.dev_ptr()?)
            .arg(g as i32)
            .arg(st.dev_ptr_mut()?)
            .arg(ist.dev_ptr_mut()?)
            .arg(atol)
            .arg(it as i32)
            .arg(m.is_none() as i32)
            .run()?;
        {
            // z = M r (r itself without a preconditioner), dropped before r is written
            let zm;
            let z = match m {
                None => &r,
                Some(mo) => {
                    zm = crate::linalg::checked_matvec(mo, &r)?.contiguous()?;
                    dot_partial(d, &r, &zm, &mut parts)?;
                    d.launch(&rho, single)
                        .arg(parts.dev_ptr()?)
                        .arg(g as i32)
                        .arg(st.dev_ptr_mut()?)
                        .arg(ist.dev_ptr()?)
                        .run()?;
                    &zm
                }
            };
            d.launch(&update_p, nb)
                .arg(z.dev_ptr()?)
                .arg(pv.dev_ptr_mut()?)
                .arg(n as i64)
                .arg(st.dev_ptr()?)
                .arg(ist.dev_ptr()?)
                .arg((it == 0) as i32)
                .run()?;
        }
        let q = crate::linalg::checked_matvec(a, &pv)?.contiguous()?;
        dot_partial(d, &pv, &q, &mut parts)?;
        d.launch(&alpha, single)
            .arg(parts.dev_ptr()?)
            .arg(g as i32)
            .arg(st.dev_ptr_mut()?)
            .arg(ist.dev_ptr()?)
            .run()?;
        d.launch(&update_xr, nb)
            .arg(x.dev_ptr_mut()?)
            .arg(r.dev_ptr_mut()?)
            .arg(pv.dev_ptr()?)
            .arg(q.dev_ptr()?)
            .arg(n as i64)
            .arg(st.dev_ptr()?)
            .arg(ist.dev_ptr()?)
            .run()?;
        it += 1;
        if let Some(cb) = callback {
            // SciPy calls back after every iteration that did not stop at its top
            if ist.to_vec()?[0] != 0 {
                break;
            }
            cb(&x);
        } else if it % POLL == 0 && it < maxiter && ist.to_vec()?[0] != 0 {
            break;
        }
    }
    // the convergence test of the iteration after the last one (SciPy tests at the loop's top)
    let flags = ist.to_vec()?;
    if flags[0] != 0 {
        return Ok(Solution {
            x,
            info: 0,
            iterations: flags[1] as usize,
        });
    }
    Ok(Solution {
        x,
        info: maxiter as i64,
        iterations: maxiter,
    })
}
