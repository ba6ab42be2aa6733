//! Property-based fuzzing (proptest, with shrinking) of the shape/stride/broadcast layer and of
//! `.npy`/`.npz` parsing, on the CPU.
//!
//! Every property compares with a naive model written here (an index-mapping oracle over the
//! base array's flat indices, Python's slice loop, products in 128 bits) and requires that no
//! input panics: an invalid input is a typed `Err`. The strategies mix small values with edge
//! ones (0, 1, 2^40, 2^62, `isize::MAX`, `usize::MAX`, `isize::MIN`).
//!
//! CI runs a modest number of cases per property (`ci_cases` below, a few seconds in all);
//! `PROPTEST_CASES=100000 cargo test -p cusci-core -- fuzz::` runs a long campaign.

use cusci_core::array::layout;
use cusci_core::{Array, Device, Error};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::rc::Rc;

/// The configuration of a property: `ci_cases` cases unless `PROPTEST_CASES` says otherwise;
/// no regression files (found cases become regular tests).
pub fn config(ci_cases: u32) -> Config {
    let mut c = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = ci_cases;
    }
    c
}

/// Dimensions: mostly small, sometimes huge.
fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        12 => 0usize..5,
        1 => Just(1usize << 40),
        1 => Just(1usize << 62),
        1 => Just(usize::MAX),
        1 => Just(isize::MAX as usize),
        1 => any::<usize>(),
    ]
}

/// Signed values (bounds, steps, axes, reshape entries): mostly small, sometimes extreme.
fn signed() -> impl Strategy<Value = isize> {
    prop_oneof![
        12 => -6isize..7,
        1 => Just(isize::MAX),
        1 => Just(isize::MIN),
        1 => Just(isize::MAX - 1),
        1 => Just(isize::MIN + 1),
        1 => Just(1isize << 40),
        1 => Just(-(1isize << 40)),
        1 => Just(1isize << 62),
        1 => any::<isize>(),
    ]
}

fn opt_signed() -> impl Strategy<Value = Option<isize>> {
    prop_oneof![1 => Just(None), 3 => signed().prop_map(Some)]
}

// ------------------------------------------------------------------------------------------
// The naive model
// ------------------------------------------------------------------------------------------

/// Python's `slice(start, stop, step)` over `0..n`: the loop over positions, with CPython's
/// normalisation of the bounds, in 128 bits. Returns (first position, count); the positions are
/// `first + k * step`. The count is found by the loop for short ranges and checked by its
/// defining property (every position inside, the next one outside) for long ones.
fn model_slice(n: usize, start: Option<isize>, stop: Option<isize>, step: isize) -> (i128, u128) {
    let (n, step) = (n as i128, step as i128);
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let norm = |v: Option<isize>, def: i128| match v {
        None => def,
        Some(v) => {
            let v = v as i128;
            let v = if v < 0 { v + n } else { v };
            v.clamp(lo, hi)
        }
    };
    let (s, e) = if step > 0 {
        (norm(start, 0), norm(stop, n))
    } else {
        (norm(start, n - 1), norm(stop, -1))
    };
    let inside = |p: i128| if step > 0 { p < e } else { p > e };
    // the count: loop when short, else the smallest k with s + k*step outside (bisection)
    let mut count: i128 = 0;
    while count < 64 && inside(s + count * step) {
        count += 1;
    }
    if count == 64 {
        let (mut a, mut b) = (63i128, n + 1); // inside(s + a*step), and b steps are past the end
        while b - a > 1 {
            let mid = a + (b - a) / 2;
            if inside(s + mid * step) {
                a = mid;
            } else {
                b = mid;
            }
        }
        count = b;
    }
    (s, count as u128)
}

/// An array as the model sees it: a shape and the map from a multi-index to (the flat index of
/// the base array element it shows, its position in the storage the array views). The two
/// differ after a copy (a reshape of a strided view), which gives the array storage of its own.
#[derive(Clone)]
struct Model {
    shape: Vec<usize>,
    at: IndexMap,
}

/// Multi-index to (base element, storage position).
type IndexMap = Rc<dyn Fn(&[u128]) -> (u128, u128)>;

