//! The system types ([`Lti`] with [`TransferFunction`], [`ZerosPolesGain`], [`StateSpace`]),
//! the conversions between them and the discretisation ([`cont2discrete`]).

use crate::represent::{normalize, poly_complex, tf2zpk, zpk2tf};
use cusci_core::error::make;
use cusci_core::{c64, Array, Device, Result};

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
    pub(super) fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[i * self.cols + j] = v;
    }
    pub(super) fn mul(&self, o: &Mat) -> Mat {
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
    pub(super) fn block(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Mat {
        let mut m = Mat::zeros(r1 - r0, c1 - c0);
        for i in r0..r1 {
            for j in c0..c1 {
                m.set(i - r0, j - c0, self.at(i, j));
            }
        }
        m
    }
    pub(super) fn scale(&self, s: f64) -> Mat {
        Mat {
            rows: self.rows,
            cols: self.cols,
            data: self.data.iter().map(|v| v * s).collect(),
        }
    }
    pub(super) fn zip(&self, o: &Mat, f: impl Fn(f64, f64) -> f64) -> Mat {
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
    pub(super) fn transpose(&self) -> Mat {
        let mut m = Mat::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                m.set(j, i, self.at(i, j));
            }
        }
        m
    }
    pub(super) fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub(super) fn to_array(&self) -> Result<Array<f64>> {
        Array::from_vec(self.data.clone(), &[self.rows, self.cols], &Device::Cpu)
    }
    pub(super) fn from_array(a: &Array<f64>) -> Result<Mat> {
        let s = a.shape().to_vec();
        Mat::new(s[0], s[1], a.to_vec()?)
    }
}

pub(super) fn expm(m: &Mat) -> Result<Mat> {
    Mat::from_array(&cusci_linalg::expm(&m.to_array()?)?)
}

/// The eigenvalues of a square host matrix (cusci-linalg's `eigvals` on the CPU).
pub(super) fn eigvals(m: &Mat) -> Result<Vec<c64>> {
    if m.rows == 0 {
        return Ok(vec![]);
    }
    cusci_linalg::eigvals(&m.to_array()?)?.to_vec()
}

/// `numpy.poly` of a square matrix: the characteristic polynomial (real: the eigenvalues of a
/// real matrix come in conjugate pairs).
pub(super) fn poly_mat(m: &Mat) -> Result<Vec<f64>> {
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

pub(super) fn check_dt(op: &str, dt: f64) -> Result<()> {
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
pub(super) fn siso_num<'a>(op: &str, s: &'a TransferFunction) -> Result<&'a [f64]> {
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

pub(super) fn siso(op: &str, s: &StateSpace) -> Result<()> {
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

pub(super) fn c2d_ss(s: &StateSpace, dt: f64, method: Discretization) -> Result<StateSpace> {
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

pub(super) fn continuous(op: &str, sys: &Lti) -> Result<()> {
    if sys.dt().is_some() {
        return Err(make::arg(
            op,
            format!("{op} can only be used with continuous-time (lti) systems"),
        ));
    }
    Ok(())
}

pub(super) fn discrete(op: &str, sys: &Lti) -> Result<f64> {
    sys.dt().ok_or_else(|| {
        make::arg(
            op,
            format!("{op} can only be used with discrete-time (dlti) systems"),
        )
    })
}
