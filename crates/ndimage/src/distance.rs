//! Distance transforms: `distance_transform_edt` (exact, separable), `distance_transform_cdt`
//! (chamfer) and `distance_transform_bf` (brute force).

use crate::cuda::{
    linear, module_source, offsets_on, per_item, real_dtypes, specs, NdiShape, MAXD,
};
use crate::morphology::binary::{cpu_iterate, Steps};
use crate::structure::{c_strides_u, contig, real_only, Structure};
use cusci_core::cuda::launch::{KernelModule, Spec};
use cusci_core::error::make;
use cusci_core::{
    Array, Backend, CudaDevice, DType, Device, Element, Function, KernelParam, LaunchConfig, Result,
};
use rayon::prelude::*;

/// The distance transform kernels (`distance.cu`) for an input element type: `Spec::of(&[T])`.
pub(crate) static DISTANCE: KernelModule = KernelModule {
    name: "ndimage_distance",
    source: |spec| Ok(module_source(include_str!("distance.cu"), spec.dtype(0)?)),
    options: &[],
    samples: || specs(real_dtypes()),
};

/// The distance kernel `name` for input element type `dtype`.
fn function(cd: &CudaDevice, dtype: DType, name: &str) -> Result<Function> {
    DISTANCE.function(cd, &Spec::of(&[dtype]), name)
}

/// The sampling per axis by value (`NdiSampling` of distance.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct NdiSampling {
    s: [f64; MAXD],
}

// SAFETY: plain data, the layout of distance.cu's `struct NdiSampling { double s[NDI_MAXD]; }`.
unsafe impl KernelParam for NdiSampling {}

/// Options of [`distance_transform_edt`] and [`distance_transform_bf`].
#[derive(Debug, Clone)]
pub struct DistanceOptions {
    /// Spacing of the elements along each axis (one value: every axis). Default 1.
    pub sampling: Option<Vec<f64>>,
    /// Compute the distances (default true).
    pub return_distances: bool,
    /// Compute the indices of the nearest background element (default false).
    pub return_indices: bool,
}

impl Default for DistanceOptions {
    fn default() -> Self {
        DistanceOptions {
            sampling: None,
            return_distances: true,
            return_indices: false,
        }
    }
}

/// What a distance transform returns: the distances and/or, for each element, the coordinates of
/// its nearest background element (`i32`, shape `[ndim, ...input shape]`, SciPy's layout).
pub type DistanceResult<D> = (Option<Array<D>>, Option<Array<i32>>);

fn sampling(op: &str, s: &Option<Vec<f64>>, nd: usize) -> Result<Vec<f64>> {
    let v = match s {
        None => vec![1.0; nd],
        Some(v) if v.len() == 1 => vec![v[0]; nd],
        Some(v) if v.len() == nd => v.clone(),
        Some(v) => {
            return Err(make::arg(
                op,
                format!("sampling has {} values for an input of rank {nd}", v.len()),
            ))
        }
    };
    if v.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(make::arg(op, "sampling values must be positive and finite"));
    }
    Ok(v)
}

fn check_returns(op: &str, d: bool, i: bool) -> Result<()> {
    if !d && !i {
        return Err(make::arg(
            op,
            "at least one of return_distances/return_indices must be true",
        ));
    }
    Ok(())
}

fn idx_shape(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![shape.len()];
    s.extend_from_slice(shape);
    s
}

/// Writes through a raw pointer from parallel workers that touch disjoint elements.
#[derive(Clone, Copy)]
struct SyncPtr<T>(*mut T);
// SAFETY: used only where every element is written by one worker.
unsafe impl<T> Sync for SyncPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Send for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    /// SAFETY: `i` in bounds and written by this worker only.
    unsafe fn write(self, i: usize, v: T) {
        unsafe { *self.0.add(i) = v }
    }
}