impl Model {
    fn size(&self) -> u128 {
        prod(&self.shape)
    }

    /// The multi-index of C-order position `k` (k < size).
    fn unravel(shape: &[usize], mut k: u128) -> Vec<u128> {
        let mut idx = vec![0u128; shape.len()];
        for d in (0..shape.len()).rev() {
            let n = shape[d] as u128;
            idx[d] = k % n;
            k /= n;
        }
        idx
    }

    fn elems(&self) -> Vec<i64> {
        (0..self.size())
            .map(|k| (self.at)(&Self::unravel(&self.shape, k)).0 as i64)
            .collect()
    }

    fn positions(&self) -> Vec<u128> {
        (0..self.size())
            .map(|k| (self.at)(&Self::unravel(&self.shape, k)).1)
            .collect()
    }

    /// The same elements in new C-contiguous storage of their own.
    fn rebased(&self) -> Model {
        let at = self.at.clone();
        let shape = self.shape.clone();
        Model {
            shape: self.shape.clone(),
            at: Rc::new(move |i: &[u128]| {
                let mut k = 0u128;
                for (d, &x) in i.iter().enumerate() {
                    k = k * shape[d] as u128 + x;
                }
                (at(i).0, k)
            }),
        }
    }
}

/// The product of `shape` in 128 bits, saturating.
fn prod(shape: &[usize]) -> u128 {
    shape
        .iter()
        .fold(1u128, |a, &d| a.saturating_mul(d as u128))
}

/// `Err(kind)` expected of an operation: the typed error and nothing else.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Arg,
    Shape,
    /// An `OutOfMemory` (or, for a count past `isize::MAX` bytes, an `InvalidArgument`).
    Memory,
    /// Either `InvalidArgument` or `ShapeMismatch` (an input wrong in both ways; NumPy raises
    /// ValueError for both).
    ArgOrShape,
}

/// `got` is what `want` allows.
fn kind_ok(want: Kind, got: Option<Kind>) -> bool {
    match want {
        Kind::Memory => matches!(got, Some(Kind::Memory | Kind::Arg)),
        Kind::ArgOrShape => matches!(got, Some(Kind::Arg | Kind::Shape)),
        k => got == Some(k),
    }
}

fn kind_of(e: &Error) -> Option<Kind> {
    match e {
        Error::InvalidArgument { .. } => Some(Kind::Arg),
        Error::ShapeMismatch { .. } => Some(Kind::Shape),
        Error::OutOfMemory { .. } => Some(Kind::Memory),
        _ => None,
    }
}

/// The nonzero product of `shape` fits `isize::MAX` bytes of `elem`-byte elements (NumPy's
/// "array is too big" check).
fn model_fits(shape: &[usize], elem: usize) -> bool {
    let mut p: u128 = elem as u128;
    for &d in shape {
        if d != 0 {
            p = p.saturating_mul(d as u128);
        }
    }
    p <= isize::MAX as u128
}

fn model_axis(axis: isize, ndim: usize) -> Option<usize> {
    let (a, n) = (axis as i128, ndim as i128);
    let a = if a < 0 { a + n } else { a };
    (0..n).contains(&a).then_some(a as usize)
}

