//! Linear time-invariant systems: state-space conversions (`tf2ss`, `ss2tf`, `zpk2ss`, `ss2zpk`,
//! `abcd_normalize`, `cont2discrete`), the system types (`lti`/`dlti` as [`Lti`] with
//! [`TransferFunction`], [`ZerosPolesGain`], [`StateSpace`]), frequency responses (`freqresp`,
//! `bode`, `dfreqresp`, `dbode`) and time responses (`lsim`, `dlsim`, `impulse`, `step`,
//! `dimpulse`, `dstep`).
//!
//! Systems are host data (a handful of coefficients). Matrix exponentials, eigenvalues and
//! solves go through `cusci-linalg` on the CPU (where the system lives). The time responses take
//! and return [`Array`]s and run on the array's device: the state recurrence
//! `x[i] = Ad·x[i-1] + Bd0·u[i-1] + Bd1·u[i]`, `y[i] = C·x[i] + D·u[i]` runs sequentially over time
//! with one GPU thread per signal of the batch (the leading axes of `u`), accumulating in `f64`;
//! the CPU runs the same recurrence, one rayon task per signal.

use crate::freqresp::{freqs, freqs_zpk, freqz, freqz_zpk, FreqResponse, FreqzOptions, WorN};
use crate::procutil::{blocks_for, cpu_contig, cuda_type, dptr};
use crate::represent::{normalize, poly_complex, tf2zpk, zpk2tf};
use cusci_core::cuda::kernel::{Args, LaunchConfig};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Element, RealFloat, Result};
use rayon::prelude::*;

const SRC: &str = include_str!("ltisys.cu");

/// A small dense host matrix, row-major (the `A`, `B`, `C`, `D` of a state-space system).
#[derive(Clone, Debug, PartialEq)]
pub struct Mat {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// `rows * cols` values, row-major.
    pub data: Vec<f64>,
}

impl Mat {
    /// A `rows × cols` matrix from row-major `data`.
    ///
    /// Errors: `ShapeMismatch` when `data.len() != rows * cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Result<Mat> {
        if data.len() != rows * cols {
            return Err(make::shape(
                "Mat::new",
                format!("{} values for a {rows}x{cols} matrix", data.len()),
            ));
        }
        Ok(Mat { rows, cols, data })
    }
    /// The matrix of the given rows (all of the same length).
    ///
    /// Errors: `ShapeMismatch` for ragged rows.
    pub fn from_rows(rows: &[&[f64]]) -> Result<Mat> {
        let cols = rows.first().map_or(0, |r| r.len());
        if rows.iter().any(|r| r.len() != cols) {
            return Err(make::shape("Mat::from_rows", "rows of different lengths"));
        }
        Ok(Mat {
            rows: rows.len(),
            cols,
            data: rows.concat(),
        })
    }
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Mat {
        Mat {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }
    /// The `n × n` identity.
    pub fn eye(n: usize) -> Mat {
        let mut m = Mat::zeros(n, n);
        for i in 0..n {
            m.data[i * n + i] = 1.0;
        }
        m
    }
    /// The element at row `i`, column `j`.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }
    fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[i * self.cols + j] = v;
    }
    fn mul(&self, o: &Mat) -> Mat {
        let mut r = Mat::zeros(self.rows, o.cols);
        for i in 0..self.rows {
            for k in 0..self.cols {
                let a = self.at(i, k);
                for j in 0..o.cols {
                    r.data[i * o.cols + j] += a * o.at(k, j);
                }
            }
        }
        r
    }
    fn block(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Mat {
        let mut m = Mat::zeros(r1 - r0, c1 - c0);
        for i in r0..r1 {
            for j in c0..c1 {
                m.set(i - r0, j - c0, self.at(i, j));
            }
        }
        m
    }
    fn scale(&self, s: f64) -> Mat {
        Mat {
            rows: self.rows,
            cols: self.cols,
            data: self.data.iter().map(|v| v * s).collect(),
        }
    }
    fn zip(&self, o: &Mat, f: impl Fn(f64, f64) -> f64) -> Mat {
        Mat {
            rows: self.rows,
            cols: self.cols,
            data: self
                .data
                .iter()
                .zip(&o.data)
                .map(|(a, b)| f(*a, *b))
                .collect(),
        }
    }
    fn transpose(&self) -> Mat {
        let mut m = Mat::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                m.set(j, i, self.at(i, j));
            }
        }
        m
    }
    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    fn to_array(&self) -> Result<Array<f64>> {
        Array::from_vec(self.data.clone(), &[self.rows, self.cols], &Device::Cpu)
    }
    fn from_array(a: &Array<f64>) -> Result<Mat> {
        let s = a.shape().to_vec();
        Mat::new(s[0], s[1], a.to_vec()?)
    }
}

fn expm(m: &Mat) -> Result<Mat> {
    Mat::from_array(&cusci_linalg::expm(&m.to_array()?)?)
}

/// The eigenvalues of a square host matrix (cusci-linalg's `eigvals` on the CPU).
fn eigvals(m: &Mat) -> Result<Vec<c64>> {
    if m.rows == 0 {
        return Ok(vec![]);
    }
    cusci_linalg::eigvals(&m.to_array()?)?.to_vec()
}

/// `numpy.poly` of a square matrix: the characteristic polynomial (real: the eigenvalues of a
/// real matrix come in conjugate pairs).
fn poly_mat(m: &Mat) -> Result<Vec<f64>> {
    Ok(poly_complex(&eigvals(m)?).iter().map(|c| c.re).collect())
}

/// `scipy.signal.abcd_normalize`: completes a state-space system whose missing matrices are
/// `None` with zero matrices of the sizes the others imply (`n` states from `A`, `B` or `C`; `p`
/// inputs from `B` or `D`; `q` outputs from `C` or `D`), and checks the shapes. Returns a
/// continuous [`StateSpace`].
///
/// Errors: `InvalidArgument` when a dimension cannot be inferred (as SciPy's messages);
/// `ShapeMismatch` when the matrices' shapes disagree.
///
/// ```
/// use cusci_signal::ltisys::{abcd_normalize, Mat};
/// let a = Mat::from_rows(&[&[1.0, 2.0], &[3.0, 4.0]]).unwrap();
/// let b = Mat::from_rows(&[&[1.0], &[0.0]]).unwrap();
/// let c = Mat::from_rows(&[&[0.0, 1.0]]).unwrap();
/// let ss = abcd_normalize(Some(&a), Some(&b), Some(&c), None).unwrap();
/// assert_eq!((ss.d.rows, ss.d.cols), (1, 1)); // D filled with zeros
/// ```
pub fn abcd_normalize(
    a: Option<&Mat>,
    b: Option<&Mat>,
    c: Option<&Mat>,
    d: Option<&Mat>,
) -> Result<StateSpace> {
    let op = "abcd_normalize";
    if a.is_none() && b.is_none() && c.is_none() {
        return Err(make::arg(
            op,
            "Dimension n is undefined for parameters A = B = C = None!",
        ));
    }
    if b.is_none() && d.is_none() {
        return Err(make::arg(
            op,
            "Dimension p is undefined for parameters B = D = None!",
        ));
    }
    if c.is_none() && d.is_none() {
        return Err(make::arg(
            op,
            "Dimension q is undefined for parameters C = D = None!",
        ));
    }
    let z = Mat::zeros(0, 0);
    let (a, b, c, d) = (
        a.unwrap_or(&z).clone(),
        b.unwrap_or(&z).clone(),
        c.unwrap_or(&z).clone(),
        d.unwrap_or(&z).clone(),
    );
    let nz = |v: usize| if v == 0 { None } else { Some(v) };
    let n = nz(a.rows).or(nz(b.rows)).or(nz(c.cols)).unwrap_or(0);
    let p = nz(b.cols).or(nz(d.cols)).unwrap_or(0);
    let q = nz(c.rows).or(nz(d.rows)).unwrap_or(0);
    let fill = |m: Mat, r: usize, k: usize| if m.is_empty() { Mat::zeros(r, k) } else { m };
    let a = fill(a, n, n);
    let b = fill(b, n, p);
    let c = fill(c, q, n);
    let d = fill(d, q, p);
    for (name, m, r, k) in [
        ("A", &a, n, n),
        ("B", &b, n, p),
        ("C", &c, q, n),
        ("D", &d, q, p),
    ] {
        if (m.rows, m.cols) != (r, k) {
            return Err(make::shape(
                op,
                format!(
                    "Parameter {name} has shape ({}, {}) but should be ({r}, {k})!",
                    m.rows, m.cols
                ),
            ));
        }
    }
    if [&a, &b, &c, &d]
        .iter()
        .any(|m| m.data.iter().any(|v| !v.is_finite()))
    {
        return Err(make::arg(op, "system matrices must be finite"));
    }
    Ok(StateSpace {
        a,
        b,
        c,
        d,
        dt: None,
    })
}

