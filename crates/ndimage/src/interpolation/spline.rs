//! The B-spline prefilter's numerics (for `spline_filter`, `spline_filter1d` and the prefilter of
//! the transforms): the recursive filter's poles and boundary, its CPU lines, and the chunking
//! of its GPU passes (which `cuda.rs` launches).

use crate::modes::Mode;
use rayon::prelude::*;

/// The poles of the B-spline prefilter of `order`, correctly rounded (SciPy's constants): the
/// formulas in double would be a few ulps off (`sqrt(8) − 3` two, order 4's first about 40).
pub(super) fn poles(order: usize) -> Vec<f64> {
    match order {
        // sqrt(8) − 3
        2 => vec![-0.1715728752538099],
        // sqrt(3) − 2
        3 => vec![-0.2679491924311227],
        // sqrt(664 ∓ sqrt(438976)) ± sqrt(304) − 19
        4 => vec![-0.36134122590022016, -0.013725429297339121],
        // sqrt(67.5 ∓ sqrt(4436.25)) ± sqrt(26.25) − 6.5
        5 => vec![-0.4305753470999738, -0.04309628820326465],
        _ => vec![],
    }
}

/// 0 mirror, 1 reflect, 2 wrap: the boundary of the prefilter for `mode` (as SciPy).
pub(super) fn spline_init(mode: Mode) -> i32 {
    match mode {
        Mode::GridWrap => 2,
        Mode::Nearest | Mode::Reflect | Mode::GridMirror => 1,
        _ => 0,
    }
}

#[allow(clippy::needless_range_loop)]
fn spline_line(c: &mut [f64], poles: &[f64], init: i32) {
    let n = c.len();
    if n <= 1 {
        return;
    }
    let gain: f64 = poles.iter().map(|&z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    c.iter_mut().for_each(|v| *v *= gain);
    for &z in poles {
        let c0 = c[0];
        match init {
            0 => {
                let zn1 = z.powf((n - 1) as f64);
                let mut zi = z;
                let mut s = c0 + zn1 * c[n - 1];
                for j in 1..n - 1 {
                    s += zi * (c[j] + zn1 * c[n - 1 - j]);
                    zi *= z;
                }
                c[0] = s / (1.0 - zn1 * zn1);
            }
            1 => {
                let zn = z.powf(n as f64);
                let mut zi = z;
                let mut s = c0 + zn * c[n - 1];
                for j in 1..n {
                    // SciPy accumulates in c[0] itself, so the last term reads the partial sum
                    let back = if j == n - 1 { s } else { c[n - 1 - j] };
                    s += zi * (c[j] + zn * back);
                    zi *= z;
                }
                s *= z / (1.0 - zn * zn);
                c[0] = s + c0;
            }
            _ => {
                let mut zi = z;
                let mut s = c0;
                for j in 1..n {
                    s += zi * c[n - j];
                    zi *= z;
                }
                c[0] = s / (1.0 - zi);
            }
        }
        for j in 1..n {
            c[j] += z * c[j - 1];
        }
        c[n - 1] = match init {
            0 => (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0),
            // SciPy's `c *= z / (z − 1)` (the quotient first), likewise for wrap
            1 => c[n - 1] * (z / (z - 1.0)),
            _ => {
                let mut zi = z;
                let mut s = c[n - 1];
                for j in 0..n - 1 {
                    s += zi * c[j];
                    zi *= z;
                }
                s * (z / (zi - 1.0))
            }
        };
        for j in (0..n - 1).rev() {
            c[j] = z * (c[j + 1] - c[j]);
        }
    }
}

/// The prefilter along `axis` of the C-contiguous `v` of `shape`, every line by
/// [`spline_line`]. Lines along the last axis are contiguous and run in parallel; lines with
/// elements after them (`inner` > 1) are gathered into a column-major copy of each outer block
/// (tasks of 8 neighbouring columns, each reading 8 contiguous values per row), filtered there,
/// and scattered back in groups of 8 rows.
pub(super) fn spline_axis_cpu(
    v: &mut [f64],
    shape: &[usize],
    axis: usize,
    order: usize,
    mode: Mode,
) {
    const B: usize = 8;
    let len = shape[axis];
    if len <= 1 || order < 2 || v.is_empty() {
        return;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let p = poles(order);
    let init = spline_init(mode);
    if inner == 1 {
        v.par_chunks_mut(len)
            .for_each(|line| spline_line(line, &p, init));
        return;
    }
    v.par_chunks_mut(len * inner).for_each(|block| {
        // t[j * len + i]: column j's line
        let mut t = vec![0.0; len * inner];
        t.par_chunks_mut(B * len).enumerate().for_each(|(k, tb)| {
            let nb = tb.len() / len;
            for i in 0..len {
                let row = &block[i * inner + k * B..][..nb];
                for (b, &x) in row.iter().enumerate() {
                    tb[b * len + i] = x;
                }
            }
            for line in tb.chunks_mut(len) {
                spline_line(line, &p, init);
            }
        });
        block
            .par_chunks_mut(B * inner)
            .enumerate()
            .for_each(|(g, rows)| {
                let nr = rows.len() / inner;
                for j in 0..inner {
                    let col = &t[j * len + g * B..][..nr];
                    for (r, &x) in col.iter().enumerate() {
                        rows[r * inner + j] = x;
                    }
                }
            });
    });
}

/// Chunk length of the GPU prefilter passes: about 2^18 threads or more, at least 32 positions.
pub(super) fn spline_chunk(n: usize) -> usize {
    (n >> 18).next_power_of_two().clamp(32, 256)
}

/// Positions after which a pole's recursion has forgotten its start: |z|^warm < 1e-16.
pub(super) fn spline_warm(z: f64) -> usize {
    ((1e-16f64).ln() / z.abs().ln()).ceil().max(1.0) as usize
}