#[derive(Debug, Clone)]
enum Op {
    Slice(isize, Option<isize>, Option<isize>, isize),
    Index(isize, isize),
    Permute(Vec<isize>),
    T,
    Swap(isize, isize),
    Reshape(Vec<isize>),
    Expand(isize),
    Squeeze,
    Broadcast(Vec<usize>),
    Contiguous,
    /// Seeds of operations valid more often than random arguments make them ([`resolve`]).
    PermSeed(Vec<u8>, bool),
    ReshapeSeed(Vec<usize>, bool),
    BroadcastSeed(Vec<usize>, Vec<usize>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (signed(), opt_signed(), opt_signed(), signed())
            .prop_map(|(a, s, e, st)| Op::Slice(a, s, e, st)),
        1 => (signed(), signed()).prop_map(|(a, i)| Op::Index(a, i)),
        2 => prop::collection::vec(prop_oneof![4 => -5isize..6, 1 => signed()], 0..6)
            .prop_map(Op::Permute),
        1 => Just(Op::T),
        1 => (signed(), signed()).prop_map(|(a, b)| Op::Swap(a, b)),
        3 => prop::collection::vec(
                prop_oneof![8 => -1isize..7, 1 => signed(), 1 => Just(1isize << 40)], 0..5)
            .prop_map(Op::Reshape),
        1 => signed().prop_map(Op::Expand),
        1 => Just(Op::Squeeze),
        3 => prop::collection::vec(dim(), 0..6).prop_map(Op::Broadcast),
        1 => Just(Op::Contiguous),
        2 => (prop::collection::vec(any::<u8>(), 8), any::<bool>())
            .prop_map(|(k, n)| Op::PermSeed(k, n)),
        3 => (prop::collection::vec(prop_oneof![6 => 1usize..5, 1 => Just(0usize), 1 => Just(1 << 20), 1 => Just(1 << 40), 1 => Just(1 << 62)], 0..4), any::<bool>())
            .prop_map(|(f, i)| Op::ReshapeSeed(f, i)),
        3 => (prop::collection::vec(dim(), 0..3), prop::collection::vec(dim(), 8))
            .prop_map(|(l, f)| Op::BroadcastSeed(l, f)),
    ]
}

/// Sizes of views whose copy the tests make for real; past `HUGE` a copy must be refused.
const COPY_LIMIT: u128 = 1 << 16;
const HUGE: u128 = 1 << 46;

