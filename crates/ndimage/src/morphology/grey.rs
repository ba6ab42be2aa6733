//! Grey morphology: `grey_erosion`, `grey_dilation`, `grey_opening`, `grey_closing`,
//! `morphological_gradient`, `morphological_laplace`, `white_tophat`, `black_tophat`.

use crate::cuda::{module_source, offsets_on, per_item, real_dtypes, specs, NdiShape};
use crate::filters::store::{c_cast, scast};
use crate::filters::{maximum_filter_as, minimum_filter_as, FilterOptions, Footprint};
use crate::structure::{
    c_strides_u, contig, deltas, norm_origin, offset_extent, step_index, unravel,
};
use crate::Mode;
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{Array, Backend, CudaDevice, DType, Device, Element, Numeric, Ordered, Result};
use rayon::prelude::*;

/// The grey morphology kernel (`grey.cu`) for an element type: `Spec::of(&[T])`.
pub(crate) static GREY: KernelModule = KernelModule {
    name: "ndimage_grey",
    source: |spec| Ok(module_source(include_str!("grey.cu"), spec.dtype(0)?)),
    options: &[],
    samples: || specs(real_dtypes().filter(|&d| d != DType::Bool)),
};

/// Options of the grey morphology functions (SciPy's keyword arguments). One of `size`,
/// `footprint` or `structure` must be given.
#[derive(Debug, Clone, Default)]
pub struct GreyOptions<'a> {
    /// Extent of a flat, rectangular footprint (one value: every axis).
    pub size: Option<Vec<usize>>,
    /// The footprint (true = part of it), of the input's rank.
    pub footprint: Option<&'a Array<bool>>,
    /// A non-flat structuring element: its values are subtracted (erosion) or added (dilation).
    /// The footprint defaults to all of it.
    pub structure: Option<&'a Array<f64>>,
    /// Boundary mode (default reflect).
    pub mode: Mode,
    /// Value outside the input for the constant modes.
    pub cval: f64,
    /// Placement of the footprint (empty: centred; one value: every axis).
    pub origin: Vec<i64>,
}

/// Footprint offsets (from the centre and origin) and structure values.
struct Foot {
    offs: Vec<Vec<i64>>,
    values: Option<Vec<f64>>,
}

fn footprint<T: Element>(
    op: &str,
    input: &Array<T>,
    o: &GreyOptions,
    dilate: bool,
) -> Result<Foot> {
    if T::DTYPE.is_complex() {
        return Err(make::dtype(op, T::DTYPE));
    }
    let nd = input.ndim();
    let (shape, mut mask, mut vals): (Vec<usize>, Vec<bool>, Option<Vec<f64>>) =
        match (o.footprint, o.structure, &o.size) {
            (None, None, None) => {
                return Err(make::arg(
                    op,
                    "size, footprint, or structure must be specified",
                ))
            }
            (Some(f), s, _) => {
                let fs = crate::structure::Structure::from_array(op, f, nd)?;
                let v = match s {
                    Some(s) => {
                        if s.shape() != f.shape() {
                            return Err(make::shape(op, "structure and footprint shapes differ"));
                        }
                        Some(s.to_vec()?)
                    }
                    None => None,
                };
                (fs.shape, fs.data, v)
            }
            (None, Some(s), _) => {
                if s.ndim() != nd {
                    return Err(make::shape(op, "structure and input must have equal rank"));
                }
                let v = s.to_vec()?;
                (s.shape().to_vec(), vec![true; v.len()], Some(v))
            }
            (None, None, Some(sz)) => {
                let sz = match sz.len() {
                    1 => vec![sz[0]; nd],
                    l if l == nd => sz.clone(),
                    l => return Err(make::arg(op, format!("size has {l} values for {nd} axes"))),
                };
                if sz.contains(&0) {
                    return Err(make::arg(op, "size must be at least 1"));
                }
                let n = cusci_core::array::layout::checked_numel(op, &sz)?;
                (sz, cusci_core::host::try_vec_filled(op, n, true)?, None)
            }
        };
    if !mask.iter().any(|&b| b) {
        // SciPy: ValueError("All-zero footprint is not supported.")
        return Err(make::arg(op, "All-zero footprint is not supported."));
    }
    let mut origin = norm_origin(op, &o.origin, &shape)?;
    if dilate {
        mask.reverse();
        if let Some(v) = vals.as_mut() {
            v.reverse();
        }
        for (o, &d) in origin.iter_mut().zip(&shape) {
            *o = if d % 2 == 0 { -*o - 1 } else { -*o };
        }
    }
    let st = c_strides_u(&shape);
    let mut offs = Vec::new();
    let mut sv = Vec::new();
    for (k, &b) in mask.iter().enumerate() {
        if b {
            offs.push(
                (0..nd)
                    .map(|d| ((k / st[d]) % shape[d]) as i64 - (shape[d] / 2) as i64 - origin[d])
                    .collect(),
            );
            if let Some(v) = &vals {
                sv.push(v[k]);
            }
        }
    }
    Ok(Foot {
        offs,
        values: vals.map(|_| sv),
    })
}