/// `scipy.signal.tf2ss(num, den)`: the controller canonical state-space form of `num/den`
/// (after [`normalize`]); a continuous [`StateSpace`].
///
/// Errors: those of [`normalize`]; `InvalidArgument` when `num` is longer than `den` (improper).
///
/// ```
/// let ss = cusci_signal::ltisys::tf2ss(&[1.0, 3.0, 3.0], &[1.0, 2.0, 1.0]).unwrap();
/// assert_eq!(ss.a.data, vec![-2.0, -1.0, 1.0, 0.0]);
/// assert_eq!(ss.d.data, vec![1.0]);
/// ```
pub fn tf2ss(num: &[f64], den: &[f64]) -> Result<StateSpace> {
    tf2ss_simo(&[num.to_vec()], den)
}

/// `scipy.signal.normalize` of a 2-D numerator (one row per output, all of one length): strips
/// the denominator's leading zeros, divides by its first coefficient and strips the leading
/// columns of the numerator whose every entry is `≤ 1e-14` in magnitude (one column at least
/// remains). One row is [`normalize`].
///
/// Errors: those of [`normalize`]; `ShapeMismatch` for no rows or rows of different lengths.
///
/// ```
/// let (num, den) = cusci_signal::ltisys::normalize_simo(
///     &[vec![0.0, 2.0, 4.0], vec![0.0, 0.0, 2.0]], &[2.0, 1.0]).unwrap();
/// assert_eq!(num, vec![vec![1.0, 2.0], vec![0.0, 1.0]]);
/// assert_eq!(den, vec![1.0, 0.5]);
/// ```
#[allow(clippy::type_complexity)]
pub fn normalize_simo(num: &[Vec<f64>], den: &[f64]) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
    let op = "normalize";
    let len = num.first().map(|r| r.len()).unwrap_or(0);
    if num.is_empty() || num.iter().any(|r| r.len() != len) {
        return Err(make::shape(
            op,
            "the numerator must have at least one row, all of one length",
        ));
    }
    if num.len() == 1 {
        let ba = normalize(&num[0], den)?;
        return Ok((vec![ba.b], ba.a));
    }
    // the denominator (and its errors) as for one row; then every row scaled alike
    let ba = normalize(&num[0], den)?;
    let first = den.iter().position(|&v| v != 0.0).unwrap_or(0);
    let a0 = den[first];
    let mut rows: Vec<Vec<f64>> = num
        .iter()
        .map(|r| r.iter().map(|v| v / a0).collect())
        .collect();
    let mut lead = (0..len)
        .take_while(|&j| rows.iter().all(|r| r[j].abs() <= 1e-14))
        .count();
    if lead == len {
        lead -= 1;
    }
    for r in rows.iter_mut() {
        r.drain(..lead);
    }
    Ok((rows, ba.a))
}

/// `scipy.signal.tf2ss(num, den)` of a single-input, multiple-output transfer function: `num`
/// holds one numerator row per output over the common `den` (SciPy's 2-D `num`). The
/// controller canonical form: `A`, `B` as for one output, one row of `C` and `D` per output.
///
/// Errors: those of [`normalize_simo`]; `InvalidArgument` when `num` is longer than `den`.
///
/// ```
/// let ss = cusci_signal::ltisys::tf2ss_simo(&[vec![1.0, 2.0], vec![3.0, 4.0]], &[1.0, 1.0]).unwrap();
/// assert_eq!(ss.c.data, vec![1.0, 1.0]);
/// assert_eq!(ss.d.data, vec![1.0, 3.0]);
/// ```
pub fn tf2ss_simo(num: &[Vec<f64>], den: &[f64]) -> Result<StateSpace> {
    let (num, den) = normalize_simo(num, den)?;
    let q = num.len();
    let (m, k) = (num[0].len(), den.len());
    if m > k {
        return Err(make::arg(
            "tf2ss",
            "Improper transfer function. `num` is longer than `den`.",
        ));
    }
    let padded: Vec<Vec<f64>> = num
        .iter()
        .map(|r| {
            let mut p = vec![0.0; k - m];
            p.extend(r);
            p
        })
        .collect();
    let d = Mat::new(q, 1, padded.iter().map(|p| p[0]).collect())?;
    if k == 1 {
        return Ok(StateSpace {
            a: Mat::zeros(1, 1),
            b: Mat::zeros(1, 1),
            c: Mat::zeros(q, 1),
            d,
            dt: None,
        });
    }
    let n = k - 1;
    let mut a = Mat::zeros(n, n);
    for j in 0..n {
        a.set(0, j, -den[j + 1]);
    }
    for i in 1..n {
        a.set(i, i - 1, 1.0);
    }
    let mut b = Mat::zeros(n, 1);
    b.set(0, 0, 1.0);
    let c = Mat::new(
        q,
        n,
        padded
            .iter()
            .flat_map(|p| (0..n).map(|j| p[j + 1] - p[0] * den[j + 1]))
            .collect(),
    )?;
    Ok(StateSpace {
        a,
        b,
        c,
        d,
        dt: None,
    })
}

/// `scipy.signal.ss2tf(A, B, C, D, input)`: the transfer functions from input `input` to every
/// output: one numerator row per output (each `n + 1` coefficients) over the common denominator
/// `det(sI - A)` (the characteristic polynomial, from the eigenvalues of `A` through cusci-linalg).
/// A system without states returns the rows `[D[k, input]]` over `[1]`.
///
/// Errors: `InvalidArgument` when `input` is not an input of the system; those of the
/// eigenvalue solver.
///
/// ```
/// use cusci_signal::ltisys::{ss2tf, tf2ss};
/// let (num, den) = ss2tf(&tf2ss(&[1.0, 3.0, 3.0], &[1.0, 2.0, 1.0]).unwrap(), 0).unwrap();
/// assert!((num[0][1] - 3.0).abs() < 1e-12 && (den[1] - 2.0).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn ss2tf(ss: &StateSpace, input: usize) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
    let (nout, nin) = (ss.d.rows, ss.d.cols);
    if input >= nin {
        return Err(make::arg(
            "ss2tf",
            "System does not have the input specified.",
        ));
    }
    let n = ss.a.rows;
    if n == 0 {
        return Ok((
            (0..nout).map(|k| vec![ss.d.at(k, input)]).collect(),
            vec![1.0],
        ));
    }
    let den = poly_mat(&ss.a)?;
    let mut num = Vec::with_capacity(nout);
    for k in 0..nout {
        // A - B[:, input] C[k, :]
        let mut m = ss.a.clone();
        for i in 0..n {
            for j in 0..n {
                m.data[i * n + j] -= ss.b.at(i, input) * ss.c.at(k, j);
            }
        }
        let pk = poly_mat(&m)?;
        let dk = ss.d.at(k, input);
        num.push(
            pk.iter()
                .zip(&den)
                .map(|(p, q)| p + (dk - 1.0) * q)
                .collect(),
        );
    }
    Ok((num, den))
}

/// `scipy.signal.zpk2ss(z, p, k)`: [`zpk2tf`] then [`tf2ss`].
///
/// Errors: those of [`zpk2tf`] and [`tf2ss`].
pub fn zpk2ss(z: &[c64], p: &[c64], k: f64) -> Result<StateSpace> {
    let ba = zpk2tf(z, p, k)?;
    tf2ss(&ba.b, &ba.a)
}

/// `scipy.signal.ss2zpk(A, B, C, D, input)`: [`ss2tf`] then [`tf2zpk`] (single-output systems).
///
/// Errors: those of [`ss2tf`]; `InvalidArgument` for a system with other than one output.
pub fn ss2zpk(ss: &StateSpace, input: usize) -> Result<crate::represent::Zpk> {
    let (num, den) = ss2tf(ss, input)?;
    if num.len() != 1 {
        return Err(make::arg(
            "ss2zpk",
            format!(
                "ss2zpk needs a single-output system, got {} outputs",
                num.len()
            ),
        ));
    }
    tf2zpk(&num[0], &den)
}

/// A transfer function `num(s)/den(s)` (or of `z` for a discrete system), SciPy's
/// `TransferFunction`, normalised (monic denominator): single input, one or several outputs
/// (SciPy's 2-D `num`: one numerator row per output over a common denominator).
#[derive(Clone, Debug, PartialEq)]
pub struct TransferFunction {
    /// Numerator coefficients, highest power first: one row per output (one row for a SISO
    /// system), all rows of one length.
    pub num: Vec<Vec<f64>>,
    /// Denominator coefficients, highest power first (`den[0] = 1`).
    pub den: Vec<f64>,
    /// Sampling time of a discrete system; `None` for a continuous one.
    pub dt: Option<f64>,
}

