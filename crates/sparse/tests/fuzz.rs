//! Property-based fuzzing (proptest, with shrinking) of sparse construction on the CPU: COO from
//! triplets and CSR from raw (indptr, indices, data), valid or broken (wrong lengths,
//! non-monotone or out-of-range indptr, indices out of bounds or negative, unsorted, repeated),
//! for both index types and shapes up to 2^44 and past the index type. Each input gives the
//! error a naive check predicts, or a matrix whose dense form, canonical flag, CSR structure,
//! `sum_duplicates`, `tocsc` and `tocoo` agree with a dense model. Then the arithmetic: sums,
//! differences, element-wise and matrix products, SpMV, transposes, scaling and
//! `eliminate_zeros` of random small integer matrices equal the dense model exactly, and the GPU
//! gives the CPU's results.
//!
//! CI runs `ci_cases` below per property (a few seconds);
//! `PROPTEST_CASES=100000 cargo test -p cusci-sparse -- fuzz::` runs a long campaign.

use cusci_core::{Array, Device, Error};
use cusci_sparse::{CooMatrix, CsrMatrix, SpIndex};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// `ci_cases` cases unless `PROPTEST_CASES` is set; no regression files.
fn config(ci_cases: u32) -> Config {
    let mut c = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = ci_cases;
    }
    c
}

/// Dimensions: small, or so large that any O(dimension) allocation must be refused (2^44
/// entries of 8 bytes pass any machine's memory), or past the index type.
fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        12 => 0usize..6,
        1 => Just(1usize << 44),
        1 => Just(1usize << 62),
        1 => Just(i64::MAX as usize),
        1 => Just(usize::MAX),
        1 => Just(i32::MAX as usize + 1),
    ]
}

/// An index value: mostly inside a small range, sometimes negative or huge.
fn index() -> impl Strategy<Value = i64> {
    prop_oneof![
        12 => 0i64..6,
        1 => -3i64..0,
        1 => Just(i32::MAX as i64),
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => Just((1i64 << 44) - 1),
    ]
}

/// Small integer values (exact sums in any order).
fn value() -> impl Strategy<Value = f64> {
    (-4i32..5).prop_map(f64::from)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Arg,
    Shape,
    /// OutOfMemory, or InvalidArgument for a count past isize::MAX.
    Memory,
}

fn kind_ok(want: Kind, e: &Error) -> bool {
    matches!(
        (want, e),
        (Kind::Arg, Error::InvalidArgument { .. })
            | (Kind::Shape, Error::ShapeMismatch { .. })
            | (
                Kind::Memory,
                Error::OutOfMemory { .. } | Error::InvalidArgument { .. }
            )
    )
}

/// A dimension whose O(dimension) tables are allocatable but too large to build in a test
/// (2^31 rows of i64: 16 GB); the conversions are skipped then. Past 2^44 they must fail.
fn heavy(d: usize) -> bool {
    d > 1 << 20 && d < 1 << 44
}

fn fits<I: SpIndex>(v: usize) -> bool {
    v <= I::MAX
}

/// The dense model of entries (summing duplicates), `None` when m·n is too large to hold or
/// the shape (its nonzero axes, 8-byte elements) passes `isize::MAX` bytes, as NumPy's.
fn dense_model(m: usize, n: usize, entries: &[(usize, usize, f64)]) -> Option<Vec<f64>> {
    let nz = (m.max(1) as u128) * (n.max(1) as u128) * 8;
    if nz > isize::MAX as u128 {
        return None;
    }
    let mn = m.checked_mul(n).filter(|&k| k <= 1 << 16)?;
    let mut d = vec![0.0; mn];
    for &(r, c, v) in entries {
        d[r * n + c] += v;
    }
    Some(d)
}

