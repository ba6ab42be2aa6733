//! `vectorized_filter` (SciPy 1.16+): a batched function over the windows of every element.
//! The windows are gathered on the host in batches and handed to a Rust closure; a CUDA input
//! is copied to the host and the result back (a stated hybrid: the function is host code).

use super::engine::{to_f64, window_at};
use super::rank::rank_points;
use super::{norm_axes, FilterOptions, Footprint, Real};
use crate::modes::Mode;
use crate::structure::unravel;
use cusci_core::error::make;
use cusci_core::{Array, Result};

/// The function of [`vectorized_filter`]: `f(windows, window_len, out)` with `windows` holding
/// `out.len()` windows of `window_len` values each (row-major; each window's selected elements
/// in C order over the filtered axes, in `axes` order), writing one value per window.
pub type WindowFn = dyn Fn(&[f64], usize, &mut [f64]) + Sync;

/// The `mode` of [`vectorized_filter`] (SciPy's names; the padding is NumPy's `np.pad`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VectorizedMode {
    /// `d c b a | a b c d | d c b a` (default).
    #[default]
    Reflect,
    /// `cval` beyond the edges.
    Constant,
    /// The edge value repeated.
    Nearest,
    /// `d c b | a b c d | c b a`.
    Mirror,
    /// Periodic.
    Wrap,
    /// As SciPy maps it: NumPy's `'reflect'` pad, i.e. [`VectorizedMode::Mirror`].
    GridMirror,
    /// As [`VectorizedMode::Constant`].
    GridConstant,
    /// As [`VectorizedMode::Wrap`].
    GridWrap,
    /// No extension: the output shrinks by `size − 1` along each filtered axis.
    Valid,
}

/// The keyword arguments of [`vectorized_filter`], SciPy's defaults.
#[derive(Debug, Clone)]
pub struct VectorizedOptions {
    /// The extension (default reflect).
    pub mode: VectorizedMode,
    /// The constant of `Constant` (SciPy: only with mode constant; `None` = 0).
    pub cval: Option<f64>,
    /// One origin for every filtered axis or one per axis (empty: 0).
    pub origin: Vec<isize>,
    /// The filtered axes (`None`: all), as SciPy's `axes`.
    pub axes: Option<Vec<isize>>,
    /// The most bytes of windows handed to one call of the function (default 2^30).
    pub batch_memory: usize,
}

impl Default for VectorizedOptions {
    fn default() -> Self {
        VectorizedOptions {
            mode: VectorizedMode::Reflect,
            cval: None,
            origin: Vec::new(),
            axes: None,
            batch_memory: 1 << 30,
        }
    }
}

