//! The transforms of [`ShortTimeFft`]: the STFT (`shortfft.cu` framing and post-processing on
//! the GPU, the same steps on the CPU), spectrograms, and the inverse STFT.

use super::options::*;
use super::plan::*;
use crate::procutil::{each_dtype, typed_kernel, typed_source, REAL_DTYPES};
use crate::Detrend;
use cusci_core::array::check_same_device;
use cusci_core::array::layout::norm_axis;
use cusci_core::dtype::Float;
use cusci_core::error::make;
use cusci_core::{
    c64, Array, Backend, CudaDevice, DevPtr, DevPtrMut, Device, Element, Function, KernelModule,
    LaunchConfig, RealFloat, Result,
};
use cusci_fft::{FftComplex, FftInput, FftOptions};
use rayon::prelude::*;

const SRC: &str = concat!(
    include_str!("../block_sum.cuh"),
    include_str!("shortfft.cu")
);

impl ShortTimeFft {
    /// `stft(x, p0, p1, k_offset=, padding=, axis=)`: the STFT of `x` along `args.axis`; the
    /// result has that axis replaced by the frequencies (`f_pts`) and the slices appended last
    /// (SciPy's layout). Real or complex `x` (complex only for the two-sided modes); f32 and
    /// c32 give c32, f64 and c64 give c64.
    ///
    /// # Errors
    /// `InvalidArgument`: complex `x` with a one-sided mode, a signal shorter than
    /// `ceil(m_num/2)`, an invalid slice range, an axis out of range.
    pub fn stft<X>(&self, x: &Array<X>, args: &StftArgs) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        self.stft_detrend(x, Detrend::None, args)
    }

    /// `stft_detrend(x, detr, ...)`: as [`ShortTimeFft::stft`] with each padded slice
    /// detrended (constant or linear, SciPy's `detrend`) before the window is applied.
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`].
    pub fn stft_detrend<X>(
        &self,
        x: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        let op = "ShortTimeFFT.stft";
        let in_cplx = X::DTYPE.is_complex();
        if self.onesided_fft() && in_cplx {
            return Err(make::arg(
                op,
                "Complex-valued `x` not allowed for a one-sided fft_mode! Set fft_mode to 'twosided' or 'centered'.",
            ));
        }
        if x.ndim() == 0 {
            return Err(make::arg(op, "x must have at least one dimension"));
        }
        let ax = norm_axis(op, args.axis, x.ndim())?;
        let n = x.shape()[ax];
        let m2p = self.m_num() - self.m_num_mid();
        if n < m2p {
            return Err(make::arg(
                op,
                format!("length {n} of axis {ax} must be >= ceil(m_num/2) = {m2p}!"),
            ));
        }
        let nd = x.ndim();
        let mut perm: Vec<isize> = (0..nd as isize).filter(|&a| a != ax as isize).collect();
        perm.push(ax as isize);
        let xm = if ax == nd - 1 {
            x.contiguous()?
        } else {
            x.permute(&perm)?.contiguous()?
        };
        let lead: Vec<usize> = xm.shape()[..nd - 1].to_vec();
        let rows: usize = lead.iter().product();
        let (p0, p1) = self.p_range(n, args.p0, args.p1)?;
        let pnum = (p1 - p0) as usize;
        let hop = self.hop as i64;
        let m = self.m_num() as i64;
        let kstart = p0 * hop - self.m_num_mid() as i64 + args.k_offset;
        let k1 = kstart + pnum as i64 * hop + m;
        let i0 = kstart.max(0);
        let i1 = k1.min(n as i64);
        let lc = (i1 - i0).max(0);
        let pad = match args.padding {
            StftPadding::Zeros => 0,
            StftPadding::Edge => 1,
            StftPadding::Even => 2,
            StftPadding::Odd => 3,
        };
        if lc == 0 && pad != 0 && (kstart < 0 || k1 > n as i64) {
            return Err(make::arg(
                op,
                "can't extend empty axis using modes other than 'constant' or 'empty'",
            ));
        }
        let g = Geom {
            rows,
            n,
            p0,
            pnum,
            kstart,
            i0,
            lc,
            pad,
            detr: match detr {
                Detrend::None => 0,
                Detrend::Constant => 1,
                Detrend::Linear => 2,
            },
            ps: self.ps(),
        };
        let _ = g.p0;
        let fp = self.f_pts();
        let s = if rows == 0 || pnum == 0 {
            Array::<X::Complex>::zeros(&[rows, fp, pnum], x.device())?
        } else {
            self.forward::<X, X::Complex>(&xm, &g)?
        };
        // (rows, F, P) -> lead + [F, P], F moved to `ax`
        let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
        shape.push(fp as isize);
        shape.push(pnum as isize);
        let s = s.reshape(&shape)?;
        if ax == nd - 1 {
            return Ok(s);
        }
        // dims: lead (nd-1), F at nd-1, P at nd; move F to position ax
        let mut order: Vec<isize> = Vec::with_capacity(nd + 1);
        for i in 0..nd - 1 {
            if i == ax {
                order.push((nd - 1) as isize);
            }
            order.push(i as isize);
        }
        order.push(nd as isize);
        s.permute(&order)?.contiguous()
    }

    fn forward<X, C>(&self, xm: &Array<X>, g: &Geom) -> Result<Array<C>>
    where
        X: Element,
        C: FftComplex + FftInput<Complex = C>,
        C::Real: FftInput<Complex = C>,
    {
        let out_cplx = !self.onesided_fft();
        let mfft = self.mfft;
        let fopts = FftOptions {
            n: Some(mfft),
            axis: -1,
            ..Default::default()
        };
        let shape = [g.rows, g.pnum, mfft];
        let (shift, lo, hi, fac) = self.post_params();
        let fp = self.f_pts();
        match xm.backend() {
            Backend::Host(h) => {
                let xv = h.try_to_contiguous()?;
                let xc: Vec<c64> = xv.iter().map(|v| v.to_c64()).collect();
                let fr = self.frames_host(&xc, g);
                let xf: Array<C> = if out_cplx {
                    let v: Vec<C> = fr.iter().map(|z| to_c::<C>(*z)).collect();
                    cusci_fft::fft(&Array::from_vec(v, &shape, &Device::Cpu)?, &fopts)?
                } else {
                    let v: Vec<C::Real> = fr
                        .iter()
                        .map(|z| <C::Real as RealFloat>::from_f64(z.re))
                        .collect();
                    cusci_fft::rfft(&Array::from_vec(v, &shape, &Device::Cpu)?, &fopts)?
                };
                let xh = xf.to_vec()?;
                let nb = xf.shape()[2];
                let pnum = g.pnum;
                let mut out = vec![C::zero(); g.rows * fp * pnum];
                out.par_chunks_mut(fp * pnum)
                    .enumerate()
                    .for_each(|(r, o)| {
                        for f in 0..fp {
                            let src = (f + nb - shift) % nb;
                            let s = if f >= lo && f < hi { fac } else { 1.0 };
                            for p in 0..pnum {
                                let z = xh[(r * pnum + p) * nb + src].to_c64() * s;
                                o[f * pnum + p] = to_c::<C>(z);
                            }
                        }
                    });
                Array::from_vec(out, &[g.rows, fp, pnum], &Device::Cpu)
            }
            Backend::Cuda(c) => {
                let d = c.dev();
                let winc: Vec<f64> = self.win.iter().flat_map(|z| [z.re, z.im]).collect();
                let win = Array::from_vec(winc, &[2 * self.m_num()], xm.device())?;
                let total = g.rows * g.pnum;
                let frames = kernel_fn::<C::Real>(d, "frames")?;
                // one block per frame (at most 2^20 blocks, striding over the rest)
                let threads = if mfft >= 256 { 256 } else { 64 };
                let cfg = LaunchConfig::linear(total.min(1 << 20) as u32, threads);
                // the frames are real (C::Real) or complex (C) by `out_cplx`
                let launch_frames = |out: DevPtrMut<'_, u8>| -> Result<()> {
                    d.launch(&frames, cfg)
                        .arg(c.ptr())
                        .arg(X::DTYPE.is_complex() as i32)
                        .arg(g.n as i64)
                        .arg(total as i64)
                        .arg(g.pnum as i64)
                        .arg(g.kstart)
                        .arg(self.hop as i64)
                        .arg(self.m_num() as i64)
                        .arg(mfft as i64)
                        .arg(g.i0)
                        .arg(g.lc)
                        .arg(g.pad)
                        .arg(g.detr)
                        .arg(g.ps as i64)
                        .arg(win.dev_ptr()?)
                        .arg(out_cplx as i32)
                        .arg(out)
                        .run()
                };
                let xf: Array<C> = if out_cplx {
                    let mut fr = Array::<C>::empty(&shape, xm.device())?;
                    launch_frames(fr.dev_ptr_mut()?.untyped())?;
                    cusci_fft::fft(&fr, &fopts)?
                } else {
                    let mut fr = Array::<C::Real>::empty(&shape, xm.device())?;
                    launch_frames(fr.dev_ptr_mut()?.untyped())?;
                    cusci_fft::rfft(&fr, &fopts)?
                };
                let nb = xf.shape()[2];
                let mut out = Array::<C>::empty(&[g.rows, fp, g.pnum], xm.device())?;
                let tot = g.rows * fp * g.pnum;
                d.launch(
                    &kernel_fn::<C::Real>(d, "post")?,
                    LaunchConfig::cover(tot, 256)?,
                )
                .arg(xf.dev_ptr()?)
                .arg(g.rows as i64)
                .arg(g.pnum as i64)
                .arg(nb as i64)
                .arg(fp as i64)
                .arg(shift as i64)
                .arg(lo as i64)
                .arg(hi as i64)
                .arg(fac)
                .arg(out.dev_ptr_mut()?)
                .run()?;
                Ok(out)
            }
        }
    }

    /// The frames `(rows, pnum, mfft)` on the host (mirrors the `frames` kernel).
    fn frames_host(&self, xc: &[c64], g: &Geom) -> Vec<c64> {
        let mfft = self.mfft;
        let m = self.m_num();
        let hop = self.hop as i64;
        let mut out = vec![c64::new(0.0, 0.0); g.rows * g.pnum * mfft];
        if mfft == 0 {
            return out;
        }
        let tbar = 0.5 * (m as f64 - 1.0);
        let mf = m as f64;
        let stt = mf * (mf * mf - 1.0) / 12.0;
        out.par_chunks_mut(mfft).enumerate().for_each(|(r, o)| {
            let b = r / g.pnum;
            let s = r % g.pnum;
            let xr = &xc[b * g.n..(b + 1) * g.n];
            let base = g.kstart + s as i64 * hop;
            let vals: Vec<c64> = (0..m)
                .map(|k| padval(xr, g.i0, g.lc, g.pad, base + k as i64))
                .collect();
            let (mut mean, mut slope) = (c64::new(0.0, 0.0), c64::new(0.0, 0.0));
            if g.detr != 0 {
                mean = vals.iter().sum::<c64>() / mf;
                if g.detr == 2 && stt > 0.0 {
                    let s1: c64 = vals
                        .iter()
                        .enumerate()
                        .map(|(k, v)| v * (k as f64 - tbar))
                        .sum();
                    slope = s1 / stt;
                }
            }
            for (j, oj) in o.iter_mut().enumerate() {
                let mut k = j + g.ps;
                if k >= mfft {
                    k -= mfft;
                }
                if k < m {
                    let v = vals[k] - (mean + slope * (k as f64 - tbar));
                    *oj = v * self.win[k].conj();
                }
            }
        });
        out
    }

    /// `spectrogram(x, detr=, ...)`: `|stft_detrend(x)|²`, real, in the layout of
    /// [`ShortTimeFft::stft`].
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`].
    pub fn spectrogram<X>(
        &self,
        x: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<<X::Complex as Float>::Real>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        let s = self.stft_detrend(x, detr, args)?;
        s.abs2()
    }

    /// `spectrogram(x, y, detr=, ...)`: the cross-spectrogram `Sx · conj(Sy)`, complex.
    ///
    /// # Errors
    /// As [`ShortTimeFft::stft`]; `ShapeMismatch` for inputs of different shapes;
    /// `DeviceMismatch`.
    pub fn cross_spectrogram<X>(
        &self,
        x: &Array<X>,
        y: &Array<X>,
        detr: Detrend,
        args: &StftArgs,
    ) -> Result<Array<X::Complex>>
    where
        X: FftInput,
        X::Complex: FftComplex + FftInput<Complex = X::Complex>,
        <X::Complex as Float>::Real: FftInput<Complex = X::Complex>,
    {
        if x.shape() != y.shape() {
            return Err(make::shape(
                "ShortTimeFFT.spectrogram",
                "x and y must have one shape",
            ));
        }
        check_same_device("ShortTimeFFT.spectrogram", x.device(), y.device())?;
        let sx = self.stft_detrend(x, detr, args)?;
        let sy = self.stft_detrend(y, detr, args)?;
        sx.mul(&sy.conj()?)
    }

    /// `istft(S, k0=0, k1=None, f_axis=-2, t_axis=-1)`: the inverse STFT by the dual window
    /// (overlap-add of the inverse FFTs of the slices times `dual_win`), samples `k0..k1`.
    /// Real for the one-sided modes, complex otherwise. The sample axis replaces the frequency
    /// axis (or the time axis when the frequency axis is last), as SciPy.
    ///
    /// # Errors
    /// `InvalidArgument`: equal axes, `S.shape[f_axis] ≠ f_pts`, too few slices, `k0`/`k1`
    /// outside `k_min ≤ k0 < k1 ≤ k_max`, fewer than `ceil(m_num/2)` samples, a window without
    /// a dual.
    pub fn istft<C>(&self, s: &Array<C>, args: &IstftArgs) -> Result<StftSignal<C::Real>>
    where
        C: FftComplex + FftInput<Complex = C>,
        C::Real: FftInput<Complex = C>,
    {
        let op = "ShortTimeFFT.istft";
        let nd = s.ndim();
        if nd < 2 {
            return Err(make::arg(op, "S must have at least two dimensions"));
        }
        let fa = norm_axis(op, args.f_axis, nd)?;
        let ta = norm_axis(op, args.t_axis, nd)?;
        if fa == ta {
            return Err(make::arg(
                op,
                format!(
                    "f_axis={} may not be equal to t_axis={}!",
                    args.f_axis, args.t_axis
                ),
            ));
        }
        let fp = self.f_pts();
        if s.shape()[fa] != fp {
            return Err(make::arg(
                op,
                format!(
                    "S.shape[f_axis]={} must be equal to self.f_pts={fp}!",
                    s.shape()[fa]
                ),
            ));
        }
        let m = self.m_num() as i64;
        let mid = self.m_num_mid() as i64;
        let hop = self.hop as i64;
        let n_min = (m - mid) as usize;
        let q_num = self.p_num(n_min)?;
        let qn = s.shape()[ta];
        if qn < q_num {
            return Err(make::arg(
                op,
                format!("S.shape[t_axis]={qn} needs to have at least {q_num} slices!"),
            ));
        }
        let dual = self.dual_win()?;
        let pmin = self.p_min();
        let q_max = qn as i64 + pmin;
        let k_max = (q_max - 1) * hop + m - mid;
        let k0 = args.k0;
        let k1 = args.k1.unwrap_or(k_max);
        let kmin = self.k_min();
        if !(kmin <= k0 && k0 < k1 && k1 <= k_max) {
            return Err(make::arg(
                op,
                format!("(k_min={kmin}) <= (k0={k0}) < (k1={k1}) <= (k_max={k_max}) is false!"),
            ));
        }
        if k1 - k0 < n_min as i64 {
            return Err(make::arg(op, format!("(k1={k1}) - (k0={k0}) = {} has to be at least the half the window length {n_min}!", k1 - k0)));
        }
        let q0 = if k0 >= 0 {
            fdiv(k0, hop) + pmin
        } else {
            fdiv(k0, hop)
        };
        let q1 = self.p_max(k1 as usize)?.min(q_max);
        if q0 < pmin {
            return Err(make::arg(op, "first slice out of range"));
        }
        let nq = (q1 - q0).max(0) as usize;
        let nout = (k1 - k0) as usize;
        // S moved to lead + [F, Q], contiguous
        let mut perm: Vec<isize> = (0..nd)
            .filter(|&a| a != fa && a != ta)
            .map(|a| a as isize)
            .collect();
        let lead: Vec<usize> = perm.iter().map(|&a| s.shape()[a as usize]).collect();
        perm.push(fa as isize);
        perm.push(ta as isize);
        let sm = s.permute(&perm)?.contiguous()?;
        let rows: usize = lead.iter().product();
        let onesided = self.onesided_fft();
        let mfft = self.mfft;
        let (shift0, lo, hi, fac) = self.post_params();
        // ifftshift for centered: y[f] = x[(f + mfft/2) mod mfft]... (post used (f - mfft/2))
        let shift = if self.fft_mode == FftMode::Centered {
            mfft / 2
        } else {
            shift0
        };
        let ps = self.ps();
        let fopts = FftOptions {
            n: Some(mfft),
            axis: -1,
            ..Default::default()
        };
        let qoff = (q0 - pmin) as usize;
        let dev = s.device().clone();
        let out_shape = [rows, nout];
        let res: StftSignal<C::Real> = if rows == 0 || nq == 0 {
            if onesided {
                StftSignal::Real(Array::zeros(&out_shape, &dev)?)
            } else {
                StftSignal::Complex(Array::zeros(&out_shape, &dev)?)
            }
        } else {
            match sm.backend() {
                Backend::Host(h) => {
                    let sv = h.try_to_contiguous()?;
                    let mut y = vec![C::zero(); rows * nq * fp];
                    y.par_chunks_mut(nq * fp).enumerate().for_each(|(r, o)| {
                        for qi in 0..nq {
                            for f in 0..fp {
                                let src = (f + shift) % fp;
                                let sc = if f >= lo && f < hi { fac } else { 1.0 };
                                let z = sv[(r * fp + src) * qn + qoff + qi].to_c64() / sc;
                                o[qi * fp + f] = to_c::<C>(z);
                            }
                        }
                    });
                    let ya = Array::from_vec(y, &[rows, nq, fp], &Device::Cpu)?;
                    let yt: Vec<c64> = if onesided {
                        cusci_fft::irfft(&ya, &fopts)?
                            .to_vec()?
                            .iter()
                            .map(|v| v.to_c64())
                            .collect()
                    } else {
                        cusci_fft::ifft(&ya, &fopts)?
                            .to_vec()?
                            .iter()
                            .map(|v| v.to_c64())
                            .collect()
                    };
                    let mut out = vec![c64::new(0.0, 0.0); rows * nout];
                    out.par_chunks_mut(nout).enumerate().for_each(|(r, o)| {
                        for (t, ot) in o.iter_mut().enumerate() {
                            let i = t as i64 + k0;
                            let qa = (fdiv(i + mid - m, hop) + 1).max(q0);
                            let qb = fdiv(i + mid, hop).min(q0 + nq as i64 - 1);
                            let mut acc = c64::new(0.0, 0.0);
                            let mut q = qa;
                            while q <= qb {
                                let j = (i - q * hop + mid) as usize;
                                let jj = (j + mfft - ps) % mfft;
                                let yv = yt[(r * nq + (q - q0) as usize) * mfft + jj];
                                acc += yv * dual[j];
                                q += 1;
                            }
                            *ot = acc;
                        }
                    });
                    if onesided {
                        let v = out
                            .iter()
                            .map(|z| <C::Real as RealFloat>::from_f64(z.re))
                            .collect();
                        StftSignal::Real(Array::from_vec(v, &out_shape, &dev)?)
                    } else {
                        let v = out.iter().map(|z| to_c::<C>(*z)).collect();
                        StftSignal::Complex(Array::from_vec(v, &out_shape, &dev)?)
                    }
                }
                Backend::Cuda(c) => {
                    let d = c.dev();
                    let mut ya = Array::<C>::empty(&[rows, nq, fp], &dev)?;
                    let tot = rows * nq * fp;
                    d.launch(
                        &kernel_fn::<C::Real>(d, "pre")?,
                        LaunchConfig::cover(tot, 256)?,
                    )
                    .arg(c.ptr())
                    .arg(rows as i64)
                    .arg(fp as i64)
                    .arg(qn as i64)
                    .arg(qoff as i64)
                    .arg(nq as i64)
                    .arg(shift as i64)
                    .arg(lo as i64)
                    .arg(hi as i64)
                    .arg(fac)
                    .arg(ya.dev_ptr_mut()?)
                    .run()?;
                    let dualc: Vec<f64> = dual.iter().flat_map(|z| [z.re, z.im]).collect();
                    let dual_d = Array::from_vec(dualc, &[2 * dual.len()], &dev)?;
                    let ola_f = kernel_fn::<C::Real>(d, "ola")?;
                    let ola_cfg = LaunchConfig::cover(rows * nout, 256)?;
                    // the signal is real (C::Real) or complex (C) by `cplx`
                    let ola = |y: DevPtr<'_, u8>, cplx: bool, out: DevPtrMut<'_, u8>| {
                        d.launch(&ola_f, ola_cfg)
                            .arg(y)
                            .arg(cplx as i32)
                            .arg(rows as i64)
                            .arg(nq as i64)
                            .arg(q0)
                            .arg(mfft as i64)
                            .arg(m)
                            .arg(mid)
                            .arg(hop)
                            .arg(ps as i64)
                            .arg(k0)
                            .arg(nout as i64)
                            .arg(dual_d.dev_ptr()?)
                            .arg(out)
                            .run()
                    };
                    if onesided {
                        let yt = cusci_fft::irfft(&ya, &fopts)?;
                        let mut out = Array::<C::Real>::empty(&out_shape, &dev)?;
                        ola(yt.dev_ptr()?.untyped(), false, out.dev_ptr_mut()?.untyped())?;
                        StftSignal::Real(out)
                    } else {
                        let yt = cusci_fft::ifft(&ya, &fopts)?;
                        let mut out = Array::<C>::empty(&out_shape, &dev)?;
                        ola(yt.dev_ptr()?.untyped(), true, out.dev_ptr_mut()?.untyped())?;
                        StftSignal::Complex(out)
                    }
                }
            }
        };
        // lead + [n]; the sample axis goes to f_axis (or t_axis when f_axis is the last)
        let xnd = nd - 1;
        let target = if fa < xnd { fa } else { ta };
        let mut shape: Vec<isize> = lead.iter().map(|&v| v as isize).collect();
        shape.push(nout as isize);
        fn place<E: Element>(a: Array<E>, shape: &[isize], target: usize) -> Result<Array<E>> {
            let a = a.reshape(shape)?;
            let nd = shape.len();
            if target == nd - 1 {
                return Ok(a);
            }
            let mut order: Vec<isize> = Vec::with_capacity(nd);
            for i in 0..nd - 1 {
                if i == target {
                    order.push((nd - 1) as isize);
                }
                order.push(i as isize);
            }
            a.permute(&order)?.contiguous()
        }
        Ok(match res {
            StftSignal::Real(a) => StftSignal::Real(place(a, &shape, target)?),
            StftSignal::Complex(a) => StftSignal::Complex(place(a, &shape, target)?),
        })
    }
}