/// What the model expects of `op` on `m`: the new model, an error, or `None` when the operation
/// would copy a view too large to copy in a test yet small enough to be possible.
fn model_apply(m: &Model, op: &Op) -> Option<Result<Model, Kind>> {
    let nd = m.shape.len();
    let at = m.at.clone();
    Some(match op {
        Op::Slice(axis, start, stop, step) => {
            let (Some(ax), true) = (model_axis(*axis, nd), *step != 0) else {
                return Some(Err(Kind::Arg));
            };
            let (s, len) = model_slice(m.shape[ax], *start, *stop, *step);
            let mut shape = m.shape.clone();
            shape[ax] = len as usize;
            let step = *step as i128;
            Ok(Model {
                shape,
                at: Rc::new(move |i: &[u128]| {
                    let mut j = i.to_vec();
                    j[ax] = (s + i[ax] as i128 * step) as u128;
                    at(&j)
                }),
            })
        }
        Op::Index(axis, i) => {
            let Some(ax) = model_axis(*axis, nd) else {
                return Some(Err(Kind::Arg));
            };
            let n = m.shape[ax] as i128;
            let i = *i as i128;
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                return Some(Err(Kind::Arg));
            }
            let mut shape = m.shape.clone();
            shape.remove(ax);
            Ok(Model {
                shape,
                at: Rc::new(move |i: &[u128]| {
                    let mut k = i.to_vec();
                    k.insert(ax, j as u128);
                    at(&k)
                }),
            })
        }
        Op::Permute(axes) => {
            if axes.len() != nd {
                return Some(Err(Kind::Arg));
            }
            let mut perm = Vec::new();
            for &a in axes {
                match model_axis(a, nd) {
                    Some(a) if !perm.contains(&a) => perm.push(a),
                    _ => return Some(Err(Kind::Arg)),
                }
            }
            Ok(permuted(m, perm))
        }
        Op::T => Ok(permuted(m, (0..nd).rev().collect())),
        Op::Swap(a, b) => match (model_axis(*a, nd), model_axis(*b, nd)) {
            (Some(a), Some(b)) => {
                let mut perm: Vec<usize> = (0..nd).collect();
                perm.swap(a, b);
                Ok(permuted(m, perm))
            }
            _ => Err(Kind::Arg),
        },
        Op::Reshape(dims) => {
            let size = m.size();
            if dims.iter().filter(|&&d| d == -1).count() > 1 || dims.iter().any(|&d| d < -1) {
                return Some(Err(Kind::Arg));
            }
            let known: u128 = dims
                .iter()
                .filter(|&&d| d >= 0)
                .fold(1u128, |a, &d| a.saturating_mul(d as u128));
            let mut shape: Vec<usize> = Vec::new();
            for &d in dims {
                if d == -1 {
                    if known == 0 || size % known != 0 {
                        return Some(Err(Kind::Shape));
                    }
                    shape.push((size / known) as usize);
                } else {
                    shape.push(d as usize);
                }
            }
            match (model_fits(&shape, 8), prod(&shape) == size) {
                (true, true) => {}
                (false, true) => return Some(Err(Kind::Arg)),
                (true, false) => return Some(Err(Kind::Shape)),
                (false, false) => return Some(Err(Kind::ArgOrShape)),
            }
            if size > COPY_LIMIT {
                // a view larger than its base is a broadcast: the reshape copies it
                return (size >= HUGE).then_some(Err(Kind::Memory));
            }
            let parent = m.shape.clone();
            let new = shape.clone();
            Ok(Model {
                shape,
                at: Rc::new(move |i: &[u128]| {
                    let mut k = 0u128;
                    for (d, &x) in i.iter().enumerate() {
                        k = k * new[d] as u128 + x;
                    }
                    at(&Model::unravel(&parent, k))
                }),
            })
        }
        Op::Expand(axis) => {
            let Some(ax) = model_axis(*axis, nd + 1) else {
                return Some(Err(Kind::Arg));
            };
            let mut shape = m.shape.clone();
            shape.insert(ax, 1);
            Ok(Model {
                shape,
                at: Rc::new(move |i: &[u128]| {
                    let mut k = i.to_vec();
                    k.remove(ax);
                    at(&k)
                }),
            })
        }
        Op::Squeeze => {
            let parent = m.shape.clone();
            Ok(Model {
                shape: m.shape.iter().copied().filter(|&d| d != 1).collect(),
                at: Rc::new(move |i: &[u128]| {
                    let mut it = i.iter();
                    let k: Vec<u128> = parent
                        .iter()
                        .map(|&d| if d == 1 { 0 } else { *it.next().unwrap() })
                        .collect();
                    at(&k)
                }),
            })
        }
        Op::Broadcast(target) => {
            if !model_fits(target, 8) {
                return Some(Err(Kind::Arg));
            }
            if target.len() < nd {
                return Some(Err(Kind::Shape));
            }
            let lead = target.len() - nd;
            for d in 0..nd {
                if m.shape[d] != target[lead + d] && m.shape[d] != 1 {
                    return Some(Err(Kind::Shape));
                }
            }
            let src = m.shape.clone();
            Ok(Model {
                shape: target.clone(),
                at: Rc::new(move |i: &[u128]| {
                    let k: Vec<u128> = (0..src.len())
                        .map(|d| if src[d] == 1 { 0 } else { i[lead + d] })
                        .collect();
                    at(&k)
                }),
            })
        }
        Op::Contiguous => {
            let size = m.size();
            if size > COPY_LIMIT {
                return (size >= HUGE).then_some(Err(Kind::Memory));
            }
            Ok(m.clone())
        }
        Op::PermSeed(..) | Op::ReshapeSeed(..) | Op::BroadcastSeed(..) => {
            unreachable!("resolved first")
        }
    })
}

/// The concrete operation of a seeded one, for an array of `shape`: a valid permutation (axes
/// possibly negative), a reshape into factors of the size (maybe with -1), a broadcast that
/// prepends axes and stretches axes of length 1.
fn resolve(op: &Op, shape: &[usize]) -> Op {
    let nd = shape.len();
    match op {
        Op::PermSeed(keys, neg) => {
            let mut axes: Vec<usize> = (0..nd).collect();
            axes.sort_by_key(|&d| keys[d % keys.len()]);
            Op::Permute(
                axes.iter()
                    .map(|&a| {
                        if *neg {
                            a as isize - nd as isize
                        } else {
                            a as isize
                        }
                    })
                    .collect(),
            )
        }
        Op::ReshapeSeed(factors, infer) => {
            let size = prod(shape);
            let mut left = size;
            let mut dims = Vec::new();
            for &f in factors {
                if left == 0 || f == 0 || left % f as u128 == 0 {
                    dims.push(f as isize);
                    left = if f == 0 { 0 } else { left / f as u128 };
                }
            }
            dims.push(if *infer {
                -1
            } else {
                left.min(isize::MAX as u128) as isize
            });
            Op::Reshape(dims)
        }
        Op::BroadcastSeed(lead, fill) => {
            let mut t = lead.clone();
            t.extend(
                shape
                    .iter()
                    .enumerate()
                    .map(|(d, &n)| if n == 1 { fill[d % fill.len()] } else { n }),
            );
            Op::Broadcast(t)
        }
        other => other.clone(),
    }
}

