//! The errors of the sparse LU (front end, symbolic analysis and both devices).

use cusci_core::error::make;
use cusci_core::Error;

/// How a column failed (the flag slots of `lu_factor`).
pub(crate) const FAIL_SINGULAR: usize = 1;
pub(crate) const FAIL_OVERFLOW: usize = 2;
pub(crate) const FAIL_PIVOTAL: usize = 3;

/// An error for a broken invariant of the factorisation (a bug, never a wrong answer).
pub(crate) fn internal(op: &str, what: String) -> Error {
    make::arg(op, format!("internal: {what} (a bug: please report it)"))
}

pub(crate) fn singular(op: &str, index: usize) -> Error {
    Error::Singular {
        op: op.into(),
        index,
    }
}

pub(crate) fn failure(op: &str, kind: usize, j: usize) -> Error {
    match kind {
        FAIL_SINGULAR => singular(op, j),
        FAIL_OVERFLOW => internal(
            op,
            format!("L(:, {j}) has more entries than its static bound"),
        ),
        _ => internal(
            op,
            format!("column {j} met a row pivotal for a column outside its dependencies"),
        ),
    }
}