/// Whether SciPy filters this flat box (a size, or a footprint without a false element, and no
/// structure) separably, 1-D pass by pass with `cval` as a double and each pass stored into the
/// input's type: a different result from the n-D window only where `cval` is not a value of
/// that type in a constant mode. Then the sizes and SciPy's origins (reversed for a dilation).
fn separable_box<T: Element>(
    nd: usize,
    o: &GreyOptions,
    dilate: bool,
) -> Result<Option<(Vec<usize>, Vec<isize>)>> {
    let cv = o.cval;
    let constant = matches!(o.mode.for_filter(), Mode::Constant);
    if o.structure.is_some() || !constant || c_cast::<T>(cv).to_c64().re == cv {
        return Ok(None);
    }
    let size = match (o.footprint, &o.size) {
        (Some(f), _) => {
            if !f.to_vec()?.iter().all(|&b| b) || f.ndim() != nd {
                return Ok(None);
            }
            f.shape().to_vec()
        }
        (None, Some(sz)) if sz.len() == 1 => vec![sz[0]; nd],
        (None, Some(sz)) => sz.clone(),
        (None, None) => return Ok(None),
    };
    let origin = match o.origin.len() {
        0 => vec![0; nd],
        1 => vec![o.origin[0]; nd],
        _ => o.origin.clone(),
    };
    if size.len() != nd || origin.len() != nd || size.contains(&0) {
        return Ok(None); // the n-D path reports it
    }
    let origin = origin
        .iter()
        .zip(&size)
        .map(|(&g, &z)| {
            let g = g as isize;
            if !dilate {
                g
            } else if z % 2 == 0 {
                -g - 1
            } else {
                -g
            }
        })
        .collect();
    Ok(Some((size, origin)))
}

/// SciPy's `_tmp += (_type)ss` for an element `x` of type `T`: `ss` cast to `T` (C cast), then
/// added in `T` (integers wrap, f32 rounds), returned as f64.
fn add_in_type<T: Element>(x: f64, ss: f64) -> f64 {
    let c = |code| scast(ss, code);
    match T::DTYPE {
        DType::F32 => (x as f32 + c(1) as f32) as f64,
        DType::I32 => (x as i32).wrapping_add(c(2) as i32) as f64,
        DType::I64 => (x as i64).wrapping_add(c(3) as i64) as f64,
        DType::U8 | DType::Bool => ((x as i64 + c(4) as i64) & 255) as f64,
        _ => x + ss,
    }
}

