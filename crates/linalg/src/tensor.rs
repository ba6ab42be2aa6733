//! `einsum` for the common contraction patterns, `tensorsolve` and `tensorinv`, all mapped onto
//! the batched matrix product, `solve` and `inv` (so they run on the arrays' device).

use crate::util::prod;
use crate::{inv, matmul, solve, Scalar};
use cusci_core::error::make;
use cusci_core::{Array, Result};

fn shp(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// One operand with its subscript letters (one per axis).
struct Term<T: Scalar> {
    a: Array<T>,
    s: Vec<char>,
}

impl<T: Scalar> Term<T> {
    /// Takes the diagonal of every letter that appears twice or more (`ii -> i`).
    fn diagonals(mut self, op: &str) -> Result<Term<T>> {
        loop {
            let Some((i, j)) = (0..self.s.len()).find_map(|i| {
                (i + 1..self.s.len())
                    .find(|&j| self.s[j] == self.s[i])
                    .map(|j| (i, j))
            }) else {
                return Ok(self);
            };
            let (ni, nj) = (self.a.shape()[i], self.a.shape()[j]);
            if ni != nj {
                return Err(make::shape(
                    op,
                    format!(
                        "subscript '{}' has sizes {ni} and {nj} in one operand",
                        self.s[i]
                    ),
                ));
            }
            // move the pair to the end, multiply by the identity and sum the last axis
            let nd = self.s.len();
            let mut perm: Vec<isize> = (0..nd)
                .filter(|&k| k != i && k != j)
                .map(|k| k as isize)
                .collect();
            perm.push(i as isize);
            perm.push(j as isize);
            let eye = crate::util::eye::<T>(ni, self.a.device())?;
            let d = self.a.permute(&perm)?.mul(&eye)?.sum_axes(&[-1])?;
            let c = self.s[i];
            let mut s: Vec<char> = (0..nd)
                .filter(|&k| k != i && k != j)
                .map(|k| self.s[k])
                .collect();
            s.push(c);
            self = Term { a: d, s };
        }
    }

    /// Sums the axes whose letters `keep` rejects.
    fn sum_except(self, keep: impl Fn(char) -> bool) -> Result<Term<T>> {
        let drop: Vec<isize> = (0..self.s.len())
            .filter(|&k| !keep(self.s[k]))
            .map(|k| k as isize)
            .collect();
        if drop.is_empty() {
            return Ok(self);
        }
        let s = self.s.iter().copied().filter(|&c| keep(c)).collect();
        Ok(Term {
            a: self.a.sum_axes(&drop)?,
            s,
        })
    }

    fn size_of(&self, c: char) -> usize {
        self.s
            .iter()
            .position(|&x| x == c)
            .map(|k| self.a.shape()[k])
            .unwrap_or(1)
    }

    /// The operand with its axes in the order of `order` (letters it has), contiguous.
    fn arranged(&self, order: &[char]) -> Result<Array<T>> {
        let perm: Vec<isize> = order
            .iter()
            .map(|c| self.s.iter().position(|x| x == c).unwrap_or(0) as isize)
            .collect();
        self.a.permute(&perm)?.contiguous()
    }
}

/// Einstein summation over one or two operands (NumPy's `einsum` without `optimize` or `out`):
/// `"ij,jk->ik"` (matrix product), `"bij,bjk->bik"` (batched), `"ii->"`/`"ii"` (trace),
/// `"ii->i"` (diagonal), `"i,j->ij"` (outer), `"ij->ji"` (transpose), `"ij->"`/`"ij->j"` (sums),
/// `"i,i->"` (inner), `"ij,j->i"`, and any other pattern of those kinds. Without `->` the output
/// has the letters that appear once, in alphabetical order (NumPy's implicit mode). `...` stands
/// for the axes no letter names (`"...ij,...jk->...ik"`), broadcast between the operands as
/// NumPy does; without `->` they lead the output, and an explicit output must then name them.
///
/// Two operands are contracted with one batched matrix product (letters shared by both operands
/// and the output are batch axes, letters shared by both but not in the output are summed), so the
/// work runs on cuBLAS on a GPU; a letter that only one operand has and the output does not is
/// summed first, a repeated letter in one operand takes the diagonal.
///
/// # Errors
/// `InvalidArgument` for a malformed subscript string (two `...` in one term, `...` axes that an
/// explicit output drops), more than two operands, a letter
/// count that differs from an operand's dimensions, or an output letter that no input has;
/// `ShapeMismatch` when one letter has different sizes.
///
/// ```
/// use cusci_linalg::{einsum, Array, Device};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(einsum("ii->", &[&a])?.item()?, 5.0);
/// assert_eq!(einsum("ij,jk->ik", &[&a, &a])?.to_vec()?, vec![7.0, 10.0, 15.0, 22.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn einsum<T: Scalar>(subscripts: &str, operands: &[&Array<T>]) -> Result<Array<T>> {
    let op = "einsum";
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    if spec.contains("...") {
        let (spec, arrays) = expand_ellipsis(op, &spec, operands)?;
        let refs: Vec<&Array<T>> = arrays.iter().collect();
        return einsum(&spec, &refs);
    }
    let (lhs, out) = match spec.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (spec.clone(), None),
    };
    let ins: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    if ins.len() != operands.len() {
        return Err(make::arg(
            op,
            format!(
                "{} operands for {} subscript terms",
                operands.len(),
                ins.len()
            ),
        ));
    }
    if operands.is_empty() || operands.len() > 2 {
        return Err(make::arg(op, "one or two operands are supported"));
    }
    if let Some(&b) = operands.get(1) {
        crate::util::same_device(op, operands[0], b)?;
    }
    for (t, a) in ins.iter().zip(operands) {
        if let Some(c) = t.iter().find(|c| !c.is_ascii_alphabetic()) {
            return Err(make::arg(op, format!("invalid subscript '{c}'")));
        }
        if t.len() != a.ndim() {
            return Err(make::arg(
                op,
                format!(
                    "subscripts '{}' for an operand of {} dimensions",
                    t.iter().collect::<String>(),
                    a.ndim()
                ),
            ));
        }
    }
    let count = |c: char| ins.iter().flatten().filter(|&&x| x == c).count();
    let out: Vec<char> = match out {
        Some(o) => o.chars().collect(),
        None => {
            let mut v: Vec<char> = ins
                .iter()
                .flatten()
                .copied()
                .filter(|&c| count(c) == 1)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    for (k, &c) in out.iter().enumerate() {
        if !c.is_ascii_alphabetic() || out[..k].contains(&c) {
            return Err(make::arg(op, format!("invalid output subscript '{c}'")));
        }
        if count(c) == 0 {
            return Err(make::arg(
                op,
                format!("output subscript '{c}' is in no input"),
            ));
        }
    }
    let mut terms = Vec::new();
    for (t, a) in ins.iter().zip(operands) {
        terms.push(
            Term {
                a: (*a).clone(),
                s: t.clone(),
            }
            .diagonals(op)?,
        );
    }
    if terms.len() == 1 {
        let t = terms.pop().unwrap_or_else(|| unreachable!());
        let t = t.sum_except(|c| out.contains(&c))?;
        return t.arranged(&out);
    }
    let tb = terms.pop().unwrap_or_else(|| unreachable!());
    let ta = terms.pop().unwrap_or_else(|| unreachable!());
    // letters that only one operand has and the output lacks: summed first
    let ta = ta.sum_except(|c| out.contains(&c) || tb.s.contains(&c))?;
    let tb = tb.sum_except(|c| out.contains(&c) || ta.s.contains(&c))?;
    for &c in &ta.s {
        if tb.s.contains(&c) && ta.size_of(c) != tb.size_of(c) {
            return Err(make::shape(
                op,
                format!(
                    "subscript '{c}' has size {} and {}",
                    ta.size_of(c),
                    tb.size_of(c)
                ),
            ));
        }
    }
    let batch: Vec<char> = out
        .iter()
        .copied()
        .filter(|c| ta.s.contains(c) && tb.s.contains(c))
        .collect();
    let free_a: Vec<char> = out
        .iter()
        .copied()
        .filter(|c| ta.s.contains(c) && !tb.s.contains(c))
        .collect();
    let free_b: Vec<char> = out
        .iter()
        .copied()
        .filter(|c| tb.s.contains(c) && !ta.s.contains(c))
        .collect();
    let contr: Vec<char> =
        ta.s.iter()
            .copied()
            .filter(|c| tb.s.contains(c) && !out.contains(c))
            .collect();
    let sizes = |t: &Term<T>, cs: &[char]| cs.iter().map(|&c| t.size_of(c)).collect::<Vec<_>>();
    let (bs, ms, ns, ks) = (
        sizes(&ta, &batch),
        sizes(&ta, &free_a),
        sizes(&tb, &free_b),
        sizes(&ta, &contr),
    );
    let (nb, m, n, k) = (prod(&bs), prod(&ms), prod(&ns), prod(&ks));
    let a3 = ta
        .arranged(&[batch.clone(), free_a.clone(), contr.clone()].concat())?
        .reshape(&shp(&[nb, m, k]))?;
    let b3 = tb
        .arranged(&[batch.clone(), contr.clone(), free_b.clone()].concat())?
        .reshape(&shp(&[nb, k, n]))?;
    let c = matmul(&a3, &b3)?;
    let full: Vec<usize> = [bs, ms, ns].concat();
    let letters: Vec<char> = [batch, free_a, free_b].concat();
    let res = Term {
        a: c.reshape(&shp(&full))?,
        s: letters,
    };
    res.arranged(&out)
}

/// Solves the tensor equation `tensordot(a, x, x.ndim) = b` for `x` (NumPy's
/// `linalg.tensorsolve`): `a`'s leading axes match `b`'s shape, its trailing axes give `x`'s
/// shape, and the two products must be equal. `axes` (NumPy's `axes`) are axes of `a` moved to
/// the end first.
///
/// # Errors
/// `ShapeMismatch` when `a`'s leading axes are not `b`'s shape or the products differ;
/// `InvalidArgument` for an axis out of range; `Singular` as [`solve`].
///
/// ```
/// use cusci_linalg::{tensorsolve, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 4.0], &[2, 2], &Device::Cpu)?;
/// let b = Array::from_vec(vec![2.0f64, 8.0], &[2], &Device::Cpu)?;
/// assert_eq!(tensorsolve(&a, &b, None)?.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn tensorsolve<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    axes: Option<&[isize]>,
) -> Result<Array<T>> {
    let op = "tensorsolve";
    crate::util::same_device(op, a, b)?;
    let an = a.ndim();
    let mut a = a.clone();
    if let Some(ax) = axes {
        let mut all: Vec<usize> = (0..an).collect();
        for &k in ax {
            let kk = if k < 0 { k + an as isize } else { k };
            if kk < 0 || kk as usize >= an {
                return Err(make::arg(op, format!("axis {k} out of range")));
            }
            let kk = kk as usize;
            all.retain(|&x| x != kk);
            all.push(kk);
        }
        a = a.permute(&shp(&all))?;
    }
    let bn = b.ndim();
    if bn > an || a.shape()[..bn] != *b.shape() {
        return Err(make::shape(
            op,
            format!("a is {:?} but b is {:?}", a.shape(), b.shape()),
        ));
    }
    let old = a.shape()[bn..].to_vec();
    let p = prod(&old);
    if prod(&a.shape()[..bn]) != p {
        return Err(make::shape(
            op,
            format!(
                "the leading axes of a ({:?}) and the trailing ones ({old:?}) differ in size",
                &a.shape()[..bn]
            ),
        ));
    }
    let a2 = a.contiguous()?.reshape(&[p as isize, p as isize])?;
    let b1 = b.contiguous()?.reshape(&[p as isize])?;
    solve(&a2, &b1)?.reshape(&shp(&old))
}

