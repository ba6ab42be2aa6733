//! The GPU side of the IIR filters (`iir.cu`): one thread per signal, the chunked scan of the
//! filter state for few long signals, and the block-tiled scan ([`tile_plan`]) for many long
//! contiguous signals.

use super::form::Iir;
use crate::procutil::{zero_literal, SignalScalar};
use cusci_core::{
    c64, Array, CudaDevice, DType, DevPtr, DevPtrMut, Element, Function, KernelModule,
    LaunchConfig, Result, Spec,
};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const SRC: &str = include_str!("iir.cu");

/// The IIR kernels (`iir.cu`) for one element type, specialised by `[sos, ns, tb, tl]`: the
/// form, the state count, and for the block-tiled kernel its block size and chunk length
/// (`tb = 0`: the chunked scan, the source's defaults).
pub(crate) static IIR: KernelModule = KernelModule {
    name: "signal_iir",
    source: iir_source,
    options: &[],
    samples: iir_samples,
};

/// The kernels' name prefix (`NAME(x)`) for a specialisation of [`IIR`].
fn iir_prefix(s: &Spec) -> Result<String> {
    let kind = if s.int(0)? != 0 { "sosfilt" } else { "lfilter" };
    Ok(format!(
        "signal_{kind}_{}_ns{}",
        s.dtype(0)?.tag(),
        s.int(1)?
    ))
}

fn iir_source(s: &Spec) -> Result<String> {
    let t = s.dtype(0)?;
    let (tb, tl) = (s.int(2)?, s.int(3)?);
    let tiles = if tb > 0 {
        format!("#define TB {tb}\n#define TL {tl}\n")
    } else {
        String::new()
    };
    Ok(format!(
        "{tiles}#define T {}\n#define TZERO {}\n#define NS {}\n#define SOS {}\n#define NAME(x) {}_##x\n{SRC}",
        t.cuda_name(),
        zero_literal(t),
        s.int(1)?,
        s.int(0)?,
        iir_prefix(s)?
    ))
}

/// One module per form and type, a second state count for f64 (the code paths are the same for
/// every count: NS only sizes the unrolled loops), and the tiled kernel at two block shapes.
fn iir_samples() -> Vec<Spec> {
    let spec = |t: DType, sos: bool, ns: i64, tb: i64, tl: i64| {
        Spec::of(&[t]).with(&[sos as i64, ns, tb, tl])
    };
    vec![
        spec(DType::F32, false, 8, 0, 0),
        spec(DType::F64, false, 1, 0, 0),
        spec(DType::F64, false, 8, 0, 0),
        spec(DType::C32, false, 2, 0, 0),
        spec(DType::C64, false, 4, 0, 0),
        spec(DType::F32, true, 16, 0, 0),
        spec(DType::F64, true, 2, 0, 0),
        spec(DType::C64, true, 4, 0, 0),
        spec(DType::F64, false, 8, 128, 128),
        spec(DType::C64, true, 16, 128, 32),
    ]
}

/// The kernel `name` of [`IIR`] for `iir` (`tiles`: the tiled kernel's `(TB, TL)`).
fn iir_kernel<T: SignalScalar>(
    d: &CudaDevice,
    iir: &Iir<T>,
    tiles: Option<(usize, usize)>,
    name: &str,
) -> Result<Function> {
    let (tb, tl) = tiles.unwrap_or((0, 0));
    let sos = matches!(iir, Iir::Sos { .. });
    let spec = Spec::of(&[T::DTYPE]).with(&[sos as i64, iir.states() as i64, tb as i64, tl as i64]);
    IIR.function(d, &spec, &format!("{}_{name}", iir_prefix(&spec)?))
}

/// A double-double number `hi + lo` (about 106 significant bits).
#[derive(Clone, Copy, Debug)]
struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    fn new(v: f64) -> Dd {
        Dd { hi: v, lo: 0.0 }
    }
    fn renorm(s: f64, e: f64) -> Dd {
        let hi = s + e;
        Dd {
            hi,
            lo: e - (hi - s),
        }
    }
    fn add(self, o: Dd) -> Dd {
        // two-sum of the high parts, then the low parts
        let s = self.hi + o.hi;
        let bb = s - self.hi;
        let e = (self.hi - (s - bb)) + (o.hi - bb);
        Dd::renorm(s, e + self.lo + o.lo)
    }
    fn mul(self, o: Dd) -> Dd {
        // two-product through the fused multiply-add
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p);
        Dd::renorm(p, e + self.hi * o.lo + self.lo * o.hi)
    }
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