/// One exact lower-envelope pass along a line (CPU): `g` the input values, returns (value, argmin).
fn fh_line(
    g: &[f64],
    w: f64,
    v: &mut Vec<usize>,
    z: &mut Vec<f64>,
    out: &mut [(f64, usize)],
) -> bool {
    let m = g.len();
    v.clear();
    z.clear();
    z.push(f64::NEG_INFINITY);
    for q in 0..m {
        if g[q].is_infinite() {
            continue;
        }
        if v.is_empty() {
            v.push(q);
            z.push(f64::INFINITY);
            continue;
        }
        let qf = q as f64;
        let mut s;
        loop {
            // v holds at least one position (only a second one is ever popped)
            let k = v.len() - 1;
            let vk = v[k];
            let vf = vk as f64;
            s = ((g[q] + w * qf * qf) - (g[vk] + w * vf * vf)) / (2.0 * w * (qf - vf));
            if k > 0 && s <= z[k] {
                v.pop();
                z.pop();
            } else {
                break;
            }
        }
        let k = v.len() - 1;
        z[k + 1] = s;
        v.push(q);
        z.push(f64::INFINITY);
    }
    if v.is_empty() {
        return false;
    }
    let mut j = 0;
    for (p, o) in out.iter_mut().enumerate() {
        while z[j + 1] < p as f64 {
            j += 1;
        }
        let q = v[j];
        let d = p as f64 - q as f64;
        *o = (w * d * d + g[q], q);
    }
    true
}

/// `scipy.ndimage.distance_transform_edt(input, sampling, return_distances, return_indices)`:
/// for every nonzero element, the Euclidean distance (f64) to the nearest zero element, with
/// `sampling` the spacing along each axis; zero elements get 0.
///
/// Exact: one lower-envelope pass (Felzenszwalb–Huttenlocher) per axis finds each element's
/// nearest zero element; the distance is then computed from the coordinates, as SciPy does. On
/// the GPU each line of up to ~13600 elements is one warp with its envelope in shared memory (longer
/// lines: one thread per line), with the CPU's roundings step by step (no FMA), so both devices
/// give bit-identical distances and indices. Where several zero elements are equally near, the
/// index chosen may differ from SciPy's (the distance does not). Without any zero element the
/// result follows SciPy (indices `(−1, 0, …)`).
///
/// # Errors
/// `UnsupportedDType` (complex); `InvalidArgument` when `sampling` has the wrong length or a
/// non-positive value, or when both returns are false.
///
/// ```
/// use cusci_ndimage::{distance_transform_edt, DistanceOptions, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 1, 1, 1], &[5], &Device::Cpu).unwrap();
/// let (d, _) = distance_transform_edt(&a, &DistanceOptions::default()).unwrap();
/// assert_eq!(d.unwrap().to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn distance_transform_edt<T: Element>(
    input: &Array<T>,
    opts: &DistanceOptions,
) -> Result<DistanceResult<f64>> {
    const OP: &str = "distance_transform_edt";
    real_only::<T>(OP)?;
    check_returns(OP, opts.return_distances, opts.return_indices)?;
    let shape = input.shape().to_vec();
    let nd = shape.len();
    let smp = sampling(OP, &opts.sampling, nd)?;
    let input = contig(input)?;
    match input.backend() {
        Backend::Host(h) => edt_cpu(&h.try_to_contiguous()?, &shape, &smp, opts),
        Backend::Cuda(c) => edt_cuda(c.dev(), &input, &shape, &smp, opts),
    }
}