/// `scipy.ndimage.vectorized_filter(input, function, *, size, footprint, mode, cval, origin,
/// axes, batch_memory)` (SciPy 1.16+): `out[i] = function(window(i))`, the function called on
/// batches of windows (at most `batch_memory` bytes of f64 window values per call). The
/// windows are SciPy's: the input padded as `np.pad` pads it (`size//2 + origin` before,
/// `(size−1)//2 − origin` after) for the extending modes, unpadded for `Valid`. With a
/// footprint, a window holds its selected elements in C order. Output f64 (SciPy: the
/// function's dtype), the input's shape (`Valid`: smaller).
///
/// Device: the function is host code: a CUDA input is copied to the host, the windows built
/// there, and the result copied back.
///
/// # Errors
/// `InvalidArgument` with SciPy's messages: `cval` with a mode other than constant, an origin
/// with `Valid` or beyond the window (a negative padding), sizes or a footprint whose rank is
/// not the number of axes, repeated or out-of-range axes, a window larger than the input with
/// `Valid`, a `batch_memory` below one window, a zero size.
///
/// ```
/// use cusci_ndimage::{vectorized_filter, Footprint, VectorizedOptions, Array, Device};
/// let x = Array::from_vec(vec![1.0f64, 5.0, 2.0, 4.0], &[4], &Device::Cpu).unwrap();
/// let sum = |w: &[f64], k: usize, out: &mut [f64]| {
///     for (o, win) in out.iter_mut().zip(w.chunks(k)) {
///         *o = win.iter().sum();
///     }
/// };
/// let y = vectorized_filter(&x, &sum, &Footprint::Size(vec![3]), &VectorizedOptions::default())
///     .unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![7.0, 8.0, 11.0, 10.0]);
/// ```
pub fn vectorized_filter<T: Real>(
    input: &Array<T>,
    function: &WindowFn,
    footprint: &Footprint,
    opts: &VectorizedOptions,
) -> Result<Array<f64>> {
    let op = "vectorized_filter";
    let valid = opts.mode == VectorizedMode::Valid;
    if opts.cval.is_some()
        && !matches!(
            opts.mode,
            VectorizedMode::Constant | VectorizedMode::GridConstant
        )
    {
        return Err(make::arg(
            op,
            "Use of `cval` is compatible only with `mode='constant'`.",
        ));
    }
    if valid && opts.origin.iter().any(|&o| o != 0) {
        return Err(make::arg(
            op,
            "`mode='valid'` is incompatible with use of `origin`.",
        ));
    }
    let mode = match opts.mode {
        VectorizedMode::Reflect => Mode::Reflect,
        VectorizedMode::Constant | VectorizedMode::GridConstant | VectorizedMode::Valid => {
            Mode::Constant
        }
        VectorizedMode::Nearest => Mode::Nearest,
        VectorizedMode::Mirror | VectorizedMode::GridMirror => Mode::Mirror,
        VectorizedMode::Wrap | VectorizedMode::GridWrap => Mode::Wrap,
    };
    let nd = input.ndim();
    let axes = norm_axes(op, &opts.axes, nd)?;
    let sizes: Vec<usize> = match footprint {
        Footprint::Size(s) if s.len() == 1 => vec![s[0]; axes.len()],
        Footprint::Size(s) => s.clone(),
        Footprint::Mask(m) => m.shape().to_vec(),
    };
    if sizes.len() != axes.len() {
        return Err(make::arg(
            op,
            "`axes` must be compatible with the dimensionality of the window specified by \
             `size` or `footprint`.",
        ));
    }
    if sizes.contains(&0) {
        return Err(make::arg(
            op,
            "All elements of `size` must be positive integers.",
        ));
    }
    // the crate's footprints have one dimension per filtered axis in increasing axis order;
    // SciPy's `size`, `footprint` and `origin` here follow `axes` as given: the same problem
    // with the axes sorted
    let mut perm: Vec<usize> = (0..axes.len()).collect();
    perm.sort_by_key(|&i| axes[i]);
    let origin: Vec<isize> = if valid || opts.origin.len() <= 1 {
        if valid {
            Vec::new()
        } else {
            opts.origin.clone()
        }
    } else if opts.origin.len() == axes.len() {
        perm.iter().map(|&i| opts.origin[i]).collect()
    } else {
        return Err(make::arg(
            op,
            "`origin` must be an integer or tuple of integers with length equal to the number \
             of axes.",
        ));
    };
    let fp_sorted = match footprint {
        Footprint::Size(_) => Footprint::Size(perm.iter().map(|&i| sizes[i]).collect()),
        Footprint::Mask(m) => {
            let p: Vec<isize> = perm.iter().map(|&i| i as isize).collect();
            Footprint::Mask(m.permute(&p)?.contiguous()?)
        }
    };
    let fo = FilterOptions {
        mode,
        cval: opts.cval.unwrap_or(0.0),
        origin,
        axes: Some(perm.iter().map(|&i| axes[i] as isize).collect()),
        ..FilterOptions::default()
    };
    let mut pts = rank_points(op, input, &fp_sorted, &fo)?;
    if pts.len() == 0 {
        return Err(make::arg(op, "the footprint selects no element"));
    }
    // a window's values in C order over the filtered axes in `axes` order (SciPy moves them to
    // the end in that order); the points come in the array's axis order
    if axes.windows(2).any(|w| w[0] > w[1]) && nd > 0 {
        let np = pts.len();
        let mut idx: Vec<usize> = (0..np).collect();
        let key = |i: usize| -> Vec<i64> { axes.iter().map(|&a| pts.offs[i * nd + a]).collect() };
        idx.sort_by_key(|&i| key(i));
        let offs: Vec<i64> = idx
            .iter()
            .flat_map(|&i| pts.offs[i * nd..(i + 1) * nd].to_vec())
            .collect();
        let w: Vec<f64> = idx.iter().map(|&i| pts.w[i]).collect();
        pts.offs = offs;
        pts.w = w;
    }
    let shape = input.shape().to_vec();
    let mut oshape = shape.clone();
    if valid {
        for (&a, &s) in axes.iter().zip(&sizes) {
            if s > shape[a] {
                return Err(make::arg(
                    op,
                    "window shape cannot be larger than input array shape",
                ));
            }
            oshape[a] = shape[a] - s + 1;
        }
    }
    let n: usize = oshape.iter().product();
    if input.size() == 0 || n == 0 {
        return Array::<f64>::zeros(&oshape, input.device());
    }
    let k = pts.len();
    let per_call = opts.batch_memory / (8 * k);
    if per_call == 0 {
        return Err(make::arg(
            op,
            "`batch_memory` is insufficient for minimum chunk size.",
        ));
    }
    let xv = to_f64(input)?;
    let mut out = vec![0.0f64; n];
    let mut buf = vec![0.0f64; per_call.min(n) * k];
    let mut c = vec![0i64; nd];
    for (ci, ch) in out.chunks_mut(per_call).enumerate() {
        let start = ci * per_call;
        let wins = &mut buf[..ch.len() * k];
        for (j, w) in wins.chunks_mut(k).enumerate() {
            unravel(start + j, &oshape, &mut c);
            if valid {
                for (&a, &s) in axes.iter().zip(&sizes) {
                    c[a] += (s / 2) as i64;
                }
            }
            window_at(&xv, &shape, &c, &pts, mode, fo.cval, w);
        }
        function(wins, k, ch);
    }
    Array::from_vec(out, &oshape, input.device())
}