/// The powers `m^(2^lv)`, lv = 0 .. levels (`n x n` row-major, concatenated), by repeated
/// squaring in double-double arithmetic, each rounded to `T` once. The maps of the scans grow
/// before they decay (the ba form of butter(8, 0.1): entries up to 4e4), so squaring rounded
/// powers cancels: `M^256 = (M^128)^2` with entries of 50 summing to 0.02 loses ~eps * 50^2 to
/// rounding per entry, more than the tiled scan's own rounding (in the kernel's check, 6e-10
/// of the output's scale against 1e-10 with these powers).
fn accurate_powers<T: Element>(m: &[T], n: usize, levels: usize) -> Vec<T> {
    let complex = m.iter().any(|v| v.to_c64().im != 0.0);
    let mut re: Vec<Dd> = m.iter().map(|v| Dd::new(v.to_c64().re)).collect();
    let mut im: Vec<Dd> = m.iter().map(|v| Dd::new(v.to_c64().im)).collect();
    let mut out = Vec::with_capacity(levels * n * n);
    for lv in 0..levels {
        out.extend(
            re.iter()
                .zip(&im)
                .map(|(r, i)| T::from_c64(cusci_core::c64::new(r.hi + r.lo, i.hi + i.lo))),
        );
        if lv + 1 == levels {
            break;
        }
        let zero = Dd::new(0.0);
        let (mut r2, mut i2) = (vec![zero; n * n], vec![zero; n * n]);
        for i in 0..n {
            for k in 0..n {
                let (ar, ai) = (re[i * n + k], im[i * n + k]);
                for j in 0..n {
                    let (br, bi) = (re[k * n + j], im[k * n + j]);
                    r2[i * n + j] = r2[i * n + j].add(ar.mul(br));
                    if complex {
                        r2[i * n + j] = r2[i * n + j].add(ai.mul(bi).neg());
                        i2[i * n + j] = i2[i * n + j].add(ar.mul(bi)).add(ai.mul(br));
                    }
                }
            }
        }
        re = r2;
        im = i2;
    }
    out
}

/// Chunks of one carry group in the two-level scan.
const GROUP: usize = 256;

/// The operands of a GPU run: the signals of `x` filtered into `y`, from the initial states
/// `zi` (user layout) when given, writing the final states to `zf` when given.
pub(super) struct IirIo<'a, T: Element> {
    pub(super) x: &'a Array<T>,
    pub(super) y: &'a mut Array<T>,
    pub(super) zi: Option<&'a Array<T>>,
    pub(super) zf: Option<&'a mut Array<T>>,
}

/// One launch of the `chunks` kernel: its pointers (`y` absent in the first pass of the chunked
/// scan, `zin`/`zout` absent where their mode is 0) and the state modes (see `iir.cu`).
struct ChunkPass<'a, T> {
    x: DevPtr<'a, T>,
    y: Option<DevPtr<'a, T>>,
    coef: DevPtr<'a, T>,
    zin: Option<DevPtr<'a, T>>,
    zin_mode: i32,
    zout: Option<DevPtr<'a, T>>,
    zout_mode: i32,
}

fn launch_chunks<T>(
    d: &CudaDevice,
    f: &Function,
    p: ChunkPass<'_, T>,
    geo: (usize, usize, usize),
    l: usize,
    nchunks: usize,
) -> Result<()> {
    let (outer, n, inner) = geo;
    let total = outer * inner * nchunks;
    d.launch(f, LaunchConfig::cover(total, 128)?)
        .arg(p.x)
        .arg(p.y)
        .arg(p.coef)
        .arg(p.zin)
        .arg(p.zin_mode)
        .arg(p.zout)
        .arg(p.zout_mode)
        .arg(outer as i64)
        .arg(n as i64)
        .arg(inner as i64)
        .arg(l as i64)
        .arg(nchunks as i64)
        .run()
}

/// One launch of the `scan` kernel: the carry `out = P out_prev + f` over `nitems` items of
/// `nsig` signals in groups of `g` (see `iir.cu` for `mode`), from `init` when given.
struct ScanPass<'a, T> {
    f: DevPtr<'a, T>,
    p: DevPtr<'a, T>,
    init: Option<DevPtr<'a, T>>,
    out: DevPtr<'a, T>,
    mode: i32,
    nsig: usize,
    nitems: usize,
    g: usize,
}

