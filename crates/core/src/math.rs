//! Complex helpers shared by the CPU reference (the CUDA header implements the same formulas).

use num_complex::Complex;
use num_traits::Float;

/// Complex division by Smith's algorithm (the formula the CUDA side uses).
#[inline]
pub fn cdiv<R: Float>(a: Complex<R>, b: Complex<R>) -> Complex<R> {
    if b.re.abs() >= b.im.abs() {
        if b.re == R::zero() && b.im == R::zero() {
            return Complex::new(a.re / b.re, a.im / b.re);
        }
        let r = b.im / b.re;
        let d = b.re + b.im * r;
        Complex::new((a.re + a.im * r) / d, (a.im - a.re * r) / d)
    } else {
        let r = b.re / b.im;
        let d = b.re * r + b.im;
        Complex::new((a.re * r + a.im) / d, (a.im * r - a.re) / d)
    }
}

/// `a ** b` for complex numbers: `exp(b ln a)`, with `0 ** 0 = 1` and `0 ** b = 0` otherwise.
#[inline]
pub fn cpow<R: Float>(a: Complex<R>, b: Complex<R>) -> Complex<R> {
    if a.re == R::zero() && a.im == R::zero() {
        return if b.re == R::zero() && b.im == R::zero() {
            Complex::new(R::one(), R::zero())
        } else {
            Complex::new(R::zero(), R::zero())
        };
    }
    (b * a.ln()).exp()
}