/// Checks a valid CSR matrix against its model entries: structure, canonical flag, dense form,
/// and the conversions.
fn check_csr<I: SpIndex>(
    a: &CsrMatrix<f64, I>,
    m: usize,
    n: usize,
    entries: &[(usize, usize, f64)],
    canonical: Option<bool>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.shape(), (m, n));
    let ip: Vec<i64> = a
        .indptr()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.to_i64())
        .collect();
    let ind: Vec<i64> = a
        .indices()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.to_i64())
        .collect();
    prop_assert_eq!(ip.len(), m + 1);
    prop_assert_eq!(ip[0], 0);
    prop_assert_eq!(ip[m] as usize, a.nnz());
    prop_assert!(ip.windows(2).all(|w| w[0] <= w[1]));
    prop_assert!(ind.iter().all(|&c| c >= 0 && (c as usize) < n));
    let sorted_unique = (0..m).all(|r| {
        ind[ip[r] as usize..ip[r + 1] as usize]
            .windows(2)
            .all(|w| w[0] < w[1])
    });
    if let Some(c) = canonical {
        prop_assert_eq!(a.has_canonical_format(), c);
    }
    if a.has_canonical_format() {
        prop_assert!(
            sorted_unique,
            "canonical flag on unsorted or repeated indices"
        );
    }
    if heavy(m) || heavy(n) {
        return Ok(());
    }
    let dense = dense_model(m, n, entries);
    match (&dense, a.toarray()) {
        (Some(d), Ok(t)) => prop_assert_eq!(&t.to_vec().unwrap(), d),
        (Some(_), Err(e)) => prop_assert!(false, "toarray failed: {}", e),
        (None, Ok(t)) => prop_assert!(
            t.size() <= 1 << 16 || m == 0 || n == 0,
            "toarray of ({}, {})",
            m,
            n
        ),
        (None, Err(e)) => prop_assert!(kind_ok(Kind::Memory, &e), "{}", e),
    }
    // sum_duplicates: canonical, the same matrix
    let s = a.sum_duplicates();
    match &s {
        Ok(s) => {
            prop_assert!(s.has_canonical_format());
            if let Some(d) = &dense {
                prop_assert_eq!(&s.toarray().unwrap().to_vec().unwrap(), d);
            }
            let sip: Vec<i64> = s
                .indptr()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_i64())
                .collect();
            let sind: Vec<i64> = s
                .indices()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_i64())
                .collect();
            prop_assert!((0..m).all(|r| sind[sip[r] as usize..sip[r + 1] as usize]
                .windows(2)
                .all(|w| w[0] < w[1])));
            let mut pos: Vec<(usize, usize)> = entries.iter().map(|&(r, c, _)| (r, c)).collect();
            pos.sort_unstable();
            pos.dedup();
            prop_assert_eq!(s.nnz(), pos.len());
        }
        Err(e) => prop_assert!(kind_ok(Kind::Memory, e), "sum_duplicates: {}", e),
    }
    // tocsc (a transposing copy: O(n) memory) and tocoo
    match a.tocsc() {
        Ok(c) => {
            prop_assert_eq!(c.shape(), (m, n));
            if let Some(d) = &dense {
                prop_assert_eq!(&c.toarray().unwrap().to_vec().unwrap(), d);
            }
        }
        Err(e) => prop_assert!(kind_ok(Kind::Memory, &e), "tocsc: {}", e),
    }
    let coo = a.tocoo().unwrap();
    prop_assert_eq!(coo.nnz(), a.nnz());
    Ok(())
}