/// The inverse of a tensor for [`tensordot`](crate::tensordot) over its first `ind` axes
/// (NumPy's `linalg.tensorinv`): the result has shape `a.shape[ind:] + a.shape[:ind]`.
///
/// # Errors
/// `InvalidArgument` for `ind == 0`; `ShapeMismatch` when the products of the two groups of axes
/// differ; `Singular` as [`inv`].
///
/// ```
/// use cusci_linalg::{tensorinv, Array, Device};
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 4.0], &[2, 2], &Device::Cpu)?;
/// assert_eq!(tensorinv(&a, 1)?.to_vec()?, vec![0.5, 0.0, 0.0, 0.25]);
/// # Ok::<(), cusci_linalg::Error>(())
/// ```
pub fn tensorinv<T: Scalar>(a: &Array<T>, ind: usize) -> Result<Array<T>> {
    let op = "tensorinv";
    if ind == 0 || ind > a.ndim() {
        return Err(make::arg(
            op,
            format!("ind must be in 1..={}, got {ind}", a.ndim()),
        ));
    }
    let (head, tail) = a.shape().split_at(ind);
    let (p, q) = (prod(head), prod(tail));
    if p != q {
        return Err(make::shape(
            op,
            format!(
                "a is {:?}: {p} and {q} elements in the two groups",
                a.shape()
            ),
        ));
    }
    let inv_shape = [tail, head].concat();
    let m = a.contiguous()?.reshape(&[p as isize, q as isize])?;
    inv(&m)?.reshape(&shp(&inv_shape))
}