fn permuted(m: &Model, perm: Vec<usize>) -> Model {
    let at = m.at.clone();
    let shape = perm.iter().map(|&p| m.shape[p]).collect();
    Model {
        shape,
        at: Rc::new(move |i: &[u128]| {
            let mut k = vec![0u128; i.len()];
            for (d, &p) in perm.iter().enumerate() {
                k[p] = i[d];
            }
            at(&k)
        }),
    }
}

fn apply(a: &Array<i64>, op: &Op) -> cusci_core::Result<Array<i64>> {
    match op {
        Op::Slice(ax, s, e, st) => a.slice_axis(*ax, *s, *e, *st),
        Op::Index(ax, i) => a.index_axis(*ax, *i),
        Op::Permute(p) => a.permute(p),
        Op::T => Ok(a.t()),
        Op::Swap(x, y) => a.swapaxes(*x, *y),
        Op::Reshape(d) => a.reshape(d),
        Op::Expand(ax) => a.expand_dims(*ax),
        Op::Squeeze => Ok(a.squeeze()),
        Op::Broadcast(s) => a.broadcast_to(s),
        Op::Contiguous => a.contiguous(),
        Op::PermSeed(..) | Op::ReshapeSeed(..) | Op::BroadcastSeed(..) => {
            unreachable!("resolved first")
        }
    }
}

/// Where the storage that `a` views starts (only meaningful when `a` has elements).
fn storage_start(a: &Array<i64>) -> Option<*const i64> {
    (a.size() > 0).then(|| a.cpu_data().unwrap().as_ptr().wrapping_sub(a.offset()))
}

/// The element of `a` at multi-index `idx`, read through index_axis down to a 0-d array.
fn element(a: &Array<i64>, idx: &[u128]) -> i64 {
    let mut v = a.clone();
    for &i in idx {
        v = v.index_axis(0, i as isize).unwrap();
    }
    v.item().unwrap()
}

/// Checks `a` against the model: shape, elements (all of them for a small array, else a
/// sample through `index_axis`), contiguity, offsets inside the storage.
fn check_view(a: &Array<i64>, m: &Model, base_len: usize) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.shape(), &m.shape[..]);
    prop_assert_eq!(a.strides().len(), a.ndim());
    prop_assert_eq!(a.size() as u128, m.size());
    let size = m.size();
    if size == 0 {
        prop_assert!(a.to_vec().unwrap().is_empty());
        return Ok(());
    }
    // the reachable storage range lies within the base storage
    let (lo, hi) = layout::offset_range(a.shape(), a.strides(), a.offset());
    prop_assert!(
        lo >= 0 && (hi as usize) < base_len,
        "offsets {lo}..={hi} outside a base of {base_len}"
    );
    if size <= 4096 {
        let got = a.to_vec().unwrap();
        let want = m.elems();
        prop_assert_eq!(&got, &want);
        let pos = m.positions();
        let consecutive = pos.windows(2).all(|w| w[1] == w[0] + 1);
        prop_assert_eq!(
            a.is_contiguous(),
            consecutive,
            "is_contiguous of {:?} strides {:?}",
            a.shape(),
            a.strides()
        );
        let c = a.contiguous().unwrap();
        prop_assert!(c.is_contiguous());
        prop_assert_eq!(c.to_vec().unwrap(), want);
    } else {
        let last: Vec<u128> = m.shape.iter().map(|&d| d as u128 - 1).collect();
        let mid: Vec<u128> = m.shape.iter().map(|&d| d as u128 / 2).collect();
        for idx in [vec![0; m.shape.len()], last, mid] {
            prop_assert_eq!(element(a, &idx), (m.at)(&idx).0 as i64, "at {:?}", idx);
        }
    }
    Ok(())
}