/// The COO property for index type `I`.
#[allow(clippy::if_same_then_else)] // one branch per check, in the library's order
fn coo_case<I: SpIndex>(m: usize, n: usize, trip: &[(i64, i64, f64)]) -> Result<(), TestCaseError> {
    let dev = Device::Cpu;
    let k = trip.len();
    let rows: Vec<I> = trip.iter().map(|t| I::from_i64(t.0)).collect();
    let cols: Vec<I> = trip.iter().map(|t| I::from_i64(t.1)).collect();
    // the indices as the index type holds them (i64 values narrowed to i32 wrap)
    let held: Vec<(i64, i64)> = rows
        .iter()
        .zip(&cols)
        .map(|(r, c)| (r.to_i64(), c.to_i64()))
        .collect();
    let data: Vec<f64> = trip.iter().map(|t| t.2).collect();
    let r = CooMatrix::new(
        Array::from_vec(data, &[k], &dev).unwrap(),
        Array::from_vec(rows, &[k], &dev).unwrap(),
        Array::from_vec(cols, &[k], &dev).unwrap(),
        (m, n),
    );
    let want = if !fits::<I>(m) || !fits::<I>(n) {
        Err(Kind::Arg)
    } else if held
        .iter()
        .any(|&(r, c)| r < 0 || c < 0 || r as u128 >= m as u128 || c as u128 >= n as u128)
    {
        Err(Kind::Arg)
    } else {
        Ok(())
    };
    match (want, r) {
        (Err(k), Err(e)) => prop_assert!(kind_ok(k, &e), "{:?}: {}", k, e),
        (Err(k), Ok(_)) => prop_assert!(false, "accepted, wanted {:?}", k),
        (Ok(()), Err(e)) => prop_assert!(false, "refused: {}", e),
        (Ok(()), Ok(a)) => {
            let entries: Vec<(usize, usize, f64)> = held
                .iter()
                .zip(trip)
                .map(|(&(r, c), t)| (r as usize, c as usize, t.2))
                .collect();
            if heavy(m) || heavy(n) {
                return Ok(());
            }
            match a.tocsr() {
                Ok(c) => check_csr(&c, m, n, &entries, Some(true))?,
                Err(e) => prop_assert!(kind_ok(Kind::Memory, &e), "tocsr: {}", e),
            }
        }
    }
    Ok(())
}

/// Raw CSR arrays: a valid structure from row lengths, then maybe one defect.
#[derive(Debug, Clone)]
struct RawCsr {
    m: usize,
    n: usize,
    indptr: Vec<i64>,
    indices: Vec<i64>,
    data: Vec<f64>,
}

#[derive(Debug, Clone)]
enum Defect {
    None,
    /// indptr[i] += d
    Indptr(usize, i64),
    /// indices[i] = v
    Index(usize, i64),
    /// one element more or less in an array (0 indptr, 1 indices, 2 data)
    Length(u8, bool),
    /// the rows reversed within (unsorted indices)
    Unsort,
}

fn raw_csr() -> impl Strategy<Value = (RawCsr, Defect)> {
    (
        prop_oneof![8 => 0usize..6, 1 => Just(0usize)],
        dim(),
        prop::collection::vec(prop::collection::vec((index(), value()), 0..5), 0..6),
        prop_oneof![
            4 => Just(Defect::None),
            1 => (any::<usize>(), prop_oneof![-3i64..4, Just(i64::MAX), Just(i64::MIN), Just(1 << 40)]).prop_map(|(i, d)| Defect::Indptr(i, d)),
            1 => (any::<usize>(), index()).prop_map(|(i, v)| Defect::Index(i, v)),
            1 => (0u8..3, any::<bool>()).prop_map(|(w, more)| Defect::Length(w, more)),
            1 => Just(Defect::Unsort),
        ],
    )
        .prop_map(|(m, n, rows, defect)| {
            let mut indptr = vec![0i64];
            let mut indices = Vec::new();
            let mut data = Vec::new();
            for r in 0..m {
                if let Some(row) = rows.get(r) {
                    for &(c, v) in row {
                        // a column inside when the dimension is small, else as drawn
                        let c = if n > 0 && n < 6 { c.rem_euclid(n as i64) } else { c };
                        indices.push(c);
                        data.push(v);
                    }
                }
                indptr.push(indices.len() as i64);
            }
            (RawCsr { m, n, indptr, indices, data }, defect)
        })
}