/// Rewrites NumPy's `...` into letters the subscripts do not use (the same letters for the
/// right-aligned ellipsis axes of every operand) and broadcasts the operands' ellipsis axes
/// against each other (size-1 axes become stride-0 views).
fn expand_ellipsis<T: Scalar>(
    op: &str,
    spec: &str,
    operands: &[&Array<T>],
) -> Result<(String, Vec<Array<T>>)> {
    let (lhs, out) = match spec.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (spec, None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(make::arg(
            op,
            format!(
                "{} operands for {} subscript terms",
                operands.len(),
                terms.len()
            ),
        ));
    }
    let used: Vec<char> = spec.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let free: Vec<char> = ('A'..='Z')
        .chain('a'..='z')
        .filter(|c| !used.contains(c))
        .collect();
    // (letters before the ellipsis, ellipsis axes) per operand
    let mut ell: Vec<Option<(usize, usize)>> = Vec::new();
    for (t, a) in terms.iter().zip(operands) {
        match t.matches("...").count() {
            0 => ell.push(None),
            1 => {
                let pos = t.find("...").unwrap_or(0);
                let before = t[..pos].chars().count();
                let named = t.chars().filter(|&c| c != '.').count();
                if named > a.ndim() || t.chars().filter(|&c| c == '.').count() != 3 {
                    return Err(make::arg(
                        op,
                        format!("subscripts '{t}' for an operand of {} dimensions", a.ndim()),
                    ));
                }
                ell.push(Some((before, a.ndim() - named)));
            }
            _ => return Err(make::arg(op, format!("more than one '...' in '{t}'"))),
        }
    }
    let kmax = ell.iter().flatten().map(|e| e.1).max().unwrap_or(0);
    if kmax > free.len() {
        return Err(make::arg(op, "too many axes under '...'"));
    }
    let letters = &free[..kmax];
    // the broadcast shape of the ellipsis axes (right-aligned)
    let mut bshape = vec![1usize; kmax];
    for (e, a) in ell.iter().zip(operands) {
        if let Some((before, k)) = *e {
            for (j, &d) in a.shape()[before..before + k].iter().enumerate() {
                let slot = &mut bshape[kmax - k + j];
                if *slot == 1 {
                    *slot = d;
                } else if d != 1 && d != *slot {
                    return Err(make::shape(
                        op,
                        format!("'...' axes of sizes {d} and {} do not broadcast", *slot),
                    ));
                }
            }
        }
    }
    let mut arrays = Vec::new();
    let mut new_terms = Vec::new();
    for ((t, e), a) in terms.iter().zip(&ell).zip(operands) {
        match *e {
            None => {
                arrays.push((*a).clone());
                new_terms.push(t.to_string());
            }
            Some((before, k)) => {
                let mut target = a.shape()[..before].to_vec();
                target.extend_from_slice(&bshape[kmax - k..]);
                target.extend_from_slice(&a.shape()[before + k..]);
                arrays.push(if target == a.shape() {
                    (*a).clone()
                } else {
                    a.broadcast_to(&target)?
                });
                let mine: String = letters[kmax - k..].iter().collect();
                new_terms.push(t.replace("...", &mine));
            }
        }
    }
    let all: String = letters.iter().collect();
    let out = match out {
        Some(o) if o.contains("...") => o.replacen("...", &all, 1),
        Some(o) => {
            if kmax > 0 {
                return Err(make::arg(
                    op,
                    "the output drops the '...' axes (name them with '...' in the output)",
                ));
            }
            o.to_string()
        }
        None => {
            // NumPy's implicit output: the ellipsis axes, then the letters used once, sorted
            let named: Vec<char> = terms
                .iter()
                .flat_map(|t| t.chars())
                .filter(|c| c.is_ascii_alphabetic())
                .collect();
            let mut once: Vec<char> = named
                .iter()
                .copied()
                .filter(|c| named.iter().filter(|x| *x == c).count() == 1)
                .collect();
            once.sort_unstable();
            format!("{all}{}", once.iter().collect::<String>())
        }
    };
    Ok((format!("{}->{out}", new_terms.join(",")), arrays))
}
