//! What the front ends and both devices' raw transforms share: the argument checks of the
//! transforms, the normalisation ([`Post`]) and the description of a real-to-real transform
//! ([`R2r`], of a [`DctType`]). It depends on nothing else in the crate but the option types of
//! `lib.rs`.

use crate::{FftOptions, FftnOptions, Norm};
use cusci_core::array::layout::norm_axis;
use cusci_core::error::make;
use cusci_core::Result;

// ---------- the normalisation ----------

/// What is applied to a raw transform's result: a scale (the normalisation) and, for complex
/// results, a conjugation (the Hermitian transforms). Each device folds it into work it already
/// does: the CPU as it writes each lane's outputs; the GPU in the cut/zero-pad copy or the C2R
/// input copy before the cuFFT call when there is one (by linearity), else in one vectorised
/// in-place pass over the fresh output — never two passes. For the complex-to-real transforms
/// `conj` conjugates the *input* (what `hfft` needs; the output is real).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Post {
    /// The factor (1: none).
    pub(crate) scale: f64,
    /// Conjugate (see above).
    pub(crate) conj: bool,
}

impl Post {
    /// Nothing applied.
    pub(crate) const IDENTITY: Post = Post {
        scale: 1.0,
        conj: false,
    };

    /// True when nothing is applied.
    pub(crate) fn is_identity(self) -> bool {
        self.scale == 1.0 && !self.conj
    }

    /// The normalisation of every transform, in one place for both devices: `norm`'s factor for
    /// `n` points (the product of the logical transform lengths) in direction `forward`.
    pub(crate) fn norm(norm: Norm, n: usize, forward: bool) -> Post {
        Post {
            scale: norm.factor(n, forward),
            conj: false,
        }
    }

    /// The same, conjugating too.
    pub(crate) fn conj(self) -> Post {
        Post { conj: true, ..self }
    }
}

// ---------- argument checks ----------

pub(crate) fn bad_len(op: &str, n: usize) -> cusci_core::Error {
    make::arg(op, format!("invalid number of data points ({n}) specified"))
}

/// The axis (normalised) and the transform length of a 1-D transform; `n` defaults to the
/// input's length along the axis (or `default_n(m)` when given, for the c2r transforms).
pub(crate) fn check_1d(
    op: &str,
    shape: &[usize],
    o: &FftOptions,
    c2r: bool,
) -> Result<(usize, usize)> {
    let axis = norm_axis(op, o.axis, shape.len())?;
    let m = shape[axis];
    let n = match o.n {
        Some(n) => n,
        None if c2r => {
            if m == 0 {
                return Err(bad_len(op, 0));
            }
            2 * (m - 1)
        }
        None => m,
    };
    if n == 0 {
        return Err(bad_len(op, n));
    }
    Ok((axis, n))
}

/// The (axis, length) pairs of an n-d transform, in the order given. `default_axes`: the axes
/// when neither `s` nor `axes` is given (`None`: all). `c2r`: the last length defaults to
/// `2*(m-1)`.
pub(crate) fn check_nd(
    op: &str,
    shape: &[usize],
    o: &FftnOptions,
    default_axes: Option<&[isize]>,
    c2r: bool,
) -> Result<Vec<(usize, usize)>> {
    let nd = shape.len();
    let axes: Vec<isize> = match (&o.axes, &o.s) {
        (Some(a), Some(s)) => {
            if a.len() != s.len() {
                return Err(make::shape(
                    op,
                    format!("s {s:?} and axes {a:?} must have the same length when both are given"),
                ));
            }
            a.clone()
        }
        (Some(a), None) => a.clone(),
        (None, Some(s)) => {
            if s.len() > nd {
                return Err(make::shape(
                    op,
                    format!("s {s:?} has more entries than the array's {nd} dimensions"),
                ));
            }
            (nd - s.len()..nd).map(|a| a as isize).collect()
        }
        (None, None) => match default_axes {
            Some(d) => d.to_vec(),
            None => (0..nd).map(|a| a as isize).collect(),
        },
    };
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(axes.len());
    for (i, &a) in axes.iter().enumerate() {
        let ax = norm_axis(op, a, nd)?;
        if out.iter().any(|&(b, _)| b == ax) {
            return Err(make::arg(op, format!("axis {a} is repeated in {axes:?}")));
        }
        let m = shape[ax];
        let last = i + 1 == axes.len();
        let n = match &o.s {
            Some(s) => s[i],
            None if c2r && last => {
                if m == 0 {
                    return Err(bad_len(op, 0));
                }
                2 * (m - 1)
            }
            None => m,
        };
        if n == 0 {
            return Err(bad_len(op, n));
        }
        out.push((ax, n));
    }
    // the transformed shape's element count must fit (the axes one by one are checked later)
    let mut full = shape.to_vec();
    for &(ax, n) in &out {
        full[ax] = n;
    }
    cusci_core::array::layout::checked_numel(op, &full)?;
    Ok(out)
}

/// One normalised 1-D real-to-real transform along one axis: the kind, whether it is a cosine
/// transform, the orthogonalisation of the special terms and the overall factor.
#[derive(Debug, Clone, Copy)]
pub(crate) struct R2r {
    pub(crate) kind: DctType,
    pub(crate) cosine: bool,
    pub(crate) ortho: bool,
    pub(crate) fct: f64,
}

/// The type of a discrete cosine or sine transform, SciPy's `type=` argument (1 to 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum DctType {
    /// `type=1`: the transform of an input that is even (cosines) or odd (sines) around both
    /// ends. DCT-I needs at least 2 points.
    Type1,
    /// `type=2` (SciPy's default): "the" DCT / DST.
    #[default]
    Type2,
    /// `type=3`: the inverse of type 2 (up to scaling).
    Type3,
    /// `type=4`: its own inverse (up to scaling).
    Type4,
}

impl DctType {
    /// The type whose transform inverts this one (up to scaling): 1 → 1, 2 → 3, 3 → 2, 4 → 4.
    pub fn inverse(self) -> DctType {
        match self {
            DctType::Type2 => DctType::Type3,
            DctType::Type3 => DctType::Type2,
            t => t,
        }
    }

    /// The type as SciPy's integer (1 to 4).
    pub fn number(self) -> u8 {
        match self {
            DctType::Type1 => 1,
            DctType::Type2 => 2,
            DctType::Type3 => 3,
            DctType::Type4 => 4,
        }
    }
}