fn launch_scan<T>(d: &CudaDevice, f: &Function, s: ScanPass<'_, T>) -> Result<()> {
    let total = s.nsig * s.nitems.div_ceil(s.g);
    d.launch(f, LaunchConfig::cover(total, 128)?)
        .arg(s.f)
        .arg(s.p)
        .arg(s.init)
        .arg(s.out)
        .arg(s.mode)
        .arg(s.nsig as i64)
        .arg(s.nitems as i64)
        .arg(s.g as i64)
        .run()
}

/// The block size, chunk length and zero-input maps `(TB, TL, maps)` of the block-tiled kernel
/// (`tiles` in `iir.cu`, the maps of [`tile_maps`]),
/// or `None` when the chunked scan of [`gpu_chunking`] serves better: contiguous signals
/// (`inner == 1`), enough of them to give every multiprocessor a block or two, long enough to
/// fill tiles.
///
/// The chunk length is the shortest of 32, 64, 128, 256 whose carry stays accurate. The scan
/// combines chunk states as `F_j = f_j + P F_(j-d)` through the zero-input maps
/// `P = M^(TL 2^lv)`, lv < log2(TB); each product rounds with an error of about
/// `eps * sum_k |P_rk| |F_k|` in state r, which the refiltering then carries into the output as
/// the serial recurrence carries its own rounding. Relative to the size `sigma_r` of the state
/// itself (the largest magnitude it reaches in the impulse response) that is `eps * G` with
/// `G = max_lv max_r sum_k |P_rk| sigma_k / sigma_r` ([`carry_growth`]). A short chunk leaves
/// the maps undecayed (butter(8, 0.1) in ba form: `G` = 4.6e4, 5.7e3, 57, 0.05 for TL = 32,
/// 64, 128, 256) and the output error grows with `G`: 1.7e-7, 2.2e-8, 1.1e-10, 7e-11 of the
/// output's scale against SciPy in a CPU emulation of the kernel (the serial recurrence itself:
/// 1e-11; CuPy's lfilter: 3.5e-7). The maps' powers are squared in double-double
/// ([`accurate_powers`]): squared in f64 they cancel, and the same kernel measured 8e-4, 3e-6,
/// 6e-10, 7e-11 on an H200. `G <= 64` keeps f64 within a few 1e-10 of the serial result;
/// sections scale their states well (butter(8, 0.1) as sos: `G` = 2.4 at TL = 32, error
/// 5e-15). Filters with `G > 64` at every chunk length take the chunked scan. The block size
/// is the fastest measured for the chunk length (H200, 256 x 65536 f64: TL 32 -> 256 threads,
/// 64 and 128 -> 128, 256 -> 32), halved while the shared memory exceeds 160 KiB.
pub(crate) fn tile_plan<T: SignalScalar>(
    iir: &Iir<T>,
    nsig: usize,
    n: usize,
    inner: usize,
) -> Option<(usize, usize, Vec<T>)> {
    let ns = iir.states();
    if inner != 1 || !(128..1 << 16).contains(&nsig) || n < 4096 || ns > 32 {
        return None;
    }
    carry_plan(iir)
}

/// A filter as a cache key: the element type, the form and the coefficients' bits.
type PlanKey = (&'static str, bool, Vec<u64>);

/// A cached [`carry_plan`], its maps held as complex128 (exact for every element type).
type CachedPlan = Option<(usize, usize, Vec<c64>)>;

/// The carry part of [`tile_plan`], which depends on the filter and the element type alone:
/// `(TB, TL)` and the maps of [`tile_maps`] for them, or `None` when no chunk length keeps the
/// carry accurate. Cached per filter (64 filters at most): the impulse response and the
/// double-double powers cost 0.1-0.2 ms of host time per call otherwise, a third of the
/// kernel's time for 256 x 65536 samples, and pipelines filter batch after batch with one filter.
fn carry_plan<T: SignalScalar>(iir: &Iir<T>) -> Option<(usize, usize, Vec<T>)> {
    static CACHE: OnceLock<Mutex<HashMap<PlanKey, CachedPlan>>> = OnceLock::new();
    let (c, sos) = match iir {
        Iir::Ba { c, .. } => (c, false),
        Iir::Sos { c, .. } => (c, true),
    };
    let bits = c
        .iter()
        .flat_map(|v| {
            let z = v.to_c64();
            [z.re.to_bits(), z.im.to_bits()]
        })
        .collect();
    let key = (T::DTYPE.tag(), sos, bits);
    let cache = CACHE.get_or_init(Default::default);
    let from = |v: &CachedPlan| {
        v.as_ref()
            .map(|(tb, tl, m)| (*tb, *tl, m.iter().map(|&z| T::from_c64(z)).collect()))
    };
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return from(v);
    }
    let plan = search_carry_plan(iir);
    let stored = plan
        .as_ref()
        .map(|(tb, tl, m)| (*tb, *tl, m.iter().map(|v| v.to_c64()).collect()));
    let mut g = cache.lock().unwrap_or_else(|e| e.into_inner());
    if g.len() >= 64 {
        g.clear();
    }
    g.insert(key, stored);
    plan
}

