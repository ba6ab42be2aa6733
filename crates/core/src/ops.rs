//! Element-wise arithmetic, math, comparisons and selection on [`Array`], with NumPy's
//! broadcasting. Each operation runs on the arrays' device: a generated CUDA kernel on a GPU, the
//! rayon reference on the CPU. Both give IEEE results: NaN and ±Inf pass through as IEEE
//! arithmetic says (no error is raised for them, as in NumPy).
//!
//! Operators on references return `Result`: `(&a + &b)?`.

use crate::array::Array;
use crate::dtype::{Element, Float, Numeric, Ordered, RealFloat};
use crate::elementwise::{binary, ternary, unary, unary_scalar};
use crate::error::Result;

impl<T: Numeric> Array<T> {
    /// `self + other` (broadcast).
    pub fn add(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("add", self, other, "o = cusci_add(a, b)", |a: T, b: T| {
            a.add(b)
        })
    }
    /// `self - other` (broadcast).
    pub fn sub(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("sub", self, other, "o = cusci_sub(a, b)", |a: T, b: T| {
            a.sub(b)
        })
    }
    /// `self * other` (broadcast).
    pub fn mul(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("mul", self, other, "o = cusci_mul(a, b)", |a: T, b: T| {
            a.mul(b)
        })
    }
    /// `self / other` (broadcast; integer division truncates, by zero gives 0).
    pub fn div(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("div", self, other, "o = cusci_div(a, b)", |a: T, b: T| {
            a.div(b)
        })
    }
    /// `self + s`.
    pub fn add_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("adds", self, s, "o = cusci_add(a, s)", |a: T, s: T| {
            a.add(s)
        })
    }
    /// `self - s`.
    pub fn sub_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("subs", self, s, "o = cusci_sub(a, s)", |a: T, s: T| {
            a.sub(s)
        })
    }
    /// `s - self`.
    pub fn rsub_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("rsubs", self, s, "o = cusci_sub(s, a)", |a: T, s: T| {
            s.sub(a)
        })
    }
    /// `self * s`.
    pub fn mul_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("muls", self, s, "o = cusci_mul(a, s)", |a: T, s: T| {
            a.mul(s)
        })
    }
    /// `self / s`.
    pub fn div_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("divs", self, s, "o = cusci_div(a, s)", |a: T, s: T| {
            a.div(s)
        })
    }
    /// `s / self`.
    pub fn rdiv_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("rdivs", self, s, "o = cusci_div(s, a)", |a: T, s: T| {
            s.div(a)
        })
    }
    /// `-self` (wrapping for integers).
    pub fn neg(&self) -> Result<Array<T>> {
        unary("neg", self, "o = cusci_sub(decltype(a)(), a)", |a: T| {
            T::zero().sub(a)
        })
    }
}

impl<T: Float> Array<T> {
    /// |x| (the modulus for complex), of the real type.
    pub fn abs(&self) -> Result<Array<T::Real>> {
        unary("abs", self, "o = cusci_abs(a)", |a: T| a.abs())
    }
    /// |x|², of the real type.
    pub fn abs2(&self) -> Result<Array<T::Real>> {
        unary("abs2", self, "o = cusci_abs2(a)", |a: T| a.abs2())
    }
    /// Square root (principal branch for complex; NaN for negative reals).
    pub fn sqrt(&self) -> Result<Array<T>> {
        unary("sqrt", self, "o = cusci_sqrt(a)", |a: T| a.sqrt())
    }
    /// e^x.
    pub fn exp(&self) -> Result<Array<T>> {
        unary("exp", self, "o = cusci_exp(a)", |a: T| a.exp())
    }
    /// Natural logarithm (NumPy's `log`; -inf at 0, NaN below for reals).
    pub fn log(&self) -> Result<Array<T>> {
        unary("log", self, "o = cusci_log(a)", |a: T| a.ln())
    }
    /// Sine.
    pub fn sin(&self) -> Result<Array<T>> {
        unary("sin", self, "o = cusci_sin(a)", |a: T| a.sin())
    }
    /// Cosine.
    pub fn cos(&self) -> Result<Array<T>> {
        unary("cos", self, "o = cusci_cos(a)", |a: T| a.cos())
    }
    /// Hyperbolic tangent.
    pub fn tanh(&self) -> Result<Array<T>> {
        unary("tanh", self, "o = cusci_tanh(a)", |a: T| a.tanh())
    }
    /// `self ** e` element-wise (broadcast).
    pub fn pow(&self, e: &Array<T>) -> Result<Array<T>> {
        binary("pow", self, e, "o = cusci_pow(a, b)", |a: T, b: T| {
            a.powf(b)
        })
    }
    /// `self ** e` for a scalar exponent.
    pub fn powf(&self, e: T) -> Result<Array<T>> {
        unary_scalar("pows", self, e, "o = cusci_pow(a, s)", |a: T, s: T| {
            a.powf(s)
        })
    }
    /// Complex conjugate (the identity for reals).
    pub fn conj(&self) -> Result<Array<T>> {
        unary("conj", self, "o = cusci_conj(a)", |a: T| a.conj())
    }
    /// Real part.
    pub fn real(&self) -> Result<Array<T::Real>> {
        unary("real", self, "o = cusci_real(a)", |a: T| a.re())
    }
    /// Imaginary part (zeros for reals).
    pub fn imag(&self) -> Result<Array<T::Real>> {
        unary("imag", self, "o = cusci_imag(a)", |a: T| a.im())
    }
    /// True where the element is NaN (either part for complex).
    pub fn isnan(&self) -> Result<Array<bool>> {
        unary("isnan", self, "o = cusci_isnan(a)", |a: T| a.is_nan())
    }
}