fn apply_defect(raw: &mut RawCsr, d: &Defect) {
    match d {
        Defect::None => {}
        Defect::Indptr(i, v) => {
            let i = i % raw.indptr.len();
            raw.indptr[i] = raw.indptr[i].wrapping_add(*v);
        }
        Defect::Index(i, v) => {
            if !raw.indices.is_empty() {
                let i = i % raw.indices.len();
                raw.indices[i] = *v;
            }
        }
        Defect::Length(w, more) => {
            let grow = |v: &mut Vec<i64>| {
                if *more {
                    v.push(0)
                } else {
                    v.pop().map(|_| ()).unwrap_or(())
                }
            };
            match w {
                0 => grow(&mut raw.indptr),
                1 => grow(&mut raw.indices),
                _ => {
                    if *more {
                        raw.data.push(1.0)
                    } else {
                        raw.data.pop();
                    }
                }
            }
        }
        Defect::Unsort => {
            for r in 0..raw.m {
                let (s, e) = (raw.indptr[r] as usize, raw.indptr[r + 1] as usize);
                raw.indices[s..e].reverse();
                raw.data[s..e].reverse();
            }
        }
    }
}

/// The raw CSR property for index type `I`: the error the naive check predicts, or a matrix
/// agreeing with the model.
#[allow(clippy::if_same_then_else)] // one branch per check, in SciPy's order
fn raw_case<I: SpIndex>(raw: &RawCsr) -> Result<(), TestCaseError> {
    let dev = Device::Cpu;
    let ip: Vec<I> = raw.indptr.iter().map(|&v| I::from_i64(v)).collect();
    let ind: Vec<I> = raw.indices.iter().map(|&v| I::from_i64(v)).collect();
    let hip: Vec<i64> = ip.iter().map(|v| v.to_i64()).collect();
    let hind: Vec<i64> = ind.iter().map(|v| v.to_i64()).collect();
    let (m, n) = (raw.m, raw.n);
    let nnz = raw.data.len();
    let r = CsrMatrix::<f64, I>::new(
        Array::from_vec(raw.data.clone(), &[nnz], &dev).unwrap(),
        Array::from_vec(ind, &[hind.len()], &dev).unwrap(),
        Array::from_vec(ip, &[hip.len()], &dev).unwrap(),
        (m, n),
    );
    // the naive check, in SciPy's order: lengths, index type, end points, monotone, bounds
    let want: Result<(), Kind> = if hip.len() != m + 1 || hind.len() != nnz {
        Err(Kind::Shape)
    } else if !fits::<I>(m) || !fits::<I>(n) || !fits::<I>(nnz) {
        Err(Kind::Arg)
    } else if hip[0] != 0
        || hip[m] != nnz as i64
        || hip.windows(2).any(|w| w[0] > w[1])
        || hip.iter().any(|&p| p < 0 || p > nnz as i64)
    {
        Err(Kind::Arg)
    } else if hind.iter().any(|&c| c < 0 || c as u128 >= n as u128) {
        Err(Kind::Arg)
    } else {
        Ok(())
    };
    match (want, r) {
        (Err(k), Err(e)) => prop_assert!(kind_ok(k, &e), "{:?}: {}", k, e),
        (Err(k), Ok(_)) => prop_assert!(false, "accepted, wanted {:?}", k),
        (Ok(()), Err(e)) => prop_assert!(false, "refused: {}", e),
        (Ok(()), Ok(a)) => {
            let mut entries = Vec::new();
            let mut canonical = true;
            for r in 0..m {
                for j in hip[r] as usize..hip[r + 1] as usize {
                    entries.push((r, hind[j] as usize, raw.data[j]));
                    if j > hip[r] as usize && hind[j] <= hind[j - 1] {
                        canonical = false;
                    }
                }
            }
            check_csr(&a, m, n, &entries, Some(canonical))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(3000))]

    /// COO from triplets (i32 and i64 indices): out-of-range or negative indices and shapes
    /// past the index type are InvalidArgument; anything else converts to a canonical CSR
    /// matrix equal to the dense model with duplicates summed (or, for shapes of 2^44 and
    /// more, a typed memory error).
    #[test]
    fn coo_from_triplets(
        m in dim(),
        n in dim(),
        trip in prop::collection::vec((index(), index(), value()), 0..12),
        small in any::<bool>(),
    ) {
        // mostly indices inside a small shape
        let trip: Vec<(i64, i64, f64)> = if small && m > 0 && n > 0 && m < 6 && n < 6 {
            trip.iter().map(|&(r, c, v)| (r.rem_euclid(m as i64), c.rem_euclid(n as i64), v)).collect()
        } else {
            trip
        };
        coo_case::<i32>(m, n, &trip)?;
        coo_case::<i64>(m, n, &trip)?;
    }

    /// CSR from raw arrays with one defect or none, both index types.
    #[test]
    fn csr_from_raw_arrays((raw, defect) in raw_csr()) {
        let mut raw = raw;
        apply_defect(&mut raw, &defect);
        raw_case::<i32>(&raw)?;
        raw_case::<i64>(&raw)?;
    }
}