/// [`carry_plan`] without the cache: the shortest chunk length whose carry growth is accepted.
fn search_carry_plan<T: SignalScalar>(iir: &Iir<T>) -> Option<(usize, usize, Vec<T>)> {
    let ns = iir.states();
    let sigma = state_scales(iir);
    for tl in [32usize, 64, 128, 256] {
        let mut tb = match tl {
            32 => 256,
            64 | 128 => 128,
            _ => 32,
        };
        while tile_smem::<T>(ns, tb, tl) > 160 * 1024 && tb > 32 {
            tb /= 2;
        }
        if tile_smem::<T>(ns, tb, tl) > 160 * 1024 {
            return None;
        }
        let maps = tile_maps(iir, tb, tl);
        if carry_growth(&maps, ns, &sigma) <= MAX_CARRY_GROWTH {
            return Some((tb, tl, maps));
        }
    }
    None
}

/// The largest carry growth `G` of [`tile_plan`] that the tiled scan accepts.
const MAX_CARRY_GROWTH: f64 = 64.0;

/// The magnitude of `v` in f64.
fn mag<T: Element>(v: T) -> f64 {
    let c = v.to_c64();
    c.re.hypot(c.im)
}

/// The size of every state: the largest magnitude it reaches in the impulse response (4096
/// samples, or until every state has fallen below 1e-20 of the largest magnitude seen: a stable
/// map's transient growth, 1e9 at most among the filters the plan accepts, cannot lift such a
/// state back to the floor), floored at 1e-6 of the largest (a state the input barely reaches
/// is treated as small, which can only make [`carry_growth`] larger). Squared magnitudes are
/// compared inside the loop: this runs on the host before every tiled launch (hypot per state
/// and sample cost 0.3 ms for butter(8, 0.1), as much as the kernel).
fn state_scales<T: SignalScalar>(iir: &Iir<T>) -> Vec<f64> {
    let ns = iir.states();
    let mut z = vec![T::zero(); ns];
    let mut s2 = vec![0.0f64; ns];
    let mut top2 = 0.0f64;
    for t in 0..4096 {
        iir.step(&mut z, if t == 0 { T::one() } else { T::zero() });
        let mut now2 = 0.0f64;
        for (sk, zk) in s2.iter_mut().zip(&z) {
            let c = zk.to_c64();
            let m2 = c.re * c.re + c.im * c.im;
            *sk = sk.max(m2);
            now2 = now2.max(m2);
        }
        top2 = top2.max(now2);
        if t >= 64 && now2 <= top2 * 1e-40 {
            break;
        }
    }
    let s: Vec<f64> = s2.iter().map(|v| v.sqrt()).collect();
    let top = s.iter().fold(0.0f64, |m, &v| m.max(v));
    let floor = if top > 0.0 && top.is_finite() {
        top * 1e-6
    } else {
        1.0
    };
    s.iter().map(|&v| v.max(floor)).collect()
}

/// `max_lv max_r sum_k |P_rk| sigma_k / sigma_r` over the maps `P` of [`tile_maps`] (infinite
/// when an entry is not finite).
fn carry_growth<T: Element>(maps: &[T], ns: usize, sigma: &[f64]) -> f64 {
    let mut g = 0.0f64;
    for p in maps.chunks(ns * ns) {
        for r in 0..ns {
            let mut acc = 0.0;
            for k in 0..ns {
                acc += mag(p[r * ns + k]) * sigma[k];
            }
            let v = acc / sigma[r];
            if !v.is_finite() {
                return f64::INFINITY;
            }
            g = g.max(v);
        }
    }
    g
}

/// The zero-input maps of the tiled scan, `M^(TL 2^lv)` for lv = 0 .. log2(TB), each `ns x ns`
/// row-major, concatenated: `M^TL` by stepping the recurrence in `T`, its powers by
/// [`accurate_powers`].
fn tile_maps<T: SignalScalar>(iir: &Iir<T>, tb: usize, tl: usize) -> Vec<T> {
    let ns = iir.states();
    accurate_powers(&iir.zero_input_map(tl), ns, tb.trailing_zeros() as usize)
}