fn min_or_max<T: Numeric + Ordered>(
    op: &str,
    input: &Array<T>,
    o: &GreyOptions,
    dilate: bool,
) -> Result<Array<T>> {
    if let Some((size, origin)) = separable_box::<T>(input.ndim(), o, dilate)? {
        let fo = FilterOptions {
            mode: o.mode,
            cval: o.cval,
            origin,
            axes: None,
            modes: Vec::new(),
        };
        let fp = Footprint::Size(size);
        return if dilate {
            maximum_filter_as::<T, T>(input, &fp, &fo)
        } else {
            minimum_filter_as::<T, T>(input, &fp, &fo)
        };
    }
    let f = footprint(op, input, o, dilate)?;
    let input = contig(input)?;
    let shape = input.shape().to_vec();
    let mode = o.mode.for_filter();
    match input.backend() {
        Backend::Host(h) => {
            let data = h.try_to_contiguous()?;
            let data = &data[..];
            let nd = shape.len();
            // SciPy's n-D window reads cval as the input's type
            let cv = c_cast::<T>(o.cval);
            let n = data.len();
            // the points' flat offsets and per axis their extent: an element whose every point
            // lies inside reads them at fixed offsets, the others map each point by the mode
            let (lo, hi) = offset_extent(&f.offs, nd);
            let lin = deltas(&shape, &f.offs);
            const CHUNK: usize = 4096;
            let mut out = vec![T::zero(); n];
            out.par_chunks_mut(CHUNK).enumerate().for_each_init(
                || vec![0i64; nd],
                |c, (ci, chunk)| {
                    unravel(ci * CHUNK, &shape, c);
                    for (j, slot) in chunk.iter_mut().enumerate() {
                        let i = ci * CHUNK + j;
                        let inside =
                            (0..nd).all(|d| c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d] as i64);
                        let point = |k: usize| -> T {
                            if inside {
                                return data[(i as i64 + lin[k]) as usize];
                            }
                            let of = &f.offs[k];
                            let mut q = 0usize;
                            for d in 0..nd {
                                match mode.map_index(c[d] + of[d], shape[d] as i64) {
                                    Some(m) => q = q * shape[d] + m as usize,
                                    None => return cv,
                                }
                            }
                            data[q]
                        };
                        *slot = match &f.values {
                            Some(sv) => {
                                // SciPy adds −s (erosion) or s (dilation): the first term
                                // in double, the others cast to the input's type and added
                                // there
                                let mut bestd = 0.0f64;
                                for (k, &s) in sv.iter().enumerate() {
                                    let xv = point(k).to_c64().re;
                                    let ss = if dilate { s } else { -s };
                                    let v = if k == 0 {
                                        xv + ss
                                    } else {
                                        add_in_type::<T>(xv, ss)
                                    };
                                    if k == 0 || (if dilate { v > bestd } else { v < bestd }) {
                                        bestd = v;
                                    }
                                }
                                c_cast::<T>(bestd)
                            }
                            // the first point, then strictly better ones
                            None if f.offs.is_empty() => data[i],
                            None if inside => {
                                let at = |l: i64| data[(i as i64 + l) as usize];
                                if dilate {
                                    lin[1..].iter().fold(at(lin[0]), |b, &l| {
                                        let x = at(l);
                                        if x > b {
                                            x
                                        } else {
                                            b
                                        }
                                    })
                                } else {
                                    lin[1..].iter().fold(at(lin[0]), |b, &l| {
                                        let x = at(l);
                                        if x < b {
                                            x
                                        } else {
                                            b
                                        }
                                    })
                                }
                            }
                            None => (1..f.offs.len()).fold(point(0), |b, k| {
                                let x = point(k);
                                if (dilate && x > b) || (!dilate && x < b) {
                                    x
                                } else {
                                    b
                                }
                            }),
                        };
                        step_index(c, &shape);
                    }
                },
            );
            Array::from_vec(out, &shape, &Device::Cpu)
        }
        Backend::Cuda(c) => grey_cuda(op, c.dev(), &input, &f, dilate, (mode, o.cval)),
    }
}

/// The GPU's flat or non-flat erosion / dilation of the contiguous `input` (`ndi_grey`).
fn grey_cuda<T: Element>(
    op: &str,
    cd: &CudaDevice,
    input: &Array<T>,
    f: &Foot,
    dilate: bool,
    (mode, cval): (Mode, f64),
) -> Result<Array<T>> {
    let shape = input.shape();
    let dev = input.device();
    let sh = NdiShape::new(op, shape)?;
    let mut out = Array::<T>::empty(shape, dev)?;
    let offs = offsets_on(dev, &f.offs, shape.len())?;
    let sv = match &f.values {
        Some(v) if !v.is_empty() => Some(Array::from_vec(v.clone(), &[v.len()], dev)?),
        _ => None,
    };
    let n = input.size();
    if n > 0 {
        let k = GREY.function(cd, &Spec::of(&[T::DTYPE]), "ndi_grey")?;
        cd.launch(&k, per_item(cd, n))
            .arg(input.dev_ptr()?)
            .arg(out.dev_ptr_mut()?)
            .arg(sh)
            .arg(offs.dev_ptr()?)
            .arg(sv.as_ref().map(|v| v.dev_ptr()).transpose()?)
            .arg(f.offs.len() as i32)
            .arg(dilate as i32)
            .arg(mode.code())
            .arg(cval)
            .run()?;
    }
    Ok(out)
}

/// `scipy.ndimage.grey_erosion`: the minimum over the footprint (minus the structure's values
/// when one is given), outside values by `mode`.
///
/// Element types as SciPy's C code: with a structure, the first footprint element's difference
/// is taken in double and the others' in the element type (the value cast to it first: integers
/// truncate and wrap, f32 rounds), the minimum stored with SciPy's C cast; `cval` is read as
/// the element type in the n-D window and as a double in a flat box, which SciPy filters axis by
/// axis storing each pass (`-2.0` becomes 254 in u8 either way, `1.5` is 1 in the window but
/// 1.5 before the store in the box).
///
/// # Errors
/// `InvalidArgument` when none of size/footprint/structure is given or an origin is out of range;
/// `ShapeMismatch` for a footprint or structure of another rank; `UnsupportedDType` for complex.
///
/// ```
/// use cusci_ndimage::{grey_erosion, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![5i32, 4, 3, 2, 1, 0, 7], &[7], &Device::Cpu).unwrap();
/// let e = grey_erosion(&a, &GreyOptions { size: Some(vec![3]), ..Default::default() }).unwrap();
/// assert_eq!(e.to_vec().unwrap(), vec![4, 3, 2, 1, 0, 0, 0]);
/// ```
pub fn grey_erosion<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    min_or_max("grey_erosion", input, opts, false)
}

