//! [`clarkson_woodruff_transform`]: the CountSketch of SciPy's
//! `linalg.clarkson_woodruff_transform`.

use crate::util::mat_dims;
use crate::Scalar;
use cusci_core::error::make;
use cusci_core::random::Generator;
use cusci_core::{c64, Array, Device, Result};
use rayon::prelude::*;

/// The Clarkson–Woodruff transform (CountSketch) of `input` (SciPy's
/// `linalg.clarkson_woodruff_transform(input_matrix, sketch_size, rng)`): `s @ input` with `s`
/// a `(sketch_size, N)` matrix that has one nonzero per column, `±1` with equal probability in a
/// uniformly random row, so that `‖s a x‖ ≈ ‖a x‖` with high probability. `input` is `(..., N,
/// D)`; a stack is sketched with one `s` for all its matrices (as SciPy's batching); the result
/// is `(..., sketch_size, D)`.
///
/// Randomness: column `i` of `s` takes its row from `Generator::new(seed).integers(0,
/// sketch_size, [N])` and its sign from the next `integers(0, 2, [N])` draw (0 → +1, 1 → −1)
/// of cusci-core's Philox stream, which gives the same values on the CPU and the GPU: both
/// devices compute the same sketch. The stream is not NumPy's, so the sketch differs from
/// SciPy's for the same seed (its distribution is the same); SciPy's `rng=None` (fresh entropy)
/// has no counterpart: pass a seed.
///
/// Numerics: each output row is a signed sum of input rows; the CPU adds them in row order,
/// the GPU through a GEMM, so the devices agree to rounding (`≈ ε · (number of rows summed)`).
/// GPU: composed: the hash and signs are drawn on the device, `s` is formed there as a dense
/// `(sketch_size, N)` matrix by element-wise comparison (`sketch_size · N` elements of
/// memory) and multiplied by cuBLAS; SciPy's sparse product costs `O(nnz(input))` instead.
/// Sparse inputs are not taken (cusci-sparse's matrices are a crate above this one).
///
/// # Errors
/// `InvalidArgument` when `input` has fewer than 2 dimensions or `sketch_size` is 0 (SciPy:
/// `high <= 0`).
///
/// ```
/// use cusci_linalg::{clarkson_woodruff_transform, Array, Device};
/// let a = Array::from_vec((0..12).map(|i| i as f64).collect(), &[6, 2], &Device::Cpu)?;
/// let s = clarkson_woodruff_transform(&a, 3, 42)?;
/// assert_eq!(s.shape(), &[3, 2]);
/// // every input row lands in one output row with a sign: the column sums of |s a| are bounded
/// let v = s.to_vec()?;
/// let total: f64 = v.iter().step_by(2).map(|x| x.abs()).sum();
/// assert!(total <= 30.0 + 1e-12); // 0 + 2 + ... + 10
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn clarkson_woodruff_transform<T: Scalar>(
    input: &Array<T>,
    sketch_size: usize,
    seed: u64,
) -> Result<Array<T>> {
    let op = "clarkson_woodruff_transform";
    let (batch, n, d) = mat_dims(op, input)?;
    if sketch_size == 0 {
        return Err(make::arg(op, "sketch_size must be positive (high <= 0)"));
    }
    let dev = input.device();
    let mut gen = Generator::new(seed);
    let mut out_shape = batch.clone();
    out_shape.extend([sketch_size, d]);
    if n == 0 {
        return Array::zeros(&out_shape, dev);
    }
    let hi = i64::try_from(sketch_size).map_err(|_| make::arg(op, "sketch_size too large"))?;
    let rows = gen.integers(0, hi, &[n], dev)?;
    let bits = gen.integers(0, 2, &[n], dev)?;
    match dev {
        Device::Cpu => {
            let rows = rows.to_vec()?;
            let bits = bits.to_vec()?;
            let a = input.to_vec()?;
            let count: usize = batch.iter().product();
            let mut o = vec![T::zero(); count * sketch_size * d];
            if d > 0 {
                o.par_chunks_mut(sketch_size * d)
                    .enumerate()
                    .for_each(|(b, ob)| {
                        let ab = &a[b * n * d..(b + 1) * n * d];
                        for i in 0..n {
                            let r = rows[i] as usize;
                            let src = &ab[i * d..(i + 1) * d];
                            let dst = &mut ob[r * d..(r + 1) * d];
                            if bits[i] == 0 {
                                dst.iter_mut().zip(src).for_each(|(o, &x)| *o = *o + x);
                            } else {
                                dst.iter_mut().zip(src).for_each(|(o, &x)| *o = *o - x);
                            }
                        }
                    });
            }
            Array::from_vec(o, &out_shape, dev)
        }
        Device::Cuda(_) => composed(input, &rows, &bits, sketch_size),
    }
}

/// The GPU's form (device-generic): the dense sketch matrix `s[r, i] = (rows[i] == r) · (1 -
/// 2 bits[i])` from element-wise operations, then one product.
fn composed<T: Scalar>(
    input: &Array<T>,
    rows: &Array<i64>,
    bits: &Array<i64>,
    sketch_size: usize,
) -> Result<Array<T>> {
    let dev = input.device();
    let n = rows.size();
    let ks = Array::<i64>::arange(0.0, sketch_size as f64, 1.0, dev)?
        .reshape(&[sketch_size as isize, 1])?;
    let mask = ks.eq(&rows.reshape(&[1, n as isize])?)?;
    let sign = bits
        .astype::<T>()?
        .mul_scalar(T::from_c64(c64::new(-2.0, 0.0)))?
        .add_scalar(T::one())?
        .reshape(&[1, n as isize])?;
    let zero = Array::<T>::zeros(&[1, 1], dev)?;
    let s = cusci_core::where_(&mask, &sign, &zero)?;
    crate::matmul(&s, input)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU's composition, run on the CPU, gives the CPU's scatter result.
    #[test]
    fn composed_matches_scatter() {
        fn body<T: Scalar>() {
            let dev = Device::Cpu;
            let (n, d, k, seed) = (23usize, 3usize, 5usize, 99u64);
            let a = cusci_core::testing::randn::<T>(&[2, n, d], 3, &dev).unwrap();
            let want = clarkson_woodruff_transform(&a, k, seed).unwrap();
            let mut gen = Generator::new(seed);
            let rows = gen.integers(0, k as i64, &[n], &dev).unwrap();
            let bits = gen.integers(0, 2, &[n], &dev).unwrap();
            let got = composed(&a, &rows, &bits, k).unwrap();
            assert_eq!(got.shape(), want.shape());
            for (g, w) in got.to_vec().unwrap().iter().zip(want.to_vec().unwrap()) {
                assert!((g.to_c64() - w.to_c64()).norm() < 1e-5 * (1.0 + w.to_c64().norm()));
            }
        }
        body::<f32>();
        body::<f64>();
        body::<cusci_core::c32>();
        body::<c64>();
    }
}
