//! Boundary modes of `scipy.ndimage`: how an array is extended past its edges.
//!
//! [`Mode`] is shared by every function of the crate (filters, interpolation, grey morphology).
//! [`Mode::map_index`] is the CPU index mapping of the filters; [`MODES_CUH`] holds the same
//! mapping as CUDA device functions (`ndi_map_index`) for the kernels, with the mode passed as
//! [`Mode::code`].

use cusci_core::{Error, Result};

/// How values outside the input are obtained (SciPy's `mode` argument).
///
/// For the filters, `GridMirror` is the same as `Reflect`, `GridConstant` as `Constant` and
/// `GridWrap` as `Wrap` (as in SciPy); they differ only for interpolation.
///
/// ```
/// use cusci_ndimage::Mode;
/// let m: Mode = "mirror".parse().unwrap();
/// // input (a b c d) extended as (d c b | a b c d | c b a)
/// assert_eq!(m.map_index(-1, 4), Some(1));
/// assert_eq!(Mode::Reflect.map_index(-1, 4), Some(0));
/// assert_eq!(Mode::Wrap.map_index(4, 4), Some(0));
/// assert_eq!(Mode::Constant.map_index(4, 4), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// `(d c b a | a b c d | d c b a)`: reflection about the edge of the last pixel (SciPy's default).
    #[default]
    Reflect,
    /// `(k k k k | a b c d | k k k k)`: the constant `cval`.
    Constant,
    /// `(a a a a | a b c d | d d d d)`: the edge value repeated.
    Nearest,
    /// `(d c b | a b c d | c b a)`: reflection about the centre of the last pixel.
    Mirror,
    /// `(a b c d | a b c d | a b c d)`: periodic (for interpolation: SciPy's legacy wrap, period n − 1).
    Wrap,
    /// `cval` outside, with interpolation across the edge.
    GridConstant,
    /// Same as `Reflect`.
    GridMirror,
    /// Periodic with period n.
    GridWrap,
}

impl Mode {
    /// Every mode, in [`Mode::code`] order.
    pub const ALL: [Mode; 8] = [
        Mode::Reflect,
        Mode::Constant,
        Mode::Nearest,
        Mode::Mirror,
        Mode::Wrap,
        Mode::GridConstant,
        Mode::GridMirror,
        Mode::GridWrap,
    ];

    /// SciPy's name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Reflect => "reflect",
            Mode::Constant => "constant",
            Mode::Nearest => "nearest",
            Mode::Mirror => "mirror",
            Mode::Wrap => "wrap",
            Mode::GridConstant => "grid-constant",
            Mode::GridMirror => "grid-mirror",
            Mode::GridWrap => "grid-wrap",
        }
    }

    /// The integer passed to CUDA kernels (`NDI_REFLECT` ... `NDI_GRID_WRAP` in [`MODES_CUH`]).
    pub fn code(self) -> i32 {
        Mode::ALL.iter().position(|&m| m == self).unwrap_or(0) as i32
    }

    /// The mode the filters use: the grid modes fold onto their filter equivalents.
    pub fn for_filter(self) -> Mode {
        match self {
            Mode::GridMirror => Mode::Reflect,
            Mode::GridConstant => Mode::Constant,
            Mode::GridWrap => Mode::Wrap,
            m => m,
        }
    }

    /// Index `i` (any integer) of an axis of length `n` (≥ 1) mapped into `0..n` for the filters;
    /// `None` where the value is the constant (`Constant` and `GridConstant`).
    #[inline]
    pub fn map_index(self, i: i64, n: i64) -> Option<i64> {
        if (0..n).contains(&i) {
            return Some(i);
        }
        match self.for_filter() {
            Mode::Constant => None,
            Mode::Nearest => Some(i.clamp(0, n - 1)),
            Mode::Wrap => Some(i.rem_euclid(n)),
            Mode::Mirror => {
                if n == 1 {
                    return Some(0);
                }
                let p = 2 * n - 2;
                let j = i.rem_euclid(p);
                Some(if j >= n { p - j } else { j })
            }
            _ => {
                let p = 2 * n;
                let j = i.rem_euclid(p);
                Some(if j >= n { p - 1 - j } else { j })
            }
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Mode> {
        Ok(match s {
            "reflect" => Mode::Reflect,
            "grid-mirror" => Mode::GridMirror,
            "constant" => Mode::Constant,
            "nearest" => Mode::Nearest,
            "mirror" => Mode::Mirror,
            "wrap" => Mode::Wrap,
            "grid-constant" => Mode::GridConstant,
            "grid-wrap" => Mode::GridWrap,
            _ => {
                return Err(cusci_core::error::make::arg(
                    "ndimage mode",
                    format!(
                        "unknown mode {s:?} (reflect, constant, nearest, mirror, wrap, \
                         grid-constant, grid-mirror, grid-wrap)"
                    ),
                ))
            }
        })
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// CUDA device functions of the boundary modes: `ndi_map_index(i, n, mode)` (filters; −1 for the
/// constant), with `mode` one of [`Mode::code`]. Prepend to a kernel source that uses them.
pub const MODES_CUH: &str = include_str!("modes.cuh");