/// A valid matrix of 2^44 rows (or columns) with a few entries: its index pointer cannot be
/// held, and building it with `vec!` aborted the process (tocsr of COO, tocsc of CSR); now
/// OutOfMemory, or InvalidArgument for 2^62 (SciPy: MemoryError).
#[test]
fn huge_dimensions_are_typed_errors_not_aborts() {
    let dev = Device::Cpu;
    let coo = CooMatrix::<f64, i64>::new(
        Array::from_vec(vec![1.0, 2.0], &[2], &dev).unwrap(),
        Array::from_vec(vec![(1 << 44) - 1, 0], &[2], &dev).unwrap(),
        Array::from_vec(vec![2, 0], &[2], &dev).unwrap(),
        (1 << 44, 3),
    )
    .unwrap();
    let e = coo.tocsr().unwrap_err();
    assert!(kind_ok(Kind::Memory, &e), "{e}");
    let e = coo.transpose().tocsc().unwrap_err();
    assert!(kind_ok(Kind::Memory, &e), "{e}");
    for n in [1usize << 44, 1 << 62, i64::MAX as usize] {
        let a = CsrMatrix::<f64, i64>::new(
            Array::from_vec(vec![5.0], &[1], &dev).unwrap(),
            Array::from_vec(vec![n as i64 - 1], &[1], &dev).unwrap(),
            Array::from_vec(vec![0, 1], &[2], &dev).unwrap(),
            (1, n),
        )
        .unwrap();
        let e = a.tocsc().unwrap_err();
        assert!(kind_ok(Kind::Memory, &e), "{n}: {e}");
        assert!(a.toarray().is_err());
        assert_eq!(a.tocoo().unwrap().nnz(), 1);
    }
}

// ---------------- arithmetic and products against the dense model ----------------

/// A matrix's (row, column, value) entries.
type Entries = [(usize, usize, f64)];

/// Small-integer entries (duplicates and explicit zeros included) of an `m x n` matrix.
fn int_entries(m: usize, n: usize) -> impl Strategy<Value = Vec<(usize, usize, f64)>> {
    let cell = (0..m.max(1), 0..n.max(1), -3i32..4).prop_map(|(r, c, v)| (r, c, v as f64));
    prop::collection::vec(cell, if m * n == 0 { 0..1 } else { 0..14 })
}

fn csr_of(m: usize, n: usize, e: &Entries, dev: &Device) -> CsrMatrix<f64, i32> {
    let data: Vec<f64> = e.iter().map(|t| t.2).collect();
    let row: Vec<i32> = e.iter().map(|t| t.0 as i32).collect();
    let col: Vec<i32> = e.iter().map(|t| t.1 as i32).collect();
    let k = e.len();
    let cpu = Device::cpu();
    CooMatrix::new(
        Array::from_vec(data, &[k], &cpu).unwrap(),
        Array::from_vec(row, &[k], &cpu).unwrap(),
        Array::from_vec(col, &[k], &cpu).unwrap(),
        (m, n),
    )
    .unwrap()
    .tocsr()
    .unwrap()
    .to_device(dev)
    .unwrap()
}