/// Zeros, poles and gain, SciPy's `ZerosPolesGain`.
#[derive(Clone, Debug, PartialEq)]
pub struct ZerosPolesGain {
    /// Zeros.
    pub zeros: Vec<c64>,
    /// Poles.
    pub poles: Vec<c64>,
    /// Gain.
    pub gain: f64,
    /// Sampling time of a discrete system; `None` for a continuous one.
    pub dt: Option<f64>,
}

/// A state-space system `x' = Ax + Bu`, `y = Cx + Du` (or `x[k+1] = …` when discrete), SciPy's
/// `StateSpace`.
#[derive(Clone, Debug, PartialEq)]
pub struct StateSpace {
    /// State matrix (`n × n`).
    pub a: Mat,
    /// Input matrix (`n × p`).
    pub b: Mat,
    /// Output matrix (`q × n`).
    pub c: Mat,
    /// Feed-through matrix (`q × p`).
    pub d: Mat,
    /// Sampling time of a discrete system; `None` for a continuous one.
    pub dt: Option<f64>,
}

impl StateSpace {
    /// Number of states.
    pub fn states(&self) -> usize {
        self.a.rows
    }
    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.d.cols
    }
    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.d.rows
    }
}

/// A linear time-invariant system (SciPy's `lti` and `dlti` and their three subclasses): a
/// [`TransferFunction`], [`ZerosPolesGain`] or [`StateSpace`], continuous (`dt = None`) or
/// discrete.
#[derive(Clone, Debug, PartialEq)]
pub enum Lti {
    /// Transfer function.
    Tf(TransferFunction),
    /// Zeros, poles, gain.
    Zpk(ZerosPolesGain),
    /// State space.
    Ss(StateSpace),
}

fn check_dt(op: &str, dt: f64) -> Result<()> {
    if !(dt > 0.0 && dt.is_finite()) {
        return Err(make::arg(
            op,
            format!("the sampling time dt must be positive and finite, got {dt}"),
        ));
    }
    Ok(())
}

impl Lti {
    /// `lti(num, den)`: a continuous transfer function (normalised as SciPy does).
    ///
    /// Errors: those of [`normalize`].
    ///
    /// ```
    /// let sys = cusci_signal::ltisys::Lti::tf(&[2.0], &[2.0, 4.0]).unwrap();
    /// assert_eq!(sys.poles().unwrap()[0].re, -2.0);
    /// ```
    pub fn tf(num: &[f64], den: &[f64]) -> Result<Lti> {
        Lti::tf_simo(&[num.to_vec()], den)
    }
    /// `lti(num, den)` with a 2-D `num`: a continuous single-input, multiple-output transfer
    /// function, one numerator row per output (normalised by [`normalize_simo`]).
    ///
    /// Errors: those of [`normalize_simo`].
    ///
    /// ```
    /// use cusci_signal::ltisys::Lti;
    /// let sys = Lti::tf_simo(&[vec![1.0], vec![1.0, 0.0]], &[1.0, 2.0]);
    /// assert!(sys.is_err()); // rows of different lengths
    /// let sys = Lti::tf_simo(&[vec![0.0, 1.0], vec![1.0, 0.0]], &[1.0, 2.0]).unwrap();
    /// assert_eq!(sys.to_ss().unwrap().outputs(), 2);
    /// ```
    pub fn tf_simo(num: &[Vec<f64>], den: &[f64]) -> Result<Lti> {
        let (num, den) = normalize_simo(num, den)?;
        Ok(Lti::Tf(TransferFunction { num, den, dt: None }))
    }
    /// `lti(z, p, k)`: continuous zeros, poles and gain.
    ///
    /// Errors: `InvalidArgument` for non-finite values.
    pub fn zpk(z: &[c64], p: &[c64], k: f64) -> Result<Lti> {
        if z.iter()
            .chain(p)
            .any(|v| !(v.re.is_finite() && v.im.is_finite()))
            || !k.is_finite()
        {
            return Err(make::arg("lti", "zeros, poles and gain must be finite"));
        }
        Ok(Lti::Zpk(ZerosPolesGain {
            zeros: z.to_vec(),
            poles: p.to_vec(),
            gain: k,
            dt: None,
        }))
    }
    /// `lti(A, B, C, D)`: a continuous state-space system (through [`abcd_normalize`]).
    ///
    /// Errors: those of [`abcd_normalize`].
    pub fn ss(a: &Mat, b: &Mat, c: &Mat, d: &Mat) -> Result<Lti> {
        Ok(Lti::Ss(abcd_normalize(Some(a), Some(b), Some(c), Some(d))?))
    }
    /// `dlti(num, den, dt=dt)`: a discrete transfer function.
    ///
    /// Errors: those of [`Lti::tf`]; `InvalidArgument` for `dt ≤ 0`.
    pub fn dtf(num: &[f64], den: &[f64], dt: f64) -> Result<Lti> {
        Lti::tf(num, den)?.with_dt(dt)
    }
    /// `dlti(num, den, dt=dt)` with a 2-D `num` (see [`Lti::tf_simo`]).
    ///
    /// Errors: those of [`Lti::tf_simo`]; `InvalidArgument` for `dt ≤ 0`.
    pub fn dtf_simo(num: &[Vec<f64>], den: &[f64], dt: f64) -> Result<Lti> {
        Lti::tf_simo(num, den)?.with_dt(dt)
    }
    /// `dlti(z, p, k, dt=dt)`: discrete zeros, poles and gain.
    ///
    /// Errors: those of [`Lti::zpk`]; `InvalidArgument` for `dt ≤ 0`.
    pub fn dzpk(z: &[c64], p: &[c64], k: f64, dt: f64) -> Result<Lti> {
        Lti::zpk(z, p, k)?.with_dt(dt)
    }
    /// `dlti(A, B, C, D, dt=dt)`: a discrete state-space system.
    ///
    /// Errors: those of [`Lti::ss`]; `InvalidArgument` for `dt ≤ 0`.
    pub fn dss(a: &Mat, b: &Mat, c: &Mat, d: &Mat, dt: f64) -> Result<Lti> {
        Lti::ss(a, b, c, d)?.with_dt(dt)
    }
    /// The same system with sampling time `dt` (a discrete system).
    ///
    /// Errors: `InvalidArgument` for `dt ≤ 0` or not finite.
    pub fn with_dt(mut self, dt: f64) -> Result<Lti> {
        check_dt("dlti", dt)?;
        match &mut self {
            Lti::Tf(s) => s.dt = Some(dt),
            Lti::Zpk(s) => s.dt = Some(dt),
            Lti::Ss(s) => s.dt = Some(dt),
        }
        Ok(self)
    }
    /// The sampling time (`None`: continuous).
    pub fn dt(&self) -> Option<f64> {
        match self {
            Lti::Tf(s) => s.dt,
            Lti::Zpk(s) => s.dt,
            Lti::Ss(s) => s.dt,
        }
    }
    /// The system as a transfer function (SciPy's `to_tf()`): a state-space system must have
    /// one input; it may have several outputs (one numerator row each, [`ss2tf`]).
    ///
    /// Errors: `InvalidArgument` for a state-space system with other than one input; those of
    /// the conversions.
    pub fn to_tf(&self) -> Result<TransferFunction> {
        match self {
            Lti::Tf(s) => Ok(s.clone()),
            Lti::Zpk(s) => {
                let ba = zpk2tf(&s.zeros, &s.poles, s.gain)?;
                Ok(TransferFunction {
                    num: vec![ba.b],
                    den: ba.a,
                    dt: s.dt,
                })
            }
            Lti::Ss(s) => {
                if s.inputs() != 1 {
                    return Err(make::arg(
                        "to_tf",
                        format!("needs a single-input system, got {} inputs", s.inputs()),
                    ));
                }
                let (num, den) = ss2tf(s, 0)?;
                let (num, den) = normalize_simo(&num, &den)?;
                Ok(TransferFunction { num, den, dt: s.dt })
            }
        }
    }
    /// The system as zeros, poles and gain (SciPy's `to_zpk()`).
    ///
    /// Errors: as [`Lti::to_tf`].
    pub fn to_zpk(&self) -> Result<ZerosPolesGain> {
        match self {
            Lti::Zpk(s) => Ok(s.clone()),
            Lti::Tf(s) => {
                let z = tf2zpk(siso_num("to_zpk", s)?, &s.den)?;
                Ok(ZerosPolesGain {
                    zeros: z.z,
                    poles: z.p,
                    gain: z.k,
                    dt: s.dt,
                })
            }
            Lti::Ss(s) => {
                siso("to_zpk", s)?;
                let z = ss2zpk(s, 0)?;
                Ok(ZerosPolesGain {
                    zeros: z.z,
                    poles: z.p,
                    gain: z.k,
                    dt: s.dt,
                })
            }
        }
    }
    /// The system in state-space form (SciPy's `to_ss()`).
    ///
    /// Errors: those of [`tf2ss`]/[`zpk2ss`].
    pub fn to_ss(&self) -> Result<StateSpace> {
        let mut ss = match self {
            Lti::Ss(s) => return Ok(s.clone()),
            Lti::Tf(s) => tf2ss_simo(&s.num, &s.den)?,
            Lti::Zpk(s) => zpk2ss(&s.zeros, &s.poles, s.gain)?,
        };
        ss.dt = self.dt();
        Ok(ss)
    }
    /// The poles (roots of the denominator, or eigenvalues of `A`).
    ///
    /// Errors: those of the root/eigenvalue solver.
    pub fn poles(&self) -> Result<Vec<c64>> {
        match self {
            Lti::Zpk(s) => Ok(s.poles.clone()),
            Lti::Tf(s) => Ok(tf2zpk(&[1.0], &s.den)?.p),
            Lti::Ss(s) => eigvals(&s.a),
        }
    }
    /// The zeros (SISO state-space systems through their transfer function).
    ///
    /// Errors: as [`Lti::to_zpk`].
    pub fn zeros(&self) -> Result<Vec<c64>> {
        Ok(self.to_zpk()?.zeros)
    }
    /// `lti.to_discrete(dt, method)`: see [`cont2discrete`].
    ///
    /// Errors: as [`cont2discrete`].
    pub fn to_discrete(&self, dt: f64, method: Discretization) -> Result<Lti> {
        cont2discrete(self, dt, method)
    }
}