/// Dynamic shared memory of the block-tiled kernel: the tile (with one pad sample per chunk),
/// the chunk states, the zero-input maps.
fn tile_smem<T: Element>(ns: usize, tb: usize, tl: usize) -> usize {
    (tb * (tl + 1) + ns * tb + tb.trailing_zeros() as usize * ns * ns) * std::mem::size_of::<T>()
}

/// The block-tiled kernel: one block per signal (see `tiles` in `iir.cu`).
fn cuda_tiles<T: SignalScalar>(
    d: &CudaDevice,
    iir: &Iir<T>,
    io: IirIo<'_, T>,
    (nsig, n): (usize, usize),
    (tb, tl, mats): (usize, usize, Vec<T>),
) -> Result<()> {
    let dev = io.x.device();
    let ns = iir.states();
    let f = iir_kernel(d, iir, Some((tb, tl)), "tiles")?;
    let coefs = match iir {
        Iir::Ba { c, .. } | Iir::Sos { c, .. } => c.clone(),
    };
    let ncoef = coefs.len();
    let coef = Array::from_vec(coefs, &[ncoef], dev)?;
    // the zero-input maps over TL * 2^lv samples, lv = 0 .. log2(TB)
    let nmats = tb.trailing_zeros() as usize;
    let mdev = Array::from_vec(mats, &[nmats * ns * ns], dev)?;
    let zf_mode = io.zf.is_some() as i32;
    let zout = io.zf.map(|z| z.dev_ptr_mut()).transpose()?;
    let mut cfg = LaunchConfig::linear(nsig as u32, tb as u32);
    cfg.shared_mem_bytes = tile_smem::<T>(ns, tb, tl) as u32;
    d.launch(&f, cfg)
        .arg(io.x.dev_ptr()?)
        .arg(io.y.dev_ptr_mut()?)
        .arg(coef.dev_ptr()?)
        .arg(io.zi.map(Array::dev_ptr).transpose()?)
        .arg(io.zi.is_some() as i32)
        .arg(zout)
        .arg(zf_mode)
        .arg(nsig as i64)
        .arg(n as i64)
        .arg(mdev.dev_ptr()?)
        .arg(nmats as i32)
        .run()
}

/// The number of chunks per signal of the GPU scan (1: one thread per signal).
pub(crate) fn gpu_chunking(ns: usize, nsig: usize, n: usize) -> (usize, usize) {
    if ns > 32 || n < 512 || nsig >= 1 << 16 {
        return (n.max(1), 1);
    }
    let target = (1usize << 17).div_ceil(nsig);
    let l = n.div_ceil(target).max(64).max(n.div_ceil(GROUP * GROUP));
    (l, n.div_ceil(l))
}