fn to_c<C: FftComplex>(z: c64) -> C {
    C::from_c64(z)
}

/// The value at signal position `i` of `x` padded as `np.pad` pads the crop `x[i0..i0+lc]`
/// (mirrors `padval` in shortfft.cu).
fn padval(x: &[c64], i0: i64, lc: i64, pad: i32, i: i64) -> c64 {
    let u = i - i0;
    if u >= 0 && u < lc {
        return x[i as usize];
    }
    if pad == 0 || lc == 0 {
        return c64::new(0.0, 0.0);
    }
    if pad == 1 || lc == 1 {
        return x[(i0 + if u < 0 { 0 } else { lc - 1 }) as usize];
    }
    let p = lc - 1;
    let k = fdiv(u, 2 * p);
    let w = u - k * 2 * p;
    let at = |j: i64| x[(i0 + j) as usize];
    if pad == 2 {
        return at(if w <= p { w } else { 2 * p - w });
    }
    let (c0, cp) = (at(0), at(p));
    let v = if w <= p {
        at(w)
    } else {
        cp * 2.0 - at(2 * p - w)
    };
    v + (cp - c0) * (2.0 * k as f64)
}

/// The short-time Fourier kernels (`shortfft.cu`) for a real type (complex data as pairs).
pub(crate) static SHORTFFT: KernelModule = KernelModule {
    name: "signal_shortfft",
    source: |s| typed_source("signal_shortfft", s, &[], SRC),
    options: &[],
    samples: || each_dtype(&REAL_DTYPES),
};

/// The kernel `name` of [`SHORTFFT`] for the real type `T`.
fn kernel_fn<T: Element>(d: &CudaDevice, name: &str) -> Result<Function> {
    typed_kernel(&SHORTFFT, d, T::DTYPE, name)
}