fn nan_max<T: Ordered>(a: T, b: T) -> T {
    #[allow(clippy::eq_op)]
    if a != a {
        a
    } else if b != b || b > a {
        b
    } else {
        a
    }
}

fn nan_min<T: Ordered>(a: T, b: T) -> T {
    #[allow(clippy::eq_op)]
    if a != a {
        a
    } else if b != b || b < a {
        b
    } else {
        a
    }
}

impl<T: Ordered> Array<T> {
    /// Element-wise maximum (NaN propagates, as NumPy's `maximum`).
    pub fn maximum(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("maximum", self, other, "o = cusci_max(a, b)", nan_max)
    }
    /// Element-wise minimum (NaN propagates, as NumPy's `minimum`).
    pub fn minimum(&self, other: &Array<T>) -> Result<Array<T>> {
        binary("minimum", self, other, "o = cusci_min(a, b)", nan_min)
    }
    /// Element-wise maximum with a scalar.
    pub fn maximum_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("maxs", self, s, "o = cusci_max(a, s)", nan_max)
    }
    /// Element-wise minimum with a scalar.
    pub fn minimum_scalar(&self, s: T) -> Result<Array<T>> {
        unary_scalar("mins", self, s, "o = cusci_min(a, s)", nan_min)
    }
    /// Values limited to `[lo, hi]` (NumPy's `clip`: `minimum(maximum(x, lo), hi)`; NaN stays).
    pub fn clip(&self, lo: T, hi: T) -> Result<Array<T>> {
        self.maximum_scalar(lo)?.minimum_scalar(hi)
    }
    /// `self < other`.
    pub fn lt(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("lt", self, other, "o = a < b", |a: T, b: T| a < b)
    }
    /// `self <= other`.
    pub fn le(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("le", self, other, "o = a <= b", |a: T, b: T| a <= b)
    }
    /// `self > other`.
    pub fn gt(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("gt", self, other, "o = a > b", |a: T, b: T| a > b)
    }
    /// `self >= other`.
    pub fn ge(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("ge", self, other, "o = a >= b", |a: T, b: T| a >= b)
    }
    /// `self < s`.
    pub fn lt_scalar(&self, s: T) -> Result<Array<bool>> {
        unary_scalar("lts", self, s, "o = a < s", |a: T, s: T| a < s)
    }
    /// `self > s`.
    pub fn gt_scalar(&self, s: T) -> Result<Array<bool>> {
        unary_scalar("gts", self, s, "o = a > s", |a: T, s: T| a > s)
    }
    /// `self <= s`.
    pub fn le_scalar(&self, s: T) -> Result<Array<bool>> {
        unary_scalar("les", self, s, "o = a <= s", |a: T, s: T| a <= s)
    }
    /// `self >= s`.
    pub fn ge_scalar(&self, s: T) -> Result<Array<bool>> {
        unary_scalar("ges", self, s, "o = a >= s", |a: T, s: T| a >= s)
    }
}

impl<T: Element> Array<T> {
    /// `self == other` (broadcast; complex compares both parts; NaN != NaN).
    pub fn eq(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("eq", self, other, "o = a == b", |a: T, b: T| a == b)
    }
    /// `self != other` (broadcast).
    pub fn ne(&self, other: &Array<T>) -> Result<Array<bool>> {
        binary("ne", self, other, "o = a != b", |a: T, b: T| a != b)
    }
    /// `self == s`.
    pub fn eq_scalar(&self, s: T) -> Result<Array<bool>> {
        unary_scalar("eqs", self, s, "o = a == s", |a: T, s: T| a == s)
    }
}

impl<T: RealFloat> Array<T> {
    /// True where the element is finite.
    pub fn isfinite(&self) -> Result<Array<bool>> {
        unary("isfinite", self, "o = isfinite(a)", |a: T| {
            num_traits::Float::is_finite(a)
        })
    }
}

/// `x` where `cond` is true, else `y` (NumPy's `where`, broadcast over all three).
pub fn where_<T: Element>(cond: &Array<bool>, x: &Array<T>, y: &Array<T>) -> Result<Array<T>> {
    ternary(
        "where",
        cond,
        x,
        y,
        "o = a ? b : c",
        |c: bool, a: T, b: T| if c { a } else { b },
    )
}

macro_rules! operator {
    ($tr:ident, $m:ident, $f:ident) => {
        impl<T: Numeric> std::ops::$tr<&Array<T>> for &Array<T> {
            type Output = Result<Array<T>>;
            fn $m(self, rhs: &Array<T>) -> Result<Array<T>> {
                Array::$f(self, rhs)
            }
        }
    };
}
operator!(Add, add, add);
operator!(Sub, sub, sub);
operator!(Mul, mul, mul);
operator!(Div, div, div);