pub(super) fn cuda_apply<T: SignalScalar>(
    d: &CudaDevice,
    iir: &Iir<T>,
    io: IirIo<'_, T>,
    geo: (usize, usize, usize),
) -> Result<()> {
    let (outer, n, inner) = geo;
    // an H200 check of the tiled kernel read back wrong final states when the length is not a
    // whole number of tiles (y right everywhere), although a CPU emulation of the kernel gives
    // SciPy's zf: until that is settled, calls that ask for zf keep the chunked scan below
    if io.zf.is_none() {
        if let Some(plan) = tile_plan(iir, outer * inner, n, inner) {
            return cuda_tiles(d, iir, io, (outer * inner, n), plan);
        }
    }
    let dev = io.x.device();
    let ns = iir.states();
    let chunks = iir_kernel(d, iir, None, "chunks")?;
    let coefs = match iir {
        Iir::Ba { c, .. } | Iir::Sos { c, .. } => c.clone(),
    };
    let ncoef = coefs.len();
    let coef = Array::from_vec(coefs, &[ncoef], dev)?;
    let nsig = outer * inner;
    let (l, nchunks) = gpu_chunking(ns, nsig, n);
    let zi = io.zi;
    let zin = zi.map(Array::dev_ptr).transpose()?;
    let zf_mode = io.zf.is_some() as i32;
    let zout = io.zf.map(|z| z.dev_ptr_mut()).transpose()?;
    let zout = zout.as_ref().map(DevPtrMut::as_ptr);
    let (xp, cp) = (io.x.dev_ptr()?, coef.dev_ptr()?);
    let yp = io.y.dev_ptr_mut()?;
    if nchunks == 1 {
        let pass = ChunkPass {
            x: xp,
            y: Some(yp.as_ptr()),
            coef: cp,
            zin,
            zin_mode: zi.is_some() as i32,
            zout,
            zout_mode: zf_mode,
        };
        return launch_chunks(d, &chunks, pass, geo, l, 1);
    }
    let scan = iir_kernel(d, iir, None, "scan")?;
    // pass 1: the final state of every chunk from a zero state
    let mut fbuf = Array::<T>::empty(&[nchunks * nsig * ns], dev)?;
    let fout = fbuf.dev_ptr_mut()?;
    let pass1 = ChunkPass {
        x: xp,
        y: None,
        coef: cp,
        zin: None,
        zin_mode: 0,
        zout: Some(fout.as_ptr()),
        zout_mode: 2,
    };
    launch_chunks(d, &chunks, pass1, geo, l, nchunks)?;
    // the initial states of the signals, internal layout
    let z0 = match zi {
        Some(z) => {
            let g = iir_kernel(d, iir, None, "zi_gather")?;
            let mut buf = Array::<T>::empty(&[nsig * ns], dev)?;
            d.launch(&g, LaunchConfig::cover(nsig, 128)?)
                .arg(z.dev_ptr()?)
                .arg(buf.dev_ptr_mut()?)
                .arg(outer as i64)
                .arg(inner as i64)
                .run()?;
            Some(buf)
        }
        None => None,
    };
    let z0p = z0.as_ref().map(Array::dev_ptr).transpose()?;
    let m = iir.zero_input_map(l);
    let mdev = Array::from_vec(m.clone(), &[ns * ns], dev)?;
    let mut cs = Array::<T>::empty(&[nchunks * nsig * ns], dev)?;
    let (fp, mp) = (fbuf.dev_ptr()?, mdev.dev_ptr()?);
    if nchunks <= GROUP {
        let out = cs.dev_ptr_mut()?;
        let scan1 = ScanPass {
            f: fp,
            p: mp,
            init: z0p,
            out: out.as_ptr(),
            mode: 0,
            nsig,
            nitems: nchunks,
            g: nchunks,
        };
        launch_scan(d, &scan, scan1)?;
    } else {
        let ngroups = nchunks.div_ceil(GROUP);
        let lv = GROUP.trailing_zeros() as usize;
        let mg = accurate_powers(&m, ns, lv + 1).split_off(lv * ns * ns);
        let mgdev = Array::from_vec(mg, &[ns * ns], dev)?;
        let mut gf = Array::<T>::empty(&[ngroups * nsig * ns], dev)?;
        let mut gs = Array::<T>::empty(&[ngroups * nsig * ns], dev)?;
        let gf_out = gf.dev_ptr_mut()?;
        let per_group = ScanPass {
            f: fp,
            p: mp,
            init: None,
            out: gf_out.as_ptr(),
            mode: 1,
            nsig,
            nitems: nchunks,
            g: GROUP,
        };
        launch_scan(d, &scan, per_group)?;
        let gs_out = gs.dev_ptr_mut()?;
        let groups = ScanPass {
            f: gf.dev_ptr()?,
            p: mgdev.dev_ptr()?,
            init: z0p,
            out: gs_out.as_ptr(),
            mode: 0,
            nsig,
            nitems: ngroups,
            g: ngroups,
        };
        launch_scan(d, &scan, groups)?;
        let cs_out = cs.dev_ptr_mut()?;
        let within = ScanPass {
            f: fp,
            p: mp,
            init: Some(gs.dev_ptr()?),
            out: cs_out.as_ptr(),
            mode: 0,
            nsig,
            nitems: nchunks,
            g: GROUP,
        };
        launch_scan(d, &scan, within)?;
    }
    // pass 2: every chunk from its true initial state
    let pass2 = ChunkPass {
        x: xp,
        y: Some(yp.as_ptr()),
        coef: cp,
        zin: Some(cs.dev_ptr()?),
        zin_mode: 2,
        zout,
        zout_mode: zf_mode,
    };
    launch_chunks(d, &chunks, pass2, geo, l, nchunks)
}

#[cfg(test)]
mod tests {
    use super::super::form::{ba_filter, sos_filter};
    use super::*;
    use crate::{butter, IirOptions, Output};
    use cusci_core::Device;

    fn ba(order: usize, wn: f64) -> Iir<f64> {
        let f = butter(order, &[wn], &IirOptions::default())
            .unwrap()
            .into_ba()
            .unwrap();
        ba_filter("test", &f.b, &f.a).unwrap().0
    }