/// The numerator of a single-output transfer function.
fn siso_num<'a>(op: &str, s: &'a TransferFunction) -> Result<&'a [f64]> {
    if s.num.len() != 1 {
        return Err(make::arg(
            op,
            format!(
                "needs a single-output transfer function, got {} outputs",
                s.num.len()
            ),
        ));
    }
    Ok(&s.num[0])
}

fn siso(op: &str, s: &StateSpace) -> Result<()> {
    if s.inputs() != 1 || s.outputs() != 1 {
        return Err(make::arg(
            op,
            format!(
                "needs a SISO (single input, single output) system, got {} inputs and {} outputs",
                s.inputs(),
                s.outputs()
            ),
        ));
    }
    Ok(())
}

/// The discretisation methods of [`cont2discrete`] (SciPy's `method` and `alpha`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Discretization {
    /// Zero-order hold (SciPy's default).
    #[default]
    Zoh,
    /// First-order (triangle) hold.
    Foh,
    /// Generalised bilinear transform with weight `alpha ∈ [0, 1]`.
    Gbt {
        /// 0: forward Euler, 0.5: Tustin, 1: backward difference.
        alpha: f64,
    },
    /// Tustin's method (`Gbt { alpha: 0.5 }`).
    Bilinear,
    /// Forward Euler (`Gbt { alpha: 0 }`).
    Euler,
    /// Backward difference (`Gbt { alpha: 1 }`).
    BackwardDiff,
    /// Impulse-invariant (strictly proper systems only).
    Impulse,
}

fn c2d_ss(s: &StateSpace, dt: f64, method: Discretization) -> Result<StateSpace> {
    let op = "cont2discrete";
    let (n, m) = (s.states(), s.inputs());
    let (a, b, c, d) = (&s.a, &s.b, &s.c, &s.d);
    let alpha = match method {
        Discretization::Gbt { alpha } => Some(alpha),
        Discretization::Bilinear => Some(0.5),
        Discretization::Euler => Some(0.0),
        Discretization::BackwardDiff => Some(1.0),
        _ => None,
    };
    let (ad, bd, cd, dd) = if let Some(alpha) = alpha {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(make::arg(
                op,
                "Alpha parameter must be within the interval [0,1] for the gbt method",
            ));
        }
        let eye = Mat::eye(n);
        let ima = eye.zip(&a.scale(alpha * dt), |x, y| x - y);
        let rhs = eye.zip(&a.scale((1.0 - alpha) * dt), |x, y| x + y);
        let solve = |l: &Mat, r: &Mat| -> Result<Mat> {
            if l.rows == 0 || r.cols == 0 {
                return Ok(Mat::zeros(l.rows, r.cols));
            }
            Mat::from_array(&cusci_linalg::solve(&l.to_array()?, &r.to_array()?)?)
        };
        let ad = solve(&ima, &rhs)?;
        let bd = solve(&ima, &b.scale(dt))?;
        let cd = solve(&ima.transpose(), &c.transpose())?.transpose();
        let dd = d.zip(&c.mul(&bd).scale(alpha), |x, y| x + y);
        (ad, bd, cd, dd)
    } else {
        match method {
            Discretization::Zoh => {
                let mut em = Mat::zeros(n + m, n + m);
                for i in 0..n {
                    for j in 0..n {
                        em.set(i, j, a.at(i, j) * dt);
                    }
                    for j in 0..m {
                        em.set(i, n + j, b.at(i, j) * dt);
                    }
                }
                let ms = expm(&em)?;
                (
                    ms.block(0, n, 0, n),
                    ms.block(0, n, n, n + m),
                    c.clone(),
                    d.clone(),
                )
            }
            Discretization::Foh => {
                let mut em = Mat::zeros(n + 2 * m, n + 2 * m);
                for i in 0..n {
                    for j in 0..n {
                        em.set(i, j, a.at(i, j) * dt);
                    }
                    for j in 0..m {
                        em.set(i, n + j, b.at(i, j) * dt);
                    }
                }
                for j in 0..m {
                    em.set(n + j, n + m + j, 1.0);
                }
                let ms = expm(&em)?;
                let ms11 = ms.block(0, n, 0, n);
                let ms12 = ms.block(0, n, n, n + m);
                let ms13 = ms.block(0, n, n + m, n + 2 * m);
                let bd = ms12
                    .zip(&ms13, |x, y| x - y)
                    .zip(&ms11.mul(&ms13), |x, y| x + y);
                let dd = d.zip(&c.mul(&ms13), |x, y| x + y);
                (ms11, bd, c.clone(), dd)
            }
            _ => {
                // impulse invariance
                if d.data.iter().any(|v| v.abs() > 1e-8) {
                    return Err(make::arg(
                        op,
                        "Impulse method is only applicable to strictly proper systems",
                    ));
                }
                let ad = expm(&a.scale(dt))?;
                let bd = ad.mul(b).scale(dt);
                let dd = c.mul(b).scale(dt);
                (ad, bd, c.clone(), dd)
            }
        }
    };
    Ok(StateSpace {
        a: ad,
        b: bd,
        c: cd,
        d: dd,
        dt: Some(dt),
    })
}