fn dense(a: &CsrMatrix<f64, i32>) -> Vec<f64> {
    a.toarray().unwrap().to_vec().unwrap()
}

/// Every operation of `a` (`m x n`), `b` (`m x n`), `c` (`n x k`) and `x` (`n`) on `dev`, as dense
/// row-major results, in a fixed order.
fn arithmetic_on(
    (m, n, k): (usize, usize, usize),
    (ea, eb, ec): (&Entries, &Entries, &Entries),
    x: &[f64],
    dev: &Device,
) -> Vec<Vec<f64>> {
    let a = csr_of(m, n, ea, dev);
    let b = csr_of(m, n, eb, dev);
    let c = csr_of(n, k, ec, dev);
    let xv = Array::from_vec(x.to_vec(), &[n], dev).unwrap();
    vec![
        dense(&a.add(&b).unwrap()),
        dense(&a.sub(&b).unwrap()),
        dense(&a.multiply(&b).unwrap()),
        dense(&a.matmul(&c).unwrap()),
        a.dot(&xv).unwrap().to_vec().unwrap(),
        a.transpose().toarray().unwrap().to_vec().unwrap(),
        dense(&a.mul_scalar(-2.5).unwrap()),
        dense(&a.eliminate_zeros().unwrap()),
    ]
}

proptest! {
    #![proptest_config(config(400))]

    /// Sums, differences, element-wise and matrix products, SpMV, transposes and scaling of
    /// random small matrices (duplicates, explicit zeros, empty rows, 0-sized shapes) equal the
    /// same operations on their dense forms exactly (small integers: every order of summation
    /// gives the same f64); on a GPU, the same results as the CPU's.
    #[test]
    fn arithmetic_and_products_match_dense(
        (m, n, k, ea, eb, ec, x) in (0usize..6, 0usize..6, 0usize..5).prop_flat_map(|(m, n, k)| (
            Just(m), Just(n), Just(k),
            int_entries(m, n), int_entries(m, n), int_entries(n, k),
            prop::collection::vec((-3i32..4).prop_map(f64::from), n),
        ))
    ) {
        let da = dense_model(m, n, &ea).unwrap();
        let db = dense_model(m, n, &eb).unwrap();
        let dc = dense_model(n, k, &ec).unwrap();
        let mut want = vec![
            da.iter().zip(&db).map(|(p, q)| p + q).collect::<Vec<_>>(),
            da.iter().zip(&db).map(|(p, q)| p - q).collect(),
            da.iter().zip(&db).map(|(p, q)| p * q).collect(),
        ];
        let mut prod = vec![0.0; m * k];
        for i in 0..m {
            for j in 0..k {
                prod[i * k + j] = (0..n).map(|l| da[i * n + l] * dc[l * k + j]).sum();
            }
        }
        want.push(prod);
        want.push((0..m).map(|i| (0..n).map(|l| da[i * n + l] * x[l]).sum()).collect());
        want.push((0..n * m).map(|t| da[(t % m) * n + t / m]).collect());
        want.push(da.iter().map(|v| v * -2.5).collect());
        want.push(da.clone());
        let cpu = arithmetic_on((m, n, k), (&ea, &eb, &ec), &x, &Device::cpu());
        for (i, (g, w)) in cpu.iter().zip(&want).enumerate() {
            // -0.0 and 0.0 compare equal
            prop_assert!(g == w, "operation {i} of {m}x{n} (k {k}): {g:?} against {w:?}");
        }
        if let Some(gpu) = cusci_core::testing::gpu() {
            let on_gpu = arithmetic_on((m, n, k), (&ea, &eb, &ec), &x, &gpu);
            prop_assert!(on_gpu == cpu, "GPU against CPU for {m}x{n} (k {k})");
        }
    }
}