/// A base shape: small dims, or a zero-size shape with huge axes.
fn base_shape() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        4 => prop::collection::vec(0usize..5, 0..4),
        1 => prop::collection::vec(dim(), 0..4),
    ]
}

proptest! {
    #![proptest_config(config(10_000))]

    /// A chain of view operations on an array holding its own flat indices agrees with the
    /// index-mapping model after every step; invalid arguments give the model's typed error.
    #[test]
    fn views_agree_with_the_index_model(
        shape in base_shape(),
        ops in prop::collection::vec(op(), 0..7),
    ) {
        let dev = Device::Cpu;
        let fits = model_fits(&shape, 8);
        let size = prod(&shape);
        if !fits {
            let e = Array::<i64>::from_vec(vec![], &shape, &dev).unwrap_err();
            prop_assert_eq!(kind_of(&e), Some(Kind::Arg), "{}", e);
            return Ok(());
        }
        if size > 256 {
            let e = Array::<i64>::from_vec(vec![0; 3], &shape, &dev).unwrap_err();
            prop_assert_eq!(kind_of(&e), Some(Kind::Shape), "{}", e);
            return Ok(());
        }
        let n = size as usize;
        let mut a = Array::<i64>::from_vec((0..n as i64).collect(), &shape, &dev).unwrap();
        let mut m = Model { shape: shape.clone(), at: Rc::new({
            let shape = shape.clone();
            move |i: &[u128]| {
                let mut k = 0u128;
                for (d, &x) in i.iter().enumerate() { k = k * shape[d] as u128 + x; }
                (k, k)
            }
        }) };
        check_view(&a, &m, n)?;
        let mut base_len = n;
        for op in &ops {
            let op = &resolve(op, a.shape());
            let Some(want) = model_apply(&m, op) else { continue };
            let got = apply(&a, op);
            match (want, got) {
                (Ok(m2), Ok(a2)) => {
                    // a copy (reshape of a strided view) has storage of its own
                    let copied = a2.size() > 0 && storage_start(&a2) != storage_start(&a);
                    let m2 = if copied {
                        prop_assert!(a2.is_contiguous() && a2.offset() == 0, "a copy is C-contiguous");
                        base_len = a2.size();
                        m2.rebased()
                    } else {
                        m2
                    };
                    check_view(&a2, &m2, base_len)?;
                    m = m2;
                    a = a2;
                }
                (Err(k), Err(e)) => {
                    prop_assert!(kind_ok(k, kind_of(&e)), "{:?} on {:?}: expected {:?}, got {}", op, m.shape, k, e);
                }
                (Ok(m2), Err(e)) => prop_assert!(false, "{:?} on {:?} (strides {:?}): expected shape {:?}, got {}", op, a.shape(), a.strides(), m2.shape, e),
                (Err(k), Ok(a2)) => prop_assert!(false, "{:?} on {:?}: expected {:?}, got shape {:?}", op, m.shape, k, a2.shape()),
            }
        }
    }

    /// `slice_range` against Python's slice loop, for any axis length and any bounds and step.
    #[test]
    fn slice_range_matches_python(
        n in dim(),
        start in opt_signed(),
        stop in opt_signed(),
        step in signed().prop_filter("step 0", |&s| s != 0),
    ) {
        let (s, len) = layout::slice_range(n, start, stop, step);
        let (ms, mlen) = model_slice(n, start, stop, step);
        prop_assert_eq!(len as u128, mlen);
        if mlen > 0 {
            prop_assert_eq!(s as i128, ms);
            let lastp = ms + (mlen as i128 - 1) * step as i128;
            prop_assert!((0..n as i128).contains(&lastp));
        }
    }

    /// NumPy's broadcast of two shapes against a model, both orders; errors are typed.
    #[test]
    fn broadcast_shapes_matches_numpy(
        a in prop::collection::vec(dim(), 0..5),
        b in prop::collection::vec(dim(), 0..5),
    ) {
        let n = a.len().max(b.len());
        let pad = |s: &[usize]| -> Vec<usize> {
            let mut v = vec![1; n - s.len()];
            v.extend_from_slice(s);
            v
        };
        let (pa, pb) = (pad(&a), pad(&b));
        let mut want: Result<Vec<usize>, Kind> = Ok(Vec::new());
        for i in 0..n {
            let d = match (pa[i], pb[i]) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => { want = Err(Kind::Shape); break; }
            };
            if let Ok(v) = &mut want { v.push(d); }
        }
        if let Ok(v) = &want {
            if !model_fits(v, 1) { want = Err(Kind::Arg); }
        }
        for (x, y) in [(&a, &b), (&b, &a)] {
            match (&want, layout::broadcast_shapes("fuzz", x, y)) {
                (Ok(w), Ok(g)) => prop_assert_eq!(w, &g),
                (Err(k), Err(e)) => prop_assert_eq!(Some(*k), kind_of(&e), "{}", e),
                (w, g) => prop_assert!(false, "{:?} {:?}: want {:?}, got {:?}", x, y, w, g),
            }
        }
    }

    /// checked_numel, checked_shape and c_strides against 128-bit products.
    #[test]
    fn size_checks_match_128_bit_products(
        shape in prop::collection::vec(dim(), 0..6),
        elem in prop_oneof![Just(1usize), Just(8), Just(16)],
    ) {
        let size = prod(&shape);
        match layout::checked_numel("fuzz", &shape) {
            Ok(k) => { prop_assert!(model_fits(&shape, 1)); prop_assert_eq!(k as u128, size); }
            Err(e) => { prop_assert!(!model_fits(&shape, 1)); prop_assert_eq!(kind_of(&e), Some(Kind::Arg)); }
        }
        match layout::checked_shape("fuzz", &shape, elem) {
            Ok(k) => { prop_assert!(model_fits(&shape, elem)); prop_assert_eq!(k as u128, size); }
            Err(e) => { prop_assert!(!model_fits(&shape, elem)); prop_assert_eq!(kind_of(&e), Some(Kind::Arg)); }
        }
        if model_fits(&shape, 1) {
            let st = layout::c_strides(&shape);
            for d in 0..shape.len() {
                let tail: u128 = shape[d + 1..].iter().map(|&x| x.max(1) as u128).product();
                prop_assert_eq!(st[d] as u128, tail);
            }
            prop_assert!(layout::is_c_contiguous(&shape, &st));
        }
    }

    /// norm_axis and norm_axes against the model; errors are InvalidArgument.
    #[test]
    fn axis_normalisation(axes in prop::collection::vec(signed(), 0..5), ndim in prop_oneof![0usize..6, Just(usize::MAX / 2)]) {
        for &a in &axes {
            match (model_axis(a, ndim), layout::norm_axis("fuzz", a, ndim)) {
                (Some(w), Ok(g)) => prop_assert_eq!(w, g),
                (None, Err(e)) => prop_assert_eq!(kind_of(&e), Some(Kind::Arg)),
                (w, g) => prop_assert!(false, "axis {} of {}: {:?} vs {:?}", a, ndim, w, g),
            }
        }
        let norm: Option<Vec<usize>> = axes.iter().map(|&a| model_axis(a, ndim)).collect();
        let want = norm.filter(|v| {
            let mut s = v.clone();
            s.sort_unstable();
            s.dedup();
            s.len() == v.len()
        }).map(|mut v| { v.sort_unstable(); v });
        match (want, layout::norm_axes("fuzz", &axes, ndim)) {
            (Some(w), Ok(g)) => prop_assert_eq!(w, g),
            (None, Err(e)) => prop_assert_eq!(kind_of(&e), Some(Kind::Arg)),
            (w, g) => prop_assert!(false, "axes {:?} of {}: {:?} vs {:?}", axes, ndim, w, g),
        }
    }

    /// coalesce keeps the sequence of offsets of every operand; offset_range is their min and
    /// max; is_c_contiguous means consecutive offsets.
    #[test]
    fn coalesce_and_offsets_keep_the_traversal(
        shape in prop::collection::vec(0usize..5, 0..5),
        strides in prop::collection::vec(prop::collection::vec(-7isize..8, 5), 1..4),
        offset in 0usize..200,
    ) {
        let st: Vec<Vec<isize>> = strides.iter().map(|s| s[..shape.len()].to_vec()).collect();
        let walk = |shape: &[usize], s: &[isize]| -> Vec<isize> {
            let n: usize = shape.iter().product();
            (0..n).map(|k| {
                let idx = Model::unravel(shape, k as u128);
                idx.iter().zip(s).map(|(&i, &s)| i as isize * s).sum::<isize>()
            }).collect()
        };
        let (cs, cst) = layout::coalesce(&shape, &st);
        prop_assert_eq!(cs.iter().product::<usize>(), shape.iter().product::<usize>());
        for (j, s) in st.iter().enumerate() {
            let want = walk(&shape, s);
            prop_assert_eq!(walk(&cs, &cst[j]), want.clone(), "operand {}", j);
            let (lo, hi) = layout::offset_range(&shape, s, offset);
            if want.is_empty() {
                prop_assert!(hi < lo);
            } else {
                prop_assert_eq!(lo, offset as isize + *want.iter().min().unwrap());
                prop_assert_eq!(hi, offset as isize + *want.iter().max().unwrap());
            }
            let consecutive = want.iter().enumerate().all(|(k, &o)| o == k as isize);
            prop_assert_eq!(layout::is_c_contiguous(&shape, s), consecutive, "{:?} {:?}", shape, s);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Regressions: the cases the fuzzers found, kept as plain tests
// ------------------------------------------------------------------------------------------

/// An empty view sliced or indexed along another axis moved its offset past the (empty)
/// storage, and reading it panicked (`range start index 1 out of range for slice of length 0`).
#[test]
fn empty_views_keep_their_offset_inside_the_storage() {
    let dev = Device::Cpu;
    let a = Array::<i64>::from_vec(vec![], &[0], &dev).unwrap();
    let v = a
        .reshape(&[0, 2])
        .unwrap()
        .slice_axis(-1, None, None, -isize::MAX)
        .unwrap();
    assert_eq!(v.shape(), &[0, 1]);
    assert!(v.to_vec().unwrap().is_empty());
    assert!(v.contiguous().unwrap().to_vec().unwrap().is_empty());
    let b = Array::<i64>::from_vec(vec![], &[2, 0], &dev).unwrap();
    let w = b.index_axis(0, 1).unwrap();
    assert_eq!(w.shape(), &[0]);
    assert!(w.to_vec().unwrap().is_empty());
    let s = b.slice_axis(0, Some(1), None, 1).unwrap();
    assert!(s.to_vec().unwrap().is_empty());
}

/// An empty layout is contiguous whatever its strides (the check returned false when a
/// trailing axis did not match before it reached the leading zero-length axis).
#[test]
fn empty_layouts_are_contiguous() {
    assert!(layout::is_c_contiguous(&[0, 2], &[0, 2]));
    assert!(layout::is_c_contiguous(&[0, 2], &[0, 0]));
    assert!(layout::is_c_contiguous(&[3, 0, 2], &[5, 7, -1]));
    assert!(!layout::is_c_contiguous(&[1, 2], &[0, 2]));
}

/// A zero-size array reshaped to a shape whose nonzero axes pass `isize::MAX` bytes is
/// refused as NumPy's "array is too big" (it passed `checked_numel`, which counts elements,
/// not bytes).
#[test]
fn reshape_refuses_shapes_too_big_for_the_element_type() {
    let a = Array::<i64>::from_vec(vec![], &[0], &Device::Cpu).unwrap();
    let e = a.reshape(&[1 << 62, 0]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let e = a.reshape(&[0, 1 << 60]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // one byte per element: 2^60 fits
    let b = Array::<u8>::from_vec(vec![], &[0], &Device::Cpu).unwrap();
    assert_eq!(b.reshape(&[0, 1 << 60]).unwrap().shape(), &[0, 1 << 60]);
}

/// The model's own boundary (found by a long campaign: the loop stopped at exactly 64 inside
/// positions and the bisection assumed the 65th inside): `slice_range` was right.
#[test]
fn slice_range_with_exactly_64_positions() {
    let step = 1isize << 58;
    assert_eq!(layout::slice_range(usize::MAX, None, None, step), (0, 64));
    assert_eq!(model_slice(usize::MAX, None, None, step), (0, 64));
}