/// `scipy.ndimage.grey_dilation`: the maximum over the reflected footprint (plus the reflected
/// structure's values), SciPy's origin convention. Errors and element types as
/// [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{grey_dilation, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 1.0, 0.0, 0.0], &[4], &Device::Cpu).unwrap();
/// let d = grey_dilation(&a, &GreyOptions { size: Some(vec![3]), ..Default::default() }).unwrap();
/// assert_eq!(d.to_vec().unwrap(), vec![1.0, 1.0, 1.0, 0.0]);
/// ```
pub fn grey_dilation<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    min_or_max("grey_dilation", input, opts, true)
}

/// `scipy.ndimage.grey_opening`: erosion then dilation. Errors as [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{grey_opening, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 5.0, 0.0, 0.0], &[4], &Device::Cpu).unwrap();
/// let o = grey_opening(&a, &GreyOptions { size: Some(vec![2]), ..Default::default() }).unwrap();
/// assert_eq!(o.to_vec().unwrap(), vec![0.0; 4]);
/// ```
pub fn grey_opening<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let e = grey_erosion(input, opts)?;
    grey_dilation(&e, opts)
}

/// `scipy.ndimage.grey_closing`: dilation then erosion. Errors as [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{grey_closing, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![5.0f64, 0.0, 5.0, 5.0], &[4], &Device::Cpu).unwrap();
/// let c = grey_closing(&a, &GreyOptions { size: Some(vec![2]), ..Default::default() }).unwrap();
/// assert_eq!(c.to_vec().unwrap(), vec![5.0; 4]);
/// ```
pub fn grey_closing<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let d = grey_dilation(input, opts)?;
    grey_erosion(&d, opts)
}

/// `scipy.ndimage.morphological_gradient`: dilation − erosion. Errors as [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{morphological_gradient, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 0.0, 1.0, 1.0], &[4], &Device::Cpu).unwrap();
/// let g = morphological_gradient(&a, &GreyOptions { size: Some(vec![3]), ..Default::default() }).unwrap();
/// assert_eq!(g.to_vec().unwrap(), vec![0.0, 1.0, 1.0, 0.0]);
/// ```
pub fn morphological_gradient<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let d = grey_dilation(input, opts)?;
    let e = grey_erosion(input, opts)?;
    d.sub(&e)
}

/// `scipy.ndimage.morphological_laplace`: dilation + erosion − 2·input. Errors as
/// [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{morphological_laplace, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 0.0, 1.0, 1.0], &[4], &Device::Cpu).unwrap();
/// let l = morphological_laplace(&a, &GreyOptions { size: Some(vec![3]), ..Default::default() }).unwrap();
/// assert_eq!(l.to_vec().unwrap(), vec![0.0, 1.0, -1.0, 0.0]);
/// ```
pub fn morphological_laplace<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let d = grey_dilation(input, opts)?;
    let e = grey_erosion(input, opts)?;
    // SciPy's order: (d + e) − x − x, in the input's type
    d.add(&e)?.sub(input)?.sub(input)
}

/// `scipy.ndimage.white_tophat`: input − opening. Errors as [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{white_tophat, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![0.0f64, 5.0, 0.0, 0.0], &[4], &Device::Cpu).unwrap();
/// let w = white_tophat(&a, &GreyOptions { size: Some(vec![2]), ..Default::default() }).unwrap();
/// assert_eq!(w.to_vec().unwrap(), vec![0.0, 5.0, 0.0, 0.0]);
/// ```
pub fn white_tophat<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let o = grey_opening(input, opts)?;
    input.sub(&o)
}

/// `scipy.ndimage.black_tophat`: closing − input. Errors as [`grey_erosion`].
///
/// ```
/// use cusci_ndimage::{black_tophat, GreyOptions, Array, Device};
/// let a = Array::from_vec(vec![5.0f64, 0.0, 5.0, 5.0], &[4], &Device::Cpu).unwrap();
/// let b = black_tophat(&a, &GreyOptions { size: Some(vec![2]), ..Default::default() }).unwrap();
/// assert_eq!(b.to_vec().unwrap(), vec![0.0, 5.0, 0.0, 0.0]);
/// ```
pub fn black_tophat<T: Numeric + Ordered>(
    input: &Array<T>,
    opts: &GreyOptions,
) -> Result<Array<T>> {
    let c = grey_closing(input, opts)?;
    c.sub(input)
}
