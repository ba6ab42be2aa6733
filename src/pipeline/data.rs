//! The values that flow between stages.

use crate::core::npy::DynArray;
use crate::{Array, Result};
use std::fmt;

/// The kind of a stage's result, checked between stages before anything runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Real floating-point arrays (the compute dtype).
    Real,
    /// Complex arrays.
    Complex,
    /// Boolean arrays (a threshold's result).
    Mask,
    /// Label arrays (`i32`, 0 for the background) with their counts.
    Labels,
    /// A table per file (peaks, per-label measurements).
    Table,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Real => "real array",
            Kind::Complex => "complex array",
            Kind::Mask => "boolean mask",
            Kind::Labels => "label array",
            Kind::Table => "table",
        })
    }
}

/// A table of numbers (one per file): named columns, rows of `f64`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// The column names.
    pub columns: Vec<String>,
    /// The rows.
    pub rows: Vec<Vec<f64>>,
}

impl Table {
    /// The table as CSV text (header line, then one line per row).
    pub fn to_csv(&self) -> String {
        let mut s = self.columns.join(",");
        s.push('\n');
        for r in &self.rows {
            let line: Vec<String> = r.iter().map(|v| fmt_num(*v)).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
        s
    }

    /// The table as JSON: `{"columns": [...], "rows": [[...], ...]}` (NaN as `null`).
    pub fn to_json(&self) -> String {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                serde_json::Value::Array(
                    r.iter()
                        .map(|v| {
                            serde_json::Number::from_f64(*v)
                                .map(serde_json::Value::Number)
                                .unwrap_or(serde_json::Value::Null)
                        })
                        .collect(),
                )
            })
            .collect();
        let v = serde_json::json!({ "columns": self.columns, "rows": rows });
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A batch's value at one point of the chain.
#[derive(Clone, Debug)]
pub enum Data {
    /// One array with a leading batch axis (one entry per file).
    Stacked(DynArray),
    /// One array per file.
    Parts(Vec<DynArray>),
    /// One label array and its number of labels per file.
    Labels(Vec<(Array<i32>, usize)>),
    /// One table per file.
    Tables(Vec<Table>),
}

impl Data {
    /// The number of files.
    pub fn len(&self) -> usize {
        match self {
            Data::Stacked(a) => a.shape().first().copied().unwrap_or(0),
            Data::Parts(v) => v.len(),
            Data::Labels(v) => v.len(),
            Data::Tables(v) => v.len(),
        }
    }

    /// Whether there is no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One array per file (views of a stacked array, no copy).
    ///
    /// # Errors
    /// Tables; the views' errors.
    pub fn into_parts(self) -> Result<Vec<DynArray>> {
        match self {
            Data::Stacked(a) => {
                let n = a.shape()[0];
                (0..n).map(|i| index0(&a, i)).collect()
            }
            Data::Parts(v) => Ok(v),
            Data::Labels(v) => Ok(v.into_iter().map(|(l, _)| DynArray::from(l)).collect()),
            Data::Tables(_) => Err(crate::core::error::make::arg(
                "pipeline",
                "a table is not an array",
            )),
        }
    }

    /// File `i`'s array (tables: `None`).
    pub fn part(&self, i: usize) -> Result<Option<DynArray>> {
        Ok(match self {
            Data::Stacked(a) => Some(index0(a, i)?),
            Data::Parts(v) => Some(v[i].clone()),
            Data::Labels(v) => Some(DynArray::from(v[i].0.clone())),
            Data::Tables(_) => None,
        })
    }

    /// File `i`'s table (arrays: `None`).
    pub fn table(&self, i: usize) -> Option<&Table> {
        match self {
            Data::Tables(v) => Some(&v[i]),
            _ => None,
        }
    }

    /// File `i`'s shape and bytes.
    pub fn file_shape(&self, i: usize) -> (Vec<usize>, usize) {
        match self {
            Data::Stacked(a) => {
                let s = a.shape()[1..].to_vec();
                let n: usize = s.iter().product();
                (s, n * a.dtype().size())
            }
            Data::Parts(v) => (v[i].shape().to_vec(), v[i].size() * v[i].dtype().size()),
            Data::Labels(v) => (v[i].0.shape().to_vec(), v[i].0.size() * 4),
            Data::Tables(v) => (
                vec![v[i].rows.len(), v[i].columns.len()],
                v[i].rows.len() * v[i].columns.len() * 8,
            ),
        }
    }
}

/// `a[i]` along the leading axis, as a [`DynArray`].
pub(crate) fn index0(a: &DynArray, i: usize) -> Result<DynArray> {
    Ok(match a {
        DynArray::F32(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::F64(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::C32(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::C64(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::I32(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::I64(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::U8(x) => DynArray::from(x.index_axis(0, i as isize)?),
        DynArray::Bool(x) => DynArray::from(x.index_axis(0, i as isize)?),
    })
}

/// The array's values as `f64` on the host (complex: interleaved re, im), for comparisons.
pub fn host_f64(a: &DynArray) -> Result<Vec<f64>> {
    Ok(match a {
        DynArray::F32(x) => x.to_vec()?.into_iter().map(f64::from).collect(),
        DynArray::F64(x) => x.to_vec()?,
        DynArray::C32(x) => x
            .to_vec()?
            .into_iter()
            .flat_map(|c| [c.re as f64, c.im as f64])
            .collect(),
        DynArray::C64(x) => x.to_vec()?.into_iter().flat_map(|c| [c.re, c.im]).collect(),
        DynArray::I32(x) => x.to_vec()?.into_iter().map(f64::from).collect(),
        DynArray::I64(x) => x.to_vec()?.into_iter().map(|v| v as f64).collect(),
        DynArray::U8(x) => x.to_vec()?.into_iter().map(f64::from).collect(),
        DynArray::Bool(x) => x
            .to_vec()?
            .into_iter()
            .map(|b| if b { 1.0 } else { 0.0 })
            .collect(),
    })
}