fn edt_cpu<T: Element>(
    data: &[T],
    shape: &[usize],
    smp: &[f64],
    opts: &DistanceOptions,
) -> Result<DistanceResult<f64>> {
    let n = data.len();
    let nd = shape.len();
    let mut f: Vec<f64> = data
        .par_iter()
        .map(|&x| if x != T::zero() { f64::INFINITY } else { 0.0 })
        .collect();
    let mut feat: Vec<i64> = data
        .par_iter()
        .enumerate()
        .map(|(i, &x)| if x != T::zero() { -1 } else { i as i64 })
        .collect();
    let st = c_strides_u(shape);
    if n > 0 {
        for a in 0..nd {
            let m = shape[a];
            let stride = st[a];
            let nlines = n / m;
            let w = smp[a] * smp[a];
            let mut f2 = vec![0.0f64; n];
            let mut k2 = vec![0i64; n];
            let (pf, pk) = (SyncPtr(f2.as_mut_ptr()), SyncPtr(k2.as_mut_ptr()));
            let (fr, kr) = (&f, &feat);
            (0..nlines).into_par_iter().for_each_init(
                || (Vec::new(), Vec::new(), vec![0.0; m], vec![(0.0, 0usize); m]),
                |(v, z, g, out), l| {
                    let base = (l / stride) * m * stride + l % stride;
                    for (q, gq) in g.iter_mut().enumerate() {
                        *gq = fr[base + q * stride];
                    }
                    let found = fh_line(g, w, v, z, out);
                    for (p, &(val, q)) in out.iter().enumerate() {
                        let i = base + p * stride;
                        // SAFETY: lines are disjoint; i < n.
                        unsafe {
                            if found {
                                pf.write(i, val);
                                pk.write(i, kr[base + q * stride]);
                            } else {
                                pf.write(i, f64::INFINITY);
                                pk.write(i, -1);
                            }
                        }
                    }
                },
            );
            f = f2;
            feat = k2;
        }
    }
    let coords = |i: usize, fe: i64, d: usize| -> (i64, i64) {
        let c = ((i / st[d]) % shape[d]) as i64;
        let fc = if fe < 0 {
            if d == 0 {
                -1
            } else {
                0
            }
        } else {
            (fe as usize / st[d] % shape[d]) as i64
        };
        (c, fc)
    };
    let dist = if opts.return_distances {
        let v: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                (0..nd)
                    .map(|d| {
                        let (c, fc) = coords(i, feat[i], d);
                        let t = smp[d] * (c - fc) as f64;
                        t * t
                    })
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        Some(Array::from_vec(v, shape, &Device::Cpu)?)
    } else {
        None
    };
    let idx = if opts.return_indices {
        let mut v = vec![0i32; n * nd];
        v.par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(d, plane)| {
                for (i, o) in plane.iter_mut().enumerate() {
                    *o = coords(i, feat[i], d).1 as i32;
                }
            });
        Some(Array::from_vec(v, &idx_shape(shape), &Device::Cpu)?)
    } else {
        None
    };
    Ok((dist, idx))
}

fn smp_arg(smp: &[f64]) -> NdiSampling {
    let mut s = [1.0; MAXD];
    s[..smp.len()].copy_from_slice(smp);
    NdiSampling { s }
}