    fn sos(order: usize, wn: f64) -> Iir<f64> {
        let opts = IirOptions {
            output: Output::Sos,
            ..Default::default()
        };
        let s = butter(order, &[wn], &opts).unwrap().into_sos().unwrap();
        let flat: Vec<f64> = s.iter().flatten().copied().collect();
        let a = Array::from_vec(flat, &[s.len(), 6], &Device::cpu()).unwrap();
        sos_filter("test", &a).unwrap()
    }

    /// The carry growth against a direct evaluation: the ba form's zero-input map is the
    /// companion-like matrix `A` (column 0: -a[1..], superdiagonal 1), its powers by repeated
    /// multiplication, the state scales from the impulse response.
    #[test]
    fn carry_growth_matches_direct_evaluation() {
        let f = ba(8, 0.1);
        let Iir::Ba { c, ns } = &f else {
            unreachable!()
        };
        let ns = *ns;
        let mut a = vec![0.0; ns * ns];
        for r in 0..ns {
            a[r * ns] = -c[ns + 2 + r];
            if r + 1 < ns {
                a[r * ns + r + 1] = 1.0;
            }
        }
        let sigma = state_scales(&f);
        for (tl, lo, hi) in [
            (32, 2e4, 1e5),
            (64, 2e3, 2e4),
            (128, 20.0, 64.0),
            (256, 0.0, 1.0),
        ] {
            let tb = 8;
            let got = carry_growth(&tile_maps(&f, tb, tl), ns, &sigma);
            // M^(tl 2^lv) by tl 2^lv multiplications with A
            let mut p = vec![0.0; ns * ns];
            (0..ns).for_each(|i| p[i * ns + i] = 1.0);
            let mut want = 0.0f64;
            for step in 1..=tl * tb / 2 {
                let mut q = vec![0.0; ns * ns];
                for i in 0..ns {
                    for k in 0..ns {
                        for j in 0..ns {
                            q[i * ns + j] += a[i * ns + k] * p[k * ns + j];
                        }
                    }
                }
                p = q;
                if step % tl == 0 && (step / tl).is_power_of_two() {
                    for r in 0..ns {
                        let s: f64 = (0..ns).map(|k| p[r * ns + k].abs() * sigma[k]).sum();
                        want = want.max(s / sigma[r]);
                    }
                }
            }
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-300) + 1e-12,
                "TL {tl}: {got} vs {want}"
            );
            assert!(got >= lo && got <= hi, "TL {tl}: growth {got}");
        }
    }

    /// The double-double powers against exact integer arithmetic: the Fibonacci matrix (real)
    /// and [[1+i, 1], [1, 0]] (complex), up to entries of 2^60 (beyond f64's 53 bits, so the
    /// results are the correctly rounded exact ones); and powers of a map that cancels.
    #[test]
    fn accurate_powers_are_exact_where_exact_is_known() {
        let p = accurate_powers(&[1.0f64, 1.0, 1.0, 0.0], 2, 7);
        let (mut a, mut b, mut c) = (1i128, 1i128, 0i128); // [[a, b], [b, c]]
        for lv in 0..7 {
            assert_eq!(
                &p[4 * lv..4 * lv + 4],
                &[a as f64, b as f64, b as f64, c as f64]
            );
            (a, b, c) = (a * a + b * b, a * b + b * c, b * b + c * c);
        }
        type G = (i128, i128);
        let mul = |x: G, y: G| (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0);
        let add = |x: G, y: G| (x.0 + y.0, x.1 + y.1);
        let m = [
            c64::new(1.0, 1.0),
            c64::new(1.0, 0.0),
            c64::new(1.0, 0.0),
            c64::new(0.0, 0.0),
        ];
        let p = accurate_powers(&m, 2, 6);
        let mut e: [G; 4] = [(1, 1), (1, 0), (1, 0), (0, 0)];
        for lv in 0..6 {
            for (got, want) in p[4 * lv..4 * lv + 4].iter().zip(&e) {
                assert_eq!(
                    (got.re, got.im),
                    (want.0 as f64, want.1 as f64),
                    "level {lv}"
                );
            }
            let mut n: [G; 4] = [(0, 0); 4];
            for i in 0..2 {
                for j in 0..2 {
                    n[2 * i + j] = add(mul(e[2 * i], e[j]), mul(e[2 * i + 1], e[2 + j]));
                }
            }
            e = n;
        }
        // butter(8, 0.1) in ba form, M^64 and its powers up to M^512: the double-double
        // squarings against repeated double-double multiplication by M^64 (another order, the
        // same exact powers), and f64 squarings, which lose to cancellation
        let f = ba(8, 0.1);
        let base = f.zero_input_map(64);
        let dd = accurate_powers(&base, 8, 4);
        let bd: Vec<Dd> = base.iter().map(|&v| Dd::new(v)).collect();
        let mut pw = bd.clone();
        let mut sq = base.clone();
        let (mut worst_dd, mut worst_sq) = (0.0f64, 0.0f64);
        for k in 1..=8usize {
            if k.is_power_of_two() {
                let lv = k.trailing_zeros() as usize;
                for (q, r) in pw.iter().enumerate() {
                    let want = r.hi + r.lo;
                    let tol = want.abs() * 4.5e-16 + 1e-300;
                    assert!(
                        (dd[64 * lv + q] - want).abs() <= tol,
                        "level {lv} entry {q}"
                    );
                    worst_dd = worst_dd.max((dd[64 * lv + q] - want).abs());
                    worst_sq = worst_sq.max((sq[q] - want).abs());
                }
                let mut s2 = vec![0.0f64; 64];
                for i in 0..8 {
                    for m in 0..8 {
                        for j in 0..8 {
                            s2[i * 8 + j] += sq[i * 8 + m] * sq[m * 8 + j];
                        }
                    }
                }
                sq = s2;
            }
            let mut nx = vec![Dd::new(0.0); 64];
            for i in 0..8 {
                for m in 0..8 {
                    for j in 0..8 {
                        nx[i * 8 + j] = nx[i * 8 + j].add(pw[i * 8 + m].mul(bd[m * 8 + j]));
                    }
                }
            }
            pw = nx;
        }
        assert!(worst_sq > 1e3 * worst_dd, "{worst_sq} vs {worst_dd}");
    }

    /// The plans of the measured cases (H200, 256 x 65536 f64): the ba form of butter(8, 0.1)
    /// needs 128-sample chunks, its sections 32; well-damped filters take 32; complex128 halves
    /// the block for shared memory; filters that never decay enough, strided signals, too few
    /// or too short signals take the chunked scan.
    #[test]
    fn tile_plans() {
        fn plan_of<T: SignalScalar>(
            f: &Iir<T>,
            nsig: usize,
            n: usize,
            inner: usize,
        ) -> Option<(usize, usize)> {
            tile_plan(f, nsig, n, inner).map(|(tb, tl, _)| (tb, tl))
        }
        assert_eq!(plan_of(&ba(8, 0.1), 256, 65536, 1), Some((128, 128)));
        assert_eq!(plan_of(&sos(8, 0.1), 256, 65536, 1), Some((256, 32)));
        assert_eq!(plan_of(&ba(4, 0.15), 128, 4096, 1), Some((256, 32)));
        assert_eq!(plan_of(&ba(6, 0.1), 128, 4096, 1), Some((128, 64)));
        assert_eq!(plan_of(&sos(6, 0.1), 128, 4096, 1), Some((256, 32)));
        // ba butter(8, 0.02): the rounded polynomial's map grows (1e9 over 128 samples)
        assert_eq!(plan_of(&ba(8, 0.02), 256, 65536, 1), None);
        assert_eq!(plan_of(&ba(8, 0.1), 256, 65536, 3), None);
        assert_eq!(plan_of(&ba(8, 0.1), 127, 65536, 1), None);
        assert_eq!(plan_of(&ba(8, 0.1), 256, 4095, 1), None);
        // complex128: 128 x 129 samples of 16 bytes exceed 160 KiB; 64 threads fit
        let Iir::Ba { c, ns } = ba(8, 0.1) else {
            unreachable!()
        };
        let cc = Iir::Ba {
            c: c.iter().map(|&v| c64::new(v, 0.0)).collect(),
            ns,
        };
        assert_eq!(plan_of(&cc, 256, 65536, 1), Some((64, 128)));
        // and 256 x 33 samples of 16 bytes too: the sections' 32-sample chunks take 128 threads
        let Iir::Sos { c, nsec } = sos(8, 0.1) else {
            unreachable!()
        };
        let cs = Iir::Sos {
            c: c.iter().map(|&v| c64::new(v, 0.0)).collect(),
            nsec,
        };
        assert_eq!(plan_of(&cs, 256, 65536, 1), Some((128, 32)));
    }
}