/// `scipy.signal.cont2discrete(system, dt, method, alpha)`: the discrete system with sampling
/// time `dt` (SciPy's methods: zero/first-order hold through the matrix exponential of an
/// augmented matrix, the generalised bilinear transform through solves, impulse invariance). A
/// transfer function or zpk system is converted to state space, discretised and converted back (a transfer function normalised),
/// as SciPy does.
///
/// Errors: `InvalidArgument` for a discrete system, `dt ≤ 0`, `alpha ∉ [0, 1]`, the impulse
/// method on a system with a feed-through term; those of the conversions and cusci-linalg.
///
/// ```
/// use cusci_signal::ltisys::{cont2discrete, Discretization, Lti};
/// let sys = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
/// let d = cont2discrete(&sys, 0.1, Discretization::Zoh).unwrap().to_tf().unwrap();
/// assert!((d.den[1] + (-0.1f64).exp()).abs() < 1e-12);
/// ```
pub fn cont2discrete(sys: &Lti, dt: f64, method: Discretization) -> Result<Lti> {
    let op = "cont2discrete";
    check_dt(op, dt)?;
    if sys.dt().is_some() {
        return Err(make::arg(op, "the system is already discrete"));
    }
    match sys {
        Lti::Ss(s) => Ok(Lti::Ss(c2d_ss(s, dt, method)?)),
        Lti::Tf(s) => {
            let d = c2d_ss(&tf2ss_simo(&s.num, &s.den)?, dt, method)?;
            let (num, den) = ss2tf(&d, 0)?;
            let (num, den) = normalize_simo(&num, &den)?;
            Ok(Lti::Tf(TransferFunction {
                num,
                den,
                dt: Some(dt),
            }))
        }
        Lti::Zpk(s) => {
            let d = c2d_ss(&zpk2ss(&s.zeros, &s.poles, s.gain)?, dt, method)?;
            let z = ss2zpk(&d, 0)?;
            Ok(Lti::Zpk(ZerosPolesGain {
                zeros: z.z,
                poles: z.p,
                gain: z.k,
                dt: Some(dt),
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// frequency responses

fn continuous(op: &str, sys: &Lti) -> Result<()> {
    if sys.dt().is_some() {
        return Err(make::arg(
            op,
            format!("{op} can only be used with continuous-time (lti) systems"),
        ));
    }
    Ok(())
}

fn discrete(op: &str, sys: &Lti) -> Result<f64> {
    sys.dt().ok_or_else(|| {
        make::arg(
            op,
            format!("{op} can only be used with discrete-time (dlti) systems"),
        )
    })
}

/// `scipy.signal.freqresp(system, w, n)`: the frequency response of a continuous SISO system at
/// `w` (rad/s), or at `n` frequencies chosen by `findfreqs` ([`WorN::N`]; SciPy's default is
/// 10000). State-space systems go through zeros/poles/gain, as SciPy.
///
/// Errors: `InvalidArgument` for a discrete or non-SISO system; those of the conversions.
///
/// ```
/// use cusci_signal::{ltisys::{freqresp, Lti}, WorN};
/// let r = freqresp(&Lti::tf(&[1.0], &[1.0, 1.0]).unwrap(), &WorN::Freqs(vec![1.0])).unwrap();
/// assert!((r.h[0].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// ```
pub fn freqresp(sys: &Lti, w: &WorN) -> Result<FreqResponse> {
    continuous("freqresp", sys)?;
    match sys {
        Lti::Tf(s) => freqs(siso_num("freqresp", s)?, &s.den, w),
        Lti::Zpk(s) => freqs_zpk(&s.zeros, &s.poles, s.gain, w),
        Lti::Ss(_) => {
            let z = sys.to_zpk()?;
            freqs_zpk(&z.zeros, &z.poles, z.gain, w)
        }
    }
}

/// Magnitude (dB) and phase (degrees) of a frequency response (SciPy's `bode` output).
#[derive(Clone, Debug, PartialEq)]
pub struct Bode {
    /// Frequencies (rad/s; for [`dbode`], rad per unit of `dt`).
    pub w: Vec<f64>,
    /// `20·log10|H|`.
    pub mag: Vec<f64>,
    /// The unwrapped phase in degrees.
    pub phase: Vec<f64>,
}

/// `numpy.unwrap` with period 2π.
fn unwrap(p: &[f64]) -> Vec<f64> {
    use std::f64::consts::PI;
    let mut out = p.to_vec();
    let mut acc = 0.0;
    for i in 1..p.len() {
        let dd = p[i] - p[i - 1];
        let mut ddmod = (dd + PI).rem_euclid(2.0 * PI) - PI;
        if ddmod == -PI && dd > 0.0 {
            ddmod = PI;
        }
        let mut corr = ddmod - dd;
        if dd.abs() < PI {
            corr = 0.0;
        }
        acc += corr;
        out[i] = p[i] + acc;
    }
    out
}

fn to_bode(r: FreqResponse, wscale: f64) -> Bode {
    let mag = r.h.iter().map(|h| 20.0 * h.norm().log10()).collect();
    let ang: Vec<f64> = r.h.iter().map(|h| h.im.atan2(h.re)).collect();
    let phase = unwrap(&ang)
        .iter()
        .map(|v| v * 180.0 / std::f64::consts::PI)
        .collect();
    Bode {
        w: r.w.iter().map(|v| v / wscale).collect(),
        mag,
        phase,
    }
}

/// `scipy.signal.bode(system, w, n)`: magnitude (dB) and unwrapped phase (degrees) of
/// [`freqresp`].
///
/// Errors: as [`freqresp`].
pub fn bode(sys: &Lti, w: &WorN) -> Result<Bode> {
    Ok(to_bode(freqresp(sys, w)?, 1.0))
}

/// `scipy.signal.dfreqresp(system, w, n, whole)`: the frequency response of a discrete SISO
/// system at `w` (rad/sample) or at `n` equally spaced frequencies over `[0, π)` (`[0, 2π)` with
/// `whole`), through [`freqz`]/[`freqz_zpk`].
///
/// Errors: `InvalidArgument` for a continuous or non-SISO system.
pub fn dfreqresp(sys: &Lti, w: &WorN, whole: bool) -> Result<FreqResponse> {
    discrete("dfreqresp", sys)?;
    let opts = FreqzOptions {
        wor_n: w.clone(),
        whole,
        ..Default::default()
    };
    match sys {
        Lti::Tf(s) => dfreq_tf(s, &opts),
        Lti::Zpk(s) => freqz_zpk(&s.zeros, &s.poles, s.gain, &opts),
        Lti::Ss(_) => dfreq_tf(&sys.to_tf()?, &opts),
    }
}

/// [`freqz`] of a transfer function in `z`, its polynomials first padded to polynomials in
/// `z⁻¹` (SciPy's `_z_to_zinv`).
fn dfreq_tf(s: &TransferFunction, opts: &FreqzOptions) -> Result<FreqResponse> {
    let (mut num, mut den) = (siso_num("dfreqresp", s)?.to_vec(), s.den.clone());
    if num.len() > den.len() {
        let mut d = vec![0.0; num.len() - den.len()];
        d.extend(den);
        den = d;
    } else if num.len() < den.len() {
        let mut d = vec![0.0; den.len() - num.len()];
        d.extend(num);
        num = d;
    }
    freqz(&num, &den, opts)
}

/// `scipy.signal.dbode(system, w, n)`: magnitude (dB) and unwrapped phase (degrees) of
/// [`dfreqresp`], with frequencies in rad per unit time (`w / dt`).
///
/// Errors: as [`dfreqresp`].
pub fn dbode(sys: &Lti, w: &WorN) -> Result<Bode> {
    let dt = discrete("dbode", sys)?;
    Ok(to_bode(dfreqresp(sys, w, false)?, dt))
}

// ---------------------------------------------------------------------------------------------
// time responses

/// A simulated time response: times, outputs and states.
#[derive(Clone, Debug)]
pub struct Response<T: Element> {
    /// The times of the samples.
    pub t: Vec<f64>,
    /// Outputs, `(..., n_steps, n_outputs)` (the batch axes of the input first).
    pub y: Array<T>,
    /// States, `(..., n_steps, n_states)`.
    pub x: Array<T>,
}

/// The kernel module of the state recurrence for `T`: (name prefix, source).
pub(crate) fn lti_source<T: Element>() -> (String, String) {
    let prefix = format!("signal_lsim_{}", T::DTYPE.tag());
    let src = format!(
        "#define T {}\n#define NAME(x) {prefix}_##x\n{SRC}",
        cuda_type::<T>()
    );
    (prefix, src)
}

/// Every NVRTC kernel source of the LTI module (compile checks without a GPU). Not part of the
/// API.
#[doc(hidden)]
pub fn lti_kernel_sources() -> Vec<(String, String)> {
    vec![lti_source::<f32>(), lti_source::<f64>()]
}

/// The discrete recurrence to run: `x[i] = ad x[i-1] + b0 u[i-1] + b1 u[i]`, `y = c x + d u`.
struct Recurrence {
    ad: Mat,
    b0: Mat,
    b1: Option<Mat>,
    c: Mat,
    d: Mat,
    x0: Vec<f64>,
}

/// Splits `u`'s shape into (batch shape, n_steps, n_inputs): rank 1 is `(n_steps,)` of a
/// single-input system, rank ≥ 2 is `(..., n_steps, n_inputs)`.
fn u_dims(op: &str, u: &[usize], n_inputs: usize) -> Result<(Vec<usize>, usize, usize)> {
    let (batch, nt, m) = match u.len() {
        0 => return Err(make::shape(op, "u must have at least one dimension")),
        1 => (vec![], u[0], 1),
        k => (u[..k - 2].to_vec(), u[k - 2], u[k - 1]),
    };
    if m != n_inputs {
        return Err(make::shape(
            op,
            format!("the system has {n_inputs} inputs but u has shape {u:?} (last axis: inputs)"),
        ));
    }
    Ok((batch, nt, m))
}

fn run_recurrence<T: RealFloat>(
    op: &str,
    r: &Recurrence,
    u: &Array<T>,
    batch_shape: &[usize],
    nt: usize,
) -> Result<(Array<T>, Array<T>)> {
    let (ns, ni, no) = (r.ad.rows, r.b0.cols, r.c.rows);
    let batch: usize = batch_shape.iter().product();
    let mut xs = batch_shape.to_vec();
    xs.extend([nt, ns]);
    let mut ys = batch_shape.to_vec();
    ys.extend([nt, no]);
    let dev = u.device();
    match dev {
        Device::Cpu => {
            let ud = cpu_contig(u)?;
            if ud.iter().any(|v| !RealFloat::to_f64(*v).is_finite()) {
                return Err(make::arg(op, "u must be finite"));
            }
            let mut x = vec![<T as Element>::zero(); batch * nt * ns];
            let mut y = vec![<T as Element>::zero(); batch * nt * no];
            if batch > 0 && nt > 0 {
                let b1 = r.b1.as_ref();
                x.par_chunks_mut((nt * ns).max(1))
                    .zip(y.par_chunks_mut((nt * no).max(1)))
                    .enumerate()
                    .for_each(|(bi, (xb, yb))| {
                        let ub = &ud[bi * nt * ni..(bi + 1) * nt * ni];
                        for (xj, &v) in xb.iter_mut().zip(&r.x0) {
                            *xj = T::from_f64(v);
                        }
                        for i in 1..nt {
                            for j in 0..ns {
                                let mut s = 0.0f64;
                                for k in 0..ns {
                                    s += r.ad.at(j, k) * xb[(i - 1) * ns + k].to_f64();
                                }
                                for k in 0..ni {
                                    s += r.b0.at(j, k) * ub[(i - 1) * ni + k].to_f64();
                                }
                                if let Some(b1) = b1 {
                                    for k in 0..ni {
                                        s += b1.at(j, k) * ub[i * ni + k].to_f64();
                                    }
                                }
                                xb[i * ns + j] = T::from_f64(s);
                            }
                        }
                        for i in 0..nt {
                            for q in 0..no {
                                let mut s = 0.0f64;
                                for k in 0..ns {
                                    s += r.c.at(q, k) * xb[i * ns + k].to_f64();
                                }
                                for k in 0..ni {
                                    s += r.d.at(q, k) * ub[i * ni + k].to_f64();
                                }
                                yb[i * no + q] = T::from_f64(s);
                            }
                        }
                    });
            }
            Ok((Array::from_vec(y, &ys, dev)?, Array::from_vec(x, &xs, dev)?))
        }
        Device::Cuda(d) => {
            let uc = u.contiguous()?;
            let x = Array::<T>::empty(&xs, dev)?;
            let y = Array::<T>::empty(&ys, dev)?;
            if batch == 0 || nt == 0 {
                return Ok((y, x));
            }
            let mut coef = Vec::new();
            let mut offs = Vec::new();
            let zeros_b1 = Mat::zeros(ns, ni);
            for m in [&r.ad, &r.b0, r.b1.as_ref().unwrap_or(&zeros_b1), &r.c, &r.d] {
                offs.push(coef.len());
                coef.extend(&m.data);
            }
            offs.push(coef.len());
            coef.extend(&r.x0);
            coef.push(0.0); // never empty
            let cd = Array::from_vec(coef, &[offs[5] + ns + 1], dev)?;
            let base = dptr(&cd);
            let at = |i: usize| base + 8 * offs[i] as u64;
            let (key, src) = lti_source::<T>();
            let f = d.function(&key, || src, &[], &format!("{key}_lsim"))?;
            let mut a = Args::new();
            a.push(at(0))
                .push(at(1))
                .push(at(2))
                .push(at(3))
                .push(at(4))
                .push(at(5))
                .push(dptr(&uc))
                .push(dptr(&x))
                .push(dptr(&y))
                .push(batch as i64)
                .push(nt as i64)
                .push(ns as i32)
                .push(ni as i32)
                .push(no as i32)
                .push(r.b1.is_some() as i32);
            f.launch(d, LaunchConfig::linear(blocks_for(batch, 64), 64), &mut a)?;
            Ok((y, x))
        }
    }
}

fn x0_of(op: &str, x0: Option<&[f64]>, n: usize) -> Result<Vec<f64>> {
    match x0 {
        None => Ok(vec![0.0; n]),
        Some(v) if v.len() == n => {
            if v.iter().any(|x| !x.is_finite()) {
                return Err(make::arg(op, "x0 must be finite"));
            }
            Ok(v.to_vec())
        }
        Some(v) => Err(make::shape(
            op,
            format!("x0 has {} values but the system has {n} states", v.len()),
        )),
    }
}

/// `scipy.signal.dlsim(system, u, t, x0)`: the response of a discrete system to the input `u`:
/// `x[k+1] = A x[k] + B u[k]`, `y[k] = C x[k] + D u[k]`.
///
/// `u` is `(n_steps,)` for a single-input system, or `(..., n_steps, n_inputs)`: leading axes
/// are a batch of independent input signals, simulated in parallel (one GPU thread each). The
/// outputs are `y` `(..., n_out, n_outputs)` and `x` `(..., n_out, n_states)` (not squeezed).
///
/// Without `t`, `u` holds one sample per `dt` and `t = k·dt`. With `t` (the times of `u`'s
/// samples: strictly increasing, not necessarily evenly spaced) SciPy's rule is followed: the
/// simulation has `n_out = floor(t[-1]/dt) + 1` steps at the times `linspace(0, t[-1], n_out)`
/// (returned as `t`; spaced `t[-1]/(n_out - 1)`, which is `dt` only when `t[-1]` is a multiple of
/// it), and the input is linearly interpolated onto them from `(t, u)` (SciPy's
/// `make_interp_spline(t, u, k=1)`, extrapolating linearly before `t[0]`).
/// The interpolation runs on `u`'s device (one thread per output value, in `f64`), then the
/// recurrence. Runs on `u`'s device.
///
/// Errors: `InvalidArgument` for a continuous system, non-finite `u` (CPU), `t` or `x0`, times
/// that are not strictly increasing, `t[-1] < 0` (no sample), a `t` of one time (SciPy returns
/// NaN there); `ShapeMismatch` when `u`'s last
/// axis is not the number of inputs, `t` does not hold one time per step of `u`, or `x0` is not
/// one value per state.
///
/// ```
/// use cusci_signal::{ltisys::{dlsim, Lti}, Array, Device};
/// let sys = Lti::dtf(&[1.0], &[1.0, -0.5], 1.0).unwrap();
/// let u = Array::from_vec(vec![1.0, 0.0, 0.0], &[3], &Device::Cpu).unwrap();
/// let r = dlsim(&sys, &u, None, None).unwrap();
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 0.5]);
/// // the same input given at t = 0, 2, 4: interpolated onto 0, 1, 2, 3, 4
/// let r = dlsim(&sys, &u, Some(&[0.0, 2.0, 4.0]), None).unwrap();
/// assert_eq!(r.t, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 1.0, 0.5, 0.25]);
/// ```
pub fn dlsim<T: RealFloat>(
    sys: &Lti,
    u: &Array<T>,
    t: Option<&[f64]>,
    x0: Option<&[f64]>,
) -> Result<Response<T>> {
    let op = "dlsim";
    let dt = discrete(op, sys)?;
    let ss = sys.to_ss()?;
    let (batch, nt, ni) = u_dims(op, u.shape(), ss.inputs())?;
    let r = Recurrence {
        x0: x0_of(op, x0, ss.states())?,
        ad: ss.a,
        b0: ss.b,
        b1: None,
        c: ss.c,
        d: ss.d,
    };
    let Some(t) = t else {
        let (y, x) = run_recurrence(op, &r, u, &batch, nt)?;
        let t = linspace(0.0, (nt as f64 - 1.0) * dt, nt);
        return Ok(Response { t, y, x });
    };
    if t.len() != nt {
        return Err(make::shape(
            op,
            format!(
                "Shapes of t ({}) and u ({nt} steps) are incompatible",
                t.len()
            ),
        ));
    }
    if t.iter().any(|v| !v.is_finite()) {
        return Err(make::arg(op, "t must be finite"));
    }
    if t.windows(2).any(|w| w[1] <= w[0]) {
        return Err(make::arg(
            op,
            "Expect t to be a 1D strictly increasing sequence.",
        ));
    }
    if nt < 2 {
        // SciPy's make_interp_spline(k=1) of one point is NaN at t[0] and 0 elsewhere
        return Err(make::arg(
            op,
            "t needs at least two times to interpolate u (SciPy's result is NaN for one)",
        ));
    }
    let stop = t[nt - 1];
    let samples = (stop / dt).floor() + 1.0;
    if samples < 1.0 {
        return Err(make::arg(
            op,
            format!("t[-1] = {stop} < 0: no output sample"),
        ));
    }
    let samples = samples as usize;
    let tout = linspace(0.0, stop, samples);
    // interpolation table: for each output time the left sample and the two weights
    let mut idx = Vec::with_capacity(samples);
    let mut h = Vec::with_capacity(2 * samples);
    for &x in &tout {
        let l = t.partition_point(|&v| v <= x).clamp(1, nt - 1) - 1;
        let w = 1.0 / (t[l + 1] - t[l]);
        idx.push(l as i64);
        h.extend([w * (t[l + 1] - x), w * (x - t[l])]);
    }
    let ui = interp_input(op, u, &batch, nt, ni, &idx, &h)?;
    let (y, x) = run_recurrence(op, &r, &ui, &batch, samples)?;
    Ok(Response { t: tout, y, x })
}

/// `out[b, s, k] = u[b, idx[s], k]·h[2s] + u[b, idx[s] + 1, k]·h[2s + 1]` (the second sample
/// clamped to the last), in `f64`, on `u`'s device: `(batch..., idx.len(), ni)`.
fn interp_input<T: RealFloat>(
    op: &str,
    u: &Array<T>,
    batch_shape: &[usize],
    nt: usize,
    ni: usize,
    idx: &[i64],
    h: &[f64],
) -> Result<Array<T>> {
    let batch: usize = batch_shape.iter().product();
    let ns = idx.len();
    let mut shape = batch_shape.to_vec();
    shape.extend([ns, ni]);
    let dev = u.device();
    match dev {
        Device::Cpu => {
            let ud = cpu_contig(u)?;
            if ud.iter().any(|v| !RealFloat::to_f64(*v).is_finite()) {
                return Err(make::arg(op, "u must be finite"));
            }
            let mut out = vec![<T as Element>::zero(); batch * ns * ni];
            for b in 0..batch {
                for s in 0..ns {
                    let i0 = idx[s] as usize;
                    let i1 = (i0 + 1).min(nt - 1);
                    for k in 0..ni {
                        let u0 = ud[(b * nt + i0) * ni + k].to_f64();
                        let u1 = ud[(b * nt + i1) * ni + k].to_f64();
                        out[(b * ns + s) * ni + k] = T::from_f64(u0 * h[2 * s] + u1 * h[2 * s + 1]);
                    }
                }
            }
            Array::from_vec(out, &shape, dev)
        }
        Device::Cuda(d) => {
            let uc = u.contiguous()?;
            let out = Array::<T>::empty(&shape, dev)?;
            let total = batch * ns * ni;
            if total == 0 {
                return Ok(out);
            }
            let idx_d = Array::from_vec(idx.to_vec(), &[ns], dev)?;
            let h_d = Array::from_vec(h.to_vec(), &[2 * ns], dev)?;
            let (key, src) = lti_source::<T>();
            let f = d.function(&key, || src, &[], &format!("{key}_interp"))?;
            let mut a = Args::new();
            a.push(dptr(&uc))
                .push(dptr(&idx_d))
                .push(dptr(&h_d))
                .push(dptr(&out))
                .push(batch as i64)
                .push(nt as i64)
                .push(ns as i64)
                .push(ni as i32);
            f.launch(d, LaunchConfig::linear(blocks_for(total, 256), 256), &mut a)?;
            Ok(out)
        }
    }
}

/// `numpy.linspace(start, stop, n)` (endpoint included).
fn linspace(start: f64, stop: f64, n: usize) -> Vec<f64> {
    match n {
        0 => vec![],
        1 => vec![start],
        _ => {
            let step = (stop - start) / (n - 1) as f64;
            let mut v: Vec<f64> = (0..n).map(|i| i as f64 * step + start).collect();
            v[n - 1] = stop;
            v
        }
    }
}

/// Options of [`lsim`] (SciPy's `X0` and `interp`).
#[derive(Clone, Debug, PartialEq)]
pub struct LsimOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Linear interpolation of the input between samples (first-order hold, SciPy's default
    /// `True`); `false` holds each sample (zero-order hold).
    pub interp: bool,
}

impl Default for LsimOptions {
    fn default() -> Self {
        LsimOptions {
            x0: None,
            interp: true,
        }
    }
}

/// The exact discretisation of `ss` over one step `dt` (SciPy's lsim: the exponential of the
/// augmented matrix), as a recurrence.
fn lsim_recurrence(ss: &StateSpace, dt: f64, interp: bool, x0: Vec<f64>) -> Result<Recurrence> {
    let (n, m) = (ss.states(), ss.inputs());
    let size = if interp { n + 2 * m } else { n + m };
    let mut em = Mat::zeros(size, size);
    for i in 0..n {
        for j in 0..n {
            em.set(i, j, ss.a.at(i, j) * dt);
        }
        for j in 0..m {
            em.set(i, n + j, ss.b.at(i, j) * dt);
        }
    }
    if interp {
        for j in 0..m {
            em.set(n + j, n + m + j, 1.0);
        }
    }
    // SciPy exponentiates the transpose and reads transposed blocks: the same matrices
    let e = expm(&em.transpose())?.transpose();
    let ad = e.block(0, n, 0, n);
    let (b0, b1) = if interp {
        let b1 = e.block(0, n, n + m, n + 2 * m);
        (e.block(0, n, n, n + m).zip(&b1, |x, y| x - y), Some(b1))
    } else {
        (e.block(0, n, n, n + m), None)
    };
    Ok(Recurrence {
        ad,
        b0,
        b1,
        c: ss.c.clone(),
        d: ss.d.clone(),
        x0,
    })
}

/// Validates equally spaced, non-negative times; returns the step (0 for one sample) and moves
/// `x0` forward to `t[0]` when it is positive (SciPy's lsim).
fn lsim_times(op: &str, ss: &StateSpace, t: &[f64], x0: Vec<f64>) -> Result<(f64, Vec<f64>)> {
    if t.is_empty() {
        return Err(make::arg(op, "T must hold at least one time"));
    }
    if t.iter().any(|v| !v.is_finite()) {
        return Err(make::arg(op, "T must be finite"));
    }
    if t[0] < 0.0 {
        return Err(make::arg(op, "Initial time must be nonnegative"));
    }
    let x0 = if t[0] > 0.0 && ss.states() > 0 {
        let e = expm(&ss.a.scale(t[0]))?;
        (0..ss.states())
            .map(|i| (0..ss.states()).map(|k| e.at(i, k) * x0[k]).sum())
            .collect()
    } else {
        x0
    };
    if t.len() == 1 {
        return Ok((0.0, x0));
    }
    let dt = t[1] - t[0];
    // np.allclose(np.diff(T), dt)
    if t.windows(2)
        .any(|w| ((w[1] - w[0]) - dt).abs() > 1e-8 + 1e-5 * dt.abs())
    {
        return Err(make::arg(op, "Time steps are not equally spaced."));
    }
    if dt <= 0.0 {
        return Err(make::arg(op, "T must be increasing"));
    }
    Ok((dt, x0))
}

/// `scipy.signal.lsim(system, U, T, X0, interp)`: the response of a continuous system to the
/// input `u` sampled at the equally spaced times `t`, exact for an input that is linear between
/// samples (`interp`) or held (`!interp`): the system is discretised over one step by the
/// exponential of an augmented matrix (cusci-linalg's `expm`, on the host), then the recurrence
/// runs on `u`'s device (see [`dlsim`] for the shapes: `u` is `(n_steps,)` or
/// `(..., n_steps, n_inputs)`; `y` and `x` are not squeezed).
///
/// Errors: `InvalidArgument` for a discrete system, times that are empty, negative at the start,
/// not finite or not equally spaced; `ShapeMismatch` when `u` does not hold `t.len()` steps of
/// `n_inputs` values, or `x0` is not one value per state.
///
/// ```
/// use cusci_signal::{ltisys::{lsim, Lti, LsimOptions}, Array, Device};
/// let sys = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
/// let u = Array::from_vec(vec![1.0; 3], &[3], &Device::Cpu).unwrap();
/// let r = lsim(&sys, &u, &[0.0, 1.0, 2.0], &LsimOptions::default()).unwrap();
/// assert!((r.y.to_vec().unwrap()[2] - (1.0 - (-2.0f64).exp())).abs() < 1e-12);
/// ```
pub fn lsim<T: RealFloat>(
    sys: &Lti,
    u: &Array<T>,
    t: &[f64],
    opts: &LsimOptions,
) -> Result<Response<T>> {
    let op = "lsim";
    continuous(op, sys)?;
    let ss = sys.to_ss()?;
    let (batch, nt, _) = u_dims(op, u.shape(), ss.inputs())?;
    if nt != t.len() {
        return Err(make::shape(
            op,
            format!("U has {nt} time steps but T has {}", t.len()),
        ));
    }
    let x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    let (dt, x0) = lsim_times(op, &ss, t, x0)?;
    let r = lsim_recurrence(&ss, dt, opts.interp, x0)?;
    let (y, x) = run_recurrence(op, &r, u, &batch, nt)?;
    Ok(Response {
        t: t.to_vec(),
        y,
        x,
    })
}

/// SciPy's `_default_response_times`: `n` times over `[0, 7/r]`, `r` the smallest magnitude of
/// the real parts of the poles (1 when it is 0).
fn default_times(op: &str, ss: &StateSpace, n: usize) -> Result<Vec<f64>> {
    let vals = eigvals(&ss.a)?;
    if vals.is_empty() {
        return Err(make::arg(
            op,
            "a system without states needs explicit times T",
        ));
    }
    let mut r = vals.iter().fold(f64::INFINITY, |m, v| m.min(v.re.abs()));
    if r == 0.0 {
        r = 1.0;
    }
    Ok(linspace(0.0, 7.0 * (1.0 / r), n))
}

/// Options of [`impulse`] and [`step`] (SciPy's `X0`, `T`, `N`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResponseOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Times (equally spaced); `None`: `n` times chosen from the poles (SciPy's
    /// `_default_response_times`).
    pub t: Option<Vec<f64>>,
    /// Number of times when `t` is `None` (100 when `None`).
    pub n: Option<usize>,
}

fn siso_times(op: &str, sys: &Lti, opts: &ResponseOptions) -> Result<(StateSpace, Vec<f64>)> {
    continuous(op, sys)?;
    let ss = sys.to_ss()?;
    if ss.inputs() != 1 {
        return Err(make::arg(
            op,
            format!(
                "{op} needs a single-input system, got {} inputs",
                ss.inputs()
            ),
        ));
    }
    let t = match &opts.t {
        Some(t) => t.clone(),
        None => default_times(op, &ss, opts.n.unwrap_or(100))?,
    };
    Ok((ss, t))
}

/// `scipy.signal.impulse(system, X0, T, N)`: the impulse response of a continuous single-input
/// system (the free response from the state `B + X0`), on `dev`. Returns `y` `(n_steps,
/// n_outputs)` and `x` `(n_steps, n_states)`.
///
/// Errors: `InvalidArgument` for a discrete or multi-input system, a system without states and no
/// `t`; those of [`lsim`].
///
/// ```
/// use cusci_signal::{ltisys::{impulse, Lti}, Device};
/// let sys = Lti::tf(&[1.0], &[1.0, 1.0]).unwrap();
/// let r = impulse::<f64>(&sys, &Default::default(), &Device::Cpu).unwrap();
/// assert_eq!(r.y.shape(), &[100, 1]);
/// ```
pub fn impulse<T: RealFloat>(
    sys: &Lti,
    opts: &ResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    let op = "impulse";
    let (ss, t) = siso_times(op, sys, opts)?;
    let mut x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    for (i, v) in x0.iter_mut().enumerate() {
        *v += ss.b.at(i, 0);
    }
    let u = Array::<T>::zeros(&[t.len(), 1], dev)?;
    let (dt, x0) = lsim_times(op, &ss, &t, x0)?;
    let r = lsim_recurrence(&ss, dt, false, x0)?;
    let (y, x) = run_recurrence(op, &r, &u, &[], t.len())?;
    Ok(Response { t, y, x })
}

/// `scipy.signal.step(system, X0, T, N)`: the step response of a continuous single-input
/// system (a held unit input), on `dev`; shapes as [`impulse`].
///
/// Errors: as [`impulse`].
pub fn step<T: RealFloat>(sys: &Lti, opts: &ResponseOptions, dev: &Device) -> Result<Response<T>> {
    let op = "step";
    let (ss, t) = siso_times(op, sys, opts)?;
    let x0 = x0_of(op, opts.x0.as_deref(), ss.states())?;
    let u = Array::<T>::from_vec(vec![<T as Element>::one(); t.len()], &[t.len(), 1], dev)?;
    let (dt, x0) = lsim_times(op, &ss, &t, x0)?;
    let r = lsim_recurrence(&ss, dt, false, x0)?;
    let (y, x) = run_recurrence(op, &r, &u, &[], t.len())?;
    Ok(Response { t, y, x })
}

/// Options of [`dimpulse`] and [`dstep`] (SciPy's `x0` and `n`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DResponseOptions {
    /// Initial state (zeros when `None`).
    pub x0: Option<Vec<f64>>,
    /// Number of samples (100 when `None`).
    pub n: Option<usize>,
}

fn d_response<T: RealFloat>(
    op: &str,
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
    is_step: bool,
) -> Result<Response<T>> {
    let dt = discrete(op, sys)?;
    let ss = sys.to_ss()?;
    let n = opts.n.unwrap_or(100);
    let m = ss.inputs();
    // SciPy: t = linspace(0, n*dt, n, endpoint=False), passed to dlsim, which resamples the
    // input linearly onto linspace(0, t[-1], floor(t[-1]/dt) + 1)
    let step = n as f64 * dt / n as f64;
    let t_in: Vec<f64> = (0..n).map(|i| i as f64 * step).collect();
    let (tout, samples) = if n == 0 {
        (vec![], 0)
    } else {
        let stop = t_in[n - 1];
        let k = (stop / dt).floor() as usize + 1;
        (linspace(0.0, stop, k), k)
    };
    // one batch entry per input: a unit impulse (or step) on that input
    let mut u = vec![<T as Element>::zero(); m * samples * m];
    for i in 0..m {
        for (s, &tv) in tout.iter().enumerate() {
            // linear interpolation of the input column i (impulse: 1 at t_in[0] only)
            let v = if is_step || n == 1 {
                1.0
            } else {
                let pos = t_in.partition_point(|&x| x <= tv).clamp(1, n - 1);
                let (t0, t1) = (t_in[pos - 1], t_in[pos]);
                // the impulse column is 1 at t_in[0] and 0 after: only the first interval ramps
                let u0 = if pos == 1 { 1.0 } else { 0.0 };
                u0 + (0.0 - u0) * (tv - t0) / (t1 - t0)
            };
            u[(i * samples + s) * m + i] = T::from_f64(v);
        }
    }
    let u = Array::from_vec(u, &[m, samples, m], dev)?;
    let r = Recurrence {
        x0: x0_of(op, opts.x0.as_deref(), ss.states())?,
        ad: ss.a,
        b0: ss.b,
        b1: None,
        c: ss.c,
        d: ss.d,
    };
    let (y, x) = run_recurrence(op, &r, &u, &[m], samples)?;
    Ok(Response { t: tout, y, x })
}

/// `scipy.signal.dimpulse(system, x0, n)`: the impulse response of a discrete system from each
/// input, on `dev`: `y` is `(n_inputs, n, n_outputs)` (SciPy's tuple of one `(n, n_outputs)`
/// array per input, stacked), `x` `(n_inputs, n, n_states)`. As SciPy, the sample count comes
/// from `floor(t[-1]/dt) + 1` with `t = linspace(0, n·dt, n, endpoint=False)` (which can be
/// `n - 1` through rounding).
///
/// Errors: `InvalidArgument` for a continuous system; `ShapeMismatch` for a wrong `x0`.
///
/// ```
/// use cusci_signal::{ltisys::{dimpulse, Lti, DResponseOptions}, Device};
/// let sys = Lti::dtf(&[1.0], &[1.0, -0.5], 1.0).unwrap();
/// let opts = DResponseOptions { n: Some(3), ..Default::default() };
/// let r = dimpulse::<f64>(&sys, &opts, &Device::Cpu).unwrap();
/// assert_eq!(r.y.to_vec().unwrap(), vec![0.0, 1.0, 0.5]);
/// ```
pub fn dimpulse<T: RealFloat>(
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    d_response("dimpulse", sys, opts, dev, false)
}

/// `scipy.signal.dstep(system, x0, n)`: the step response of a discrete system from each input,
/// on `dev`; shapes as [`dimpulse`].
///
/// Errors: as [`dimpulse`].
pub fn dstep<T: RealFloat>(
    sys: &Lti,
    opts: &DResponseOptions,
    dev: &Device,
) -> Result<Response<T>> {
    d_response("dstep", sys, opts, dev, true)
}