fn edt_cuda<T: Element>(
    cd: &CudaDevice,
    input: &Array<T>,
    shape: &[usize],
    smp: &[f64],
    opts: &DistanceOptions,
) -> Result<DistanceResult<f64>> {
    const OP: &str = "distance_transform_edt";
    let dev = input.device();
    let sh = NdiShape::new(OP, shape)?;
    let n = input.size();
    let nd = shape.len();
    let dt = input.dtype();
    // every buffer below is overwritten completely by a kernel before it is read
    let mut f = Array::<f64>::empty(&[n], dev)?;
    let mut k = Array::<i64>::empty(&[n], dev)?;
    let mut dist = if opts.return_distances {
        Some(Array::<f64>::empty(shape, dev)?)
    } else {
        None
    };
    let mut idx = if opts.return_indices {
        Some(Array::<i32>::empty(&idx_shape(shape), dev)?)
    } else {
        None
    };
    if n == 0 {
        return Ok((dist, idx));
    }
    let mut f2 = Array::<f64>::empty(&[n], dev)?;
    let mut k2 = Array::<i64>::empty(&[n], dev)?;
    let st = c_strides_u(shape);
    // the first pass straight from the input (no init pass): the nearest background element
    // along axis 0, segments of 32 positions per thread
    {
        let m = shape[0];
        let nlines = n / m;
        let first = function(cd, dt, "ndi_edt_first")?;
        let threads = nlines * m.div_ceil(32);
        cd.launch(&first, linear(threads))
            .arg(input.dev_ptr()?)
            .arg(f.dev_ptr_mut()?)
            .arg(k.dev_ptr_mut()?)
            .arg(m as i64)
            .arg(st[0] as i64)
            .arg(nlines as i64)
            .arg(smp[0] * smp[0])
            .run()?;
    }
    // Later passes: with unit sampling, a bounded search per element (one block per line, the
    // line in shared memory) that marks the lines it cannot settle within 128 positions; the
    // envelope pass then redoes only the marked lines. With other samplings, the envelope pass.
    // Lines that fit in shared memory (12 bytes per element) take one block of one warp per line;
    // longer ones the one-thread-per-line pass with global scratch.
    let smem_cap = cd.props().max_shared_per_block_optin.min(160 * 1024);
    let sms = cd.props().multiprocessors.max(1);
    let mut scratch: Option<(Array<i64>, Array<f64>)> = None;
    for a in 1..nd {
        let m = shape[a];
        let nlines = n / m;
        let w = smp[a] * smp[a];
        let mut need: Option<Array<i32>> = None;
        if w == 1.0 && 8 * m <= smem_cap {
            let mut nd_ = Array::<i32>::empty(&[nlines], dev)?;
            let bounded = function(cd, dt, "ndi_edt_pass_bounded")?;
            let cfg = LaunchConfig {
                grid: (nlines.min(sms * 16).max(1) as u32, 1, 1),
                block: (256, 1, 1),
                shared_mem_bytes: (8 * m) as u32,
            };
            cd.launch(&bounded, cfg)
                .arg(f.dev_ptr()?)
                .arg(k.dev_ptr()?)
                .arg(f2.dev_ptr_mut()?)
                .arg(k2.dev_ptr_mut()?)
                .arg(m as i64)
                .arg(st[a] as i64)
                .arg(nlines as i64)
                .arg(128i32)
                .arg(nd_.dev_ptr_mut()?)
                .run()?;
            need = Some(nd_);
        }
        let need_ptr = need.as_ref().map(|v| v.dev_ptr()).transpose()?;
        if 12 * m <= smem_cap {
            let blocks = nlines.min(sms * 64) as u32;
            let cfg = LaunchConfig {
                grid: (blocks.max(1), 1, 1),
                block: (32, 1, 1),
                shared_mem_bytes: (12 * m) as u32,
            };
            let pass = function(cd, dt, "ndi_edt_pass_smem")?;
            cd.launch(&pass, cfg)
                .arg(f.dev_ptr()?)
                .arg(k.dev_ptr()?)
                .arg(f2.dev_ptr_mut()?)
                .arg(k2.dev_ptr_mut()?)
                .arg(m as i64)
                .arg(st[a] as i64)
                .arg(nlines as i64)
                .arg(w)
                .arg(need_ptr)
                .run()?;
        } else {
            let (vv, zz) = match &mut scratch {
                Some(s) => s,
                None => scratch.insert((
                    Array::<i64>::empty(&[n], dev)?,
                    Array::<f64>::empty(&[n], dev)?,
                )),
            };
            let cfg = LaunchConfig::linear(nlines.div_ceil(128).max(1) as u32, 128);
            let pass = function(cd, dt, "ndi_edt_pass")?;
            cd.launch(&pass, cfg)
                .arg(f.dev_ptr()?)
                .arg(k.dev_ptr()?)
                .arg(f2.dev_ptr_mut()?)
                .arg(k2.dev_ptr_mut()?)
                .arg(vv.dev_ptr_mut()?)
                .arg(zz.dev_ptr_mut()?)
                .arg(m as i64)
                .arg(st[a] as i64)
                .arg(nlines as i64)
                .arg(w)
                .arg(need_ptr)
                .run()?;
        }
        drop(need);
        std::mem::swap(&mut f, &mut f2);
        std::mem::swap(&mut k, &mut k2);
    }
    let fin = function(cd, dt, "ndi_edt_final")?;
    cd.launch(&fin, per_item(cd, n))
        .arg(k.dev_ptr()?)
        .arg(dist.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
        .arg(idx.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
        .arg(sh)
        .arg(smp_arg(smp))
        .run()?;
    Ok((dist, idx))
}

/// One raster pass of [`distance_transform_cdt`] on the host (`rev`: the backward pass, over
/// the elements in reverse order): each element that is not background takes the least
/// `d[j] + 1` over its structure points `offs` (flat offsets `dl`) inside the array, the first
/// such point on ties; with `FT`, its feature index follows. Row by row along the last axis:
/// elements of interior rows away from the row's ends read their points at fixed offsets.
fn cdt_pass<const FT: bool>(
    d: &mut [i32],
    ft: &mut [i64],
    shape: &[usize],
    offs: &[Vec<i64>],
    dl: &[i64],
    rev: bool,
) {
    let n = d.len();
    let nd = shape.len();
    if n == 0 || nd == 0 {
        return;
    }
    let w = shape[nd - 1];
    let rows = n / w;
    let mut c = vec![0i64; nd];
    for rr in 0..rows {
        let r = if rev { rows - 1 - rr } else { rr };
        // the row's coordinates on the leading axes
        let mut q = r;
        for a in (0..nd - 1).rev() {
            c[a] = (q % shape[a]) as i64;
            q /= shape[a];
        }
        let lead_in = (0..nd - 1).all(|a| c[a] >= 1 && c[a] + 1 < shape[a] as i64);
        for cc in 0..w {
            let col = if rev { w - 1 - cc } else { cc };
            let i = r * w + col;
            if d[i] == 0 {
                continue;
            }
            let interior = lead_in && col >= 1 && col + 1 < w;
            let mut best = d[i];
            let mut bf = if FT { ft[i] } else { 0 };
            c[nd - 1] = col as i64;
            for (o, &dd) in offs.iter().zip(dl) {
                if !interior
                    && !o
                        .iter()
                        .zip(c.iter())
                        .zip(shape)
                        .all(|((&oa, &ca), &sa)| ca + oa >= 0 && ca + oa < sa as i64)
                {
                    continue;
                }
                let j = (i as i64 + dd) as usize;
                let dj = d[j];
                if dj >= 0 {
                    let v = dj + 1;
                    if best < 0 || v < best {
                        best = v;
                        if FT {
                            bf = ft[j];
                        }
                    }
                }
            }
            d[i] = best;
            if FT {
                ft[i] = bf;
            }
        }
    }
}

/// The metric of [`distance_transform_cdt`].
#[derive(Debug, Clone, Default)]
pub enum CdtMetric<'a> {
    /// Steps to all `3^rank − 1` neighbours (the default).
    #[default]
    Chessboard,
    /// Steps along the axes only (`taxicab`, `cityblock`, `manhattan`).
    Taxicab,
    /// Steps to the neighbours that a `3 × … × 3` structure marks.
    Structure(&'a Array<bool>),
}

/// `scipy.ndimage.distance_transform_cdt(input, metric, return_distances, return_indices)`:
/// the chamfer distance (`i32`, steps of the metric) from each nonzero element to the nearest
/// zero element; −1 where none can be reached.
///
/// The CPU runs SciPy's two raster passes; the GPU relaxes all elements in parallel until nothing
/// changes. Both give the exact step distance for the chessboard and taxicab metrics; equally near
/// zero elements may give different indices on the two devices.
///
/// # Errors
/// `UnsupportedDType` (complex); `InvalidArgument` for a 0-d input (SciPy raises), a metric
/// structure that is not `3` on every axis or both returns false; `ShapeMismatch` for a structure
/// of another rank.
///
/// ```
/// use cusci_ndimage::{distance_transform_cdt, CdtMetric, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 1, 1], &[4], &Device::Cpu).unwrap();
/// let (d, _) = distance_transform_cdt(&a, &CdtMetric::Taxicab, true, false).unwrap();
/// assert_eq!(d.unwrap().to_vec().unwrap(), vec![0, 1, 2, 3]);
/// ```
pub fn distance_transform_cdt<T: Element>(
    input: &Array<T>,
    metric: &CdtMetric,
    return_distances: bool,
    return_indices: bool,
) -> Result<DistanceResult<i32>> {
    const OP: &str = "distance_transform_cdt";
    real_only::<T>(OP)?;
    check_returns(OP, return_distances, return_indices)?;
    let shape = input.shape().to_vec();
    let nd = shape.len();
    if nd == 0 {
        // SciPy raises for a 0-d input (TypeError from its in-place raster passes)
        return Err(make::arg(OP, "the input must have at least one dimension"));
    }
    let s = match metric {
        CdtMetric::Chessboard => Structure::default(OP, nd, nd as i64)?,
        CdtMetric::Taxicab => Structure::default(OP, nd, 1)?,
        CdtMetric::Structure(s) => {
            let s = Structure::from_array(OP, *s, nd)?;
            if s.shape.iter().any(|&d| d != 3) {
                return Err(make::arg(OP, "metric structure must be 3 along every axis"));
            }
            s
        }
    };
    // the structure's elements before its centre (raster order), as SciPy's forward pass
    let half = (s.data.len().max(1) - 1) / 2;
    let mut fwd = Vec::new();
    let allo = s.erosion_offsets(&vec![0; nd]);
    for o in allo {
        let mut k = 0i64;
        for &c in &o {
            k = k * 3 + c + 1;
        }
        if (k as usize) < half {
            fwd.push(o);
        }
    }
    let input = contig(input)?;
    let n = input.size();
    let st = c_strides_u(&shape);
    let delta = |o: &Vec<i64>| -> i64 { o.iter().zip(&st).map(|(&c, &s)| c * s as i64).sum() };
    match input.backend() {
        Backend::Host(h) => {
            let data = h.try_to_contiguous()?;
            let mut d: Vec<i32> = data
                .iter()
                .map(|&x| if x != T::zero() { -1 } else { 0 })
                .collect();
            // the feature transform only when the indices are asked for
            let mut ft: Vec<i64> = if return_indices {
                (0..n as i64).collect()
            } else {
                Vec::new()
            };
            let bwd: Vec<Vec<i64>> = fwd.iter().map(|o| o.iter().map(|c| -c).collect()).collect();
            for (offs, rev) in [(&fwd, false), (&bwd, true)] {
                let dl: Vec<i64> = offs.iter().map(delta).collect();
                if return_indices {
                    cdt_pass::<true>(&mut d, &mut ft, &shape, offs, &dl, rev);
                } else {
                    cdt_pass::<false>(&mut d, &mut ft, &shape, offs, &dl, rev);
                }
            }
            let idx = if return_indices {
                let mut v = vec![0i32; n * nd];
                for a in 0..nd {
                    for i in 0..n {
                        v[a * n + i] = ((ft[i] as usize / st[a]) % shape[a]) as i32;
                    }
                }
                Some(Array::from_vec(v, &idx_shape(&shape), &Device::Cpu)?)
            } else {
                None
            };
            let dist = if return_distances {
                Some(Array::from_vec(d, &shape, &Device::Cpu)?)
            } else {
                None
            };
            Ok((dist, idx))
        }
        Backend::Cuda(c) => {
            let cd = c.dev();
            let dev = input.device();
            let sh = NdiShape::new(OP, &shape)?;
            let mut dist = if return_distances {
                Some(Array::<i32>::empty(&shape, dev)?)
            } else {
                None
            };
            let mut idx = if return_indices {
                Some(Array::<i32>::empty(&idx_shape(&shape), dev)?)
            } else {
                None
            };
            if n == 0 {
                return Ok((dist, idx));
            }
            let mut all: Vec<Vec<i64>> = fwd.clone();
            all.extend(
                fwd.iter()
                    .map(|o| o.iter().map(|c| -c).collect::<Vec<i64>>()),
            );
            let dl: Vec<i64> = all.iter().map(delta).collect();
            let offs_d = offsets_on(dev, &all, nd)?;
            let dl_d = Array::from_vec(
                if dl.is_empty() { vec![0] } else { dl },
                &[all.len().max(1)],
                dev,
            )?;
            let dt = T::DTYPE;
            let cfg = per_item(cd, n);
            let mut d = Array::<i32>::empty(&[n], dev)?;
            let mut ft = Array::<i64>::empty(&[n], dev)?;
            let mut d2 = Array::<i32>::empty(&[n], dev)?;
            let mut ft2 = Array::<i64>::empty(&[n], dev)?;
            let init = function(cd, dt, "ndi_cdt_init")?;
            cd.launch(&init, cfg)
                .arg(c.ptr())
                .arg(d.dev_ptr_mut()?)
                .arg(ft.dev_ptr_mut()?)
                .arg(n as i64)
                .run()?;
            let step = function(cd, dt, "ndi_cdt_step")?;
            let mut changed = Array::<i32>::zeros(&[1], dev)?;
            // only every CHECK_EVERY-th step sets the change flag and syncs with the host (steps
            // after the fixed point change nothing)
            const CHECK_EVERY: usize = 8;
            let mut it = 0usize;
            loop {
                it += 1;
                let check = it % CHECK_EVERY == 0;
                if check {
                    changed.fill(0)?;
                }
                let flag = if check {
                    Some(changed.dev_ptr_mut()?)
                } else {
                    None
                };
                cd.launch(&step, cfg)
                    .arg(d.dev_ptr()?)
                    .arg(ft.dev_ptr()?)
                    .arg(d2.dev_ptr_mut()?)
                    .arg(ft2.dev_ptr_mut()?)
                    .arg(sh)
                    .arg(offs_d.dev_ptr()?)
                    .arg(dl_d.dev_ptr()?)
                    .arg(all.len() as i32)
                    .arg(flag)
                    .run()?;
                std::mem::swap(&mut d, &mut d2);
                std::mem::swap(&mut ft, &mut ft2);
                if check && changed.item()? == 0 {
                    break;
                }
            }
            let fin = function(cd, dt, "ndi_cdt_final")?;
            cd.launch(&fin, cfg)
                .arg(d.dev_ptr()?)
                .arg(ft.dev_ptr()?)
                .arg(dist.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
                .arg(idx.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
                .arg(sh)
                .run()?;
            Ok((dist, idx))
        }
    }
}

/// The metric of [`distance_transform_bf`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BfMetric {
    /// √Σ(sᵢ·dxᵢ)² (the default).
    #[default]
    Euclidean,
    /// Σ|sᵢ·dxᵢ| (`taxicab`, `cityblock`, `manhattan`).
    Taxicab,
    /// maxᵢ |sᵢ·dxᵢ|.
    Chessboard,
}

/// `scipy.ndimage.distance_transform_bf(input, metric, sampling, return_distances,
/// return_indices)`: the distance (f64) from each nonzero element to the nearest zero element
/// by brute force over the zero elements that touch the foreground (raster order; the first of
/// several equally near ones is taken). O(foreground × border): for small inputs.
/// For the taxicab and chessboard metrics SciPy ignores `sampling` and returns `uint32` step
/// counts; this does the same and returns them as f64. Among equally near zero elements the
/// index chosen may differ from SciPy's. Without any zero element the distances are infinite and
/// the indices −1 (SciPy returns its starting values there: 2³² − 1 steps or √DBL_MAX, index 0).
///
/// # Errors
/// As [`distance_transform_edt`].
///
/// ```
/// use cusci_ndimage::{distance_transform_bf, BfMetric, DistanceOptions, Array, Device};
/// let a = Array::from_vec(vec![0u8, 1, 1, 1], &[4], &Device::Cpu).unwrap();
/// let (d, _) = distance_transform_bf(&a, BfMetric::Taxicab, &DistanceOptions::default()).unwrap();
/// assert_eq!(d.unwrap().to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0]);
/// ```
pub fn distance_transform_bf<T: Element>(
    input: &Array<T>,
    metric: BfMetric,
    opts: &DistanceOptions,
) -> Result<DistanceResult<f64>> {
    const OP: &str = "distance_transform_bf";
    real_only::<T>(OP)?;
    check_returns(OP, opts.return_distances, opts.return_indices)?;
    let shape = input.shape().to_vec();
    let nd = shape.len();
    let mut smp = sampling(OP, &opts.sampling, nd)?;
    if metric != BfMetric::Euclidean {
        smp = vec![1.0; nd];
    }
    let input = contig(input)?;
    let n = input.size();
    let code = match metric {
        BfMetric::Euclidean => 0,
        BfMetric::Taxicab => 1,
        BfMetric::Chessboard => 2,
    };
    match input.backend() {
        Backend::Host(h) => {
            let fg: Vec<bool> = h
                .try_to_contiguous()?
                .iter()
                .map(|&x| x != T::zero())
                .collect();
            let full = Structure::default(OP, nd, nd as i64)?;
            let offs = full.dilation_offsets(&vec![0; nd]);
            let once = Steps {
                shape: &shape,
                offs: &offs,
                dilate: true,
                iterations: 1,
                border: false,
            };
            let dil = cpu_iterate(OP, &fg, &once, None)?;
            let st = c_strides_u(&shape);
            let list: Vec<usize> = (0..n).filter(|&i| dil[i] && !fg[i]).collect();
            let res: Vec<(f64, i64)> = (0..n)
                .into_par_iter()
                .map(|i| {
                    if !fg[i] {
                        return (0.0, i as i64);
                    }
                    let mut best = f64::INFINITY;
                    let mut bf = -1i64;
                    for &j in &list {
                        let mut acc = 0.0f64;
                        for d in (0..nd).rev() {
                            let x = smp[d]
                                * (((i / st[d]) % shape[d]) as f64
                                    - ((j / st[d]) % shape[d]) as f64);
                            match code {
                                0 => acc += x * x,
                                1 => acc += x.abs(),
                                _ => acc = acc.max(x.abs()),
                            }
                        }
                        if acc < best {
                            best = acc;
                            bf = j as i64;
                        }
                    }
                    (if code == 0 { best.sqrt() } else { best.trunc() }, bf)
                })
                .collect();
            let dist = if opts.return_distances {
                Some(Array::from_vec(
                    res.iter().map(|r| r.0).collect(),
                    &shape,
                    &Device::Cpu,
                )?)
            } else {
                None
            };
            let idx = if opts.return_indices {
                let mut v = vec![0i32; n * nd];
                for d in 0..nd {
                    for i in 0..n {
                        let f = res[i].1;
                        v[d * n + i] = if f < 0 {
                            -1
                        } else {
                            ((f as usize / st[d]) % shape[d]) as i32
                        };
                    }
                }
                Some(Array::from_vec(v, &idx_shape(&shape), &Device::Cpu)?)
            } else {
                None
            };
            Ok((dist, idx))
        }
        Backend::Cuda(c) => {
            let cd = c.dev();
            let dev = input.device();
            let sh = NdiShape::new(OP, &shape)?;
            let mut dist = if opts.return_distances {
                Some(Array::<f64>::empty(&shape, dev)?)
            } else {
                None
            };
            let mut idx = if opts.return_indices {
                Some(Array::<i32>::empty(&idx_shape(&shape), dev)?)
            } else {
                None
            };
            if n == 0 {
                return Ok((dist, idx));
            }
            let dt = T::DTYPE;
            let cfg = per_item(cd, n);
            let mut flag = Array::<i64>::empty(&[n], dev)?;
            let b = function(cd, dt, "ndi_bf_border")?;
            cd.launch(&b, cfg)
                .arg(c.ptr())
                .arg(flag.dev_ptr_mut()?)
                .arg(sh)
                .run()?;
            let rank = contig(&flag.cumsum(0)?)?;
            let nlist = rank
                .slice_axis(0, Some(n as isize - 1), None, 1)?
                .item()?
                .max(0) as usize;
            let mut list = Array::<i64>::empty(&[nlist.max(1)], dev)?;
            let f = function(cd, dt, "ndi_compact")?;
            cd.launch(&f, cfg)
                .arg(flag.dev_ptr()?)
                .arg(rank.dev_ptr()?)
                .arg(list.dev_ptr_mut()?)
                .arg(n as i64)
                .run()?;
            let k = function(cd, dt, "ndi_bf")?;
            cd.launch(&k, cfg)
                .arg(c.ptr())
                .arg(list.dev_ptr()?)
                .arg(nlist as i64)
                .arg(dist.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
                .arg(idx.as_mut().map(|a| a.dev_ptr_mut()).transpose()?)
                .arg(sh)
                .arg(smp_arg(&smp))
                .arg(code)
                .run()?;
            Ok((dist, idx))
        }
    }
}
