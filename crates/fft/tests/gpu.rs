//! The GPU against the CPU reference: every transform, dtype, norm and axis choice, strided and
//! batched inputs, the same errors on both devices, the cuFFT plan cache; and the kernels
//! compile (with NVRTC, without a GPU).
//!
//! Tolerances: an FFT of `n` points has errors near `ε·log2(n)` relative to the largest output,
//! so results are compared with `|gpu − cpu| ≤ tol·(|cpu| + max|cpu|)`, `tol =
//! 4·rtol_for::<T>(n)` (f32: 1.6e-5·(1+log2 n), f64: 4e-14·(1+log2 n)); the DCT/DST use the same
//! with their FFT length.
//!
//! Without a GPU the GPU half is skipped (with a note); `CUSCI_REQUIRE_GPU=1` makes that a failure.

use cusci_core::testing::{assert_slices_close, compile_modules, gpu, randn, rtol_for};
use cusci_core::{c32, c64, Array, Device, Element, Result};
use cusci_fft::*;

/// The tests of this binary run one at a time: the plan-cache tests count the cache's hits and
/// misses, which tests running beside them on the same device would change.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];

/// Compares a GPU result with the CPU's (see the module documentation).
fn close<T: Element>(g: &Array<T>, c: &Array<T>, n: usize, ctx: &str) {
    assert_eq!(g.shape(), c.shape(), "{ctx}: shapes");
    assert!(g.device().is_cuda(), "{ctx}: result left the GPU");
    let gv = g.to_vec().unwrap();
    let cv = c.to_vec().unwrap();
    let tol = 4.0 * rtol_for::<T>(n);
    let max = cv.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
    assert_slices_close(&gv, &cv, c.shape(), tol, tol * max.max(1e-300), ctx);
}

/// `f` on the CPU input and on its copy on the GPU; the results compared.
fn both<X: Element, Y: Element>(
    x: &Array<X>,
    n: usize,
    ctx: &str,
    f: impl Fn(&Array<X>) -> Result<Array<Y>>,
) {
    let Some(g) = gpu() else { return };
    let c = f(x).unwrap_or_else(|e| panic!("{ctx}: cpu: {e}"));
    let xg = x.to_device(&g).unwrap();
    let r = f(&xg).unwrap_or_else(|e| panic!("{ctx}: gpu: {e}"));
    close(&r, &c, n, ctx);
}

/// The same error (variant and message) on both devices.
fn same_err<X: Element, Y: Element>(
    x: &Array<X>,
    ctx: &str,
    f: impl Fn(&Array<X>) -> Result<Array<Y>>,
) {
    let c = f(x)
        .err()
        .unwrap_or_else(|| panic!("{ctx}: the CPU accepted it"));
    let Some(g) = gpu() else { return };
    let e = f(&x.to_device(&g).unwrap())
        .err()
        .unwrap_or_else(|| panic!("{ctx}: the GPU accepted it"));
    assert_eq!(c, e, "{ctx}");
}

fn cpu() -> Device {
    Device::cpu()
}

fn o1(n: Option<usize>, axis: isize, norm: Norm) -> FftOptions {
    FftOptions {
        n,
        axis,
        norm,
        plan: None,
    }
}

const SIZES: [usize; 9] = [1, 2, 3, 31, 32, 33, 257, 1009, 4096];

#[test]
fn kernels_compile() {
    let _serial = serial();
    let Some(failed) = compile_modules(&kernel_modules(), "compute_90") else {
        return;
    };
    assert!(
        failed.is_empty(),
        "kernels that do not compile:\n{}",
        failed.join("\n")
    );
}

#[test]
fn c2c_1d_every_size_dtype_norm() {
    let _serial = serial();
    for &n in &SIZES {
        let xc = randn::<c64>(&[3, n], n as u64, &cpu()).unwrap();
        let x32 = randn::<c32>(&[3, n], n as u64 + 1, &cpu()).unwrap();
        let xr = randn::<f64>(&[2, n], n as u64 + 2, &cpu()).unwrap();
        let xr32 = randn::<f32>(&[2, n], n as u64 + 3, &cpu()).unwrap();
        for norm in NORMS {
            let o = o1(None, -1, norm);
            both(&xc, n, &format!("fft c64 n={n} {norm:?}"), |x| fft(x, &o));
            both(&xc, n, &format!("ifft c64 n={n} {norm:?}"), |x| ifft(x, &o));
            both(&x32, n, &format!("fft c32 n={n} {norm:?}"), |x| fft(x, &o));
            both(&x32, n, &format!("ifft c32 n={n} {norm:?}"), |x| {
                ifft(x, &o)
            });
            both(&xr, n, &format!("fft f64 n={n} {norm:?}"), |x| fft(x, &o));
            both(&xr32, n, &format!("ifft f32 n={n} {norm:?}"), |x| {
                ifft(x, &o)
            });
        }
    }
}

#[test]
fn c2c_axes_not_last_pad_cut_views() {
    let _serial = serial();
    let x = randn::<c64>(&[5, 33, 7], 11, &cpu()).unwrap();
    let x32 = randn::<c32>(&[5, 33, 7], 12, &cpu()).unwrap();
    for axis in [0isize, 1, 2, -2] {
        for n in [None, Some(1), Some(16), Some(40), Some(257)] {
            let o = o1(n, axis, Norm::Backward);
            let ctx = format!("fft c64 axis={axis} n={n:?}");
            both(&x, n.unwrap_or(33), &ctx, |x| fft(x, &o));
            both(
                &x32,
                n.unwrap_or(33),
                &format!("ifft c32 axis={axis} n={n:?}"),
                |x| ifft(x, &o),
            );
        }
    }
    // outer > inner and outer < inner on a middle axis (the two strided batch layouts)
    let tall = randn::<c64>(&[64, 31, 2], 13, &cpu()).unwrap();
    let wide = randn::<c64>(&[2, 31, 64], 14, &cpu()).unwrap();
    let o = o1(None, 1, Norm::Ortho);
    both(&tall, 31, "fft middle axis, outer > inner", |x| fft(x, &o));
    both(&wide, 31, "fft middle axis, outer < inner", |x| fft(x, &o));
    // non-contiguous views: a transpose and a stepped slice
    both(&x, 33, "fft of a transposed view", |x| {
        fft(&x.permute(&[2, 1, 0])?, &o1(None, 1, Norm::Backward))
    });
    both(&x, 33, "fft of a stepped slice", |x| {
        fft(
            &x.slice_axis(2, Some(1), Some(7), 2)?,
            &o1(None, 1, Norm::Backward),
        )
    });
}

#[test]
fn real_transforms_1d() {
    let _serial = serial();
    for &n in &SIZES {
        let x = randn::<f64>(&[3, n], 100 + n as u64, &cpu()).unwrap();
        let x32 = randn::<f32>(&[3, n], 200 + n as u64, &cpu()).unwrap();
        let h = n / 2 + 1;
        let s = randn::<c64>(&[3, h], 300 + n as u64, &cpu()).unwrap();
        let s32 = randn::<c32>(&[3, h], 400 + n as u64, &cpu()).unwrap();
        for norm in NORMS {
            let o = o1(None, -1, norm);
            let on = o1(Some(n), -1, norm);
            both(&x, n, &format!("rfft f64 n={n} {norm:?}"), |x| rfft(x, &o));
            both(&x32, n, &format!("rfft f32 n={n} {norm:?}"), |x| {
                rfft(x, &o)
            });
            both(&x, n, &format!("ihfft f64 n={n} {norm:?}"), |x| {
                ihfft(x, &o)
            });
            both(&s, n, &format!("irfft c64 n={n} {norm:?}"), |x| {
                irfft(x, &on)
            });
            both(&s32, n, &format!("irfft c32 n={n} {norm:?}"), |x| {
                irfft(x, &on)
            });
            both(&s, n, &format!("hfft c64 n={n} {norm:?}"), |x| hfft(x, &on));
        }
    }
    // axes not last, pad / cut, default n of irfft
    let x = randn::<f64>(&[9, 4, 6], 7, &cpu()).unwrap();
    let s = randn::<c64>(&[9, 4, 6], 8, &cpu()).unwrap();
    for axis in [0isize, 1, 2] {
        for n in [None, Some(5), Some(16)] {
            let o = o1(n, axis, Norm::Backward);
            both(&x, 16, &format!("rfft axis={axis} n={n:?}"), |x| {
                rfft(x, &o)
            });
            both(&s, 16, &format!("irfft axis={axis} n={n:?}"), |x| {
                irfft(x, &o)
            });
            both(
                &s.t(),
                16,
                &format!("irfft of a view axis={axis} n={n:?}"),
                |x| irfft(x, &o),
            );
        }
    }
}

#[test]
fn nd_transforms() {
    let _serial = serial();
    let x = randn::<c64>(&[4, 6, 8], 21, &cpu()).unwrap();
    let x32 = randn::<c32>(&[3, 5, 33], 22, &cpu()).unwrap();
    let r = randn::<f64>(&[4, 6, 8], 23, &cpu()).unwrap();
    let r32 = randn::<f32>(&[2, 3, 5, 6], 24, &cpu()).unwrap();
    let cases: Vec<FftnOptions> = vec![
        FftnOptions::default(),
        FftnOptions {
            axes: Some(vec![-2, -1]),
            ..Default::default()
        },
        FftnOptions {
            axes: Some(vec![0, 2]),
            norm: Norm::Ortho,
            ..Default::default()
        },
        FftnOptions {
            axes: Some(vec![2, 0]),
            s: Some(vec![5, 3]),
            norm: Norm::Forward,
            plan: None,
        },
        FftnOptions {
            s: Some(vec![7, 10]),
            ..Default::default()
        },
        FftnOptions {
            axes: Some(vec![1]),
            ..Default::default()
        },
    ];
    for (i, o) in cases.iter().enumerate() {
        both(&x, 64, &format!("fftn c64 case {i}"), |x| fftn(x, o));
        both(&x, 64, &format!("ifftn c64 case {i}"), |x| ifftn(x, o));
        both(&x32, 64, &format!("fftn c32 case {i}"), |x| fftn(x, o));
        both(&r, 64, &format!("rfftn f64 case {i}"), |x| rfftn(x, o));
        both(&r32, 64, &format!("rfftn f32 case {i}"), |x| rfftn(x, o));
        both(&x, 64, &format!("irfftn c64 case {i}"), |x| irfftn(x, o));
        both(&x32, 64, &format!("irfftn c32 case {i}"), |x| irfftn(x, o));
        both(&x, 64, &format!("hfftn c64 case {i}"), |x| hfftn(x, o));
        both(&r, 64, &format!("ihfftn f64 case {i}"), |x| ihfftn(x, o));
    }
    let d = FftnOptions::default();
    both(&x, 64, "fft2", |x| fft2(x, &d));
    both(&x, 64, "ifft2", |x| ifft2(x, &d));
    both(&r, 64, "rfft2", |x| rfft2(x, &d));
    both(&x, 64, "irfft2", |x| irfft2(x, &d));
    both(&x, 64, "hfft2", |x| hfft2(x, &d));
    both(&r, 64, "ihfft2", |x| ihfft2(x, &d));
    both(&x, 64, "fft2 of a transposed view", |x| fft2(&x.t(), &d));
    // a rank-3 trailing plan with a batch in front
    both(&r32, 64, "rfftn over 3 trailing axes", |x| {
        rfftn(
            x,
            &FftnOptions {
                axes: Some(vec![1, 2, 3]),
                ..Default::default()
            },
        )
    });
}

#[test]
fn dct_dst_every_type_norm_axis() {
    let _serial = serial();
    let kinds = [
        DctType::Type1,
        DctType::Type2,
        DctType::Type3,
        DctType::Type4,
    ];
    let x = randn::<f64>(&[5, 33, 4], 31, &cpu()).unwrap();
    let x32 = randn::<f32>(&[3, 17], 32, &cpu()).unwrap();
    for kind in kinds {
        for norm in NORMS {
            for orth in [None, Some(false), Some(true)] {
                for (axis, n) in [(-1isize, None), (1, None), (0, Some(8)), (1, Some(40))] {
                    let o = DctOptions {
                        kind,
                        n,
                        axis,
                        norm,
                        orthogonalize: orth,
                    };
                    let ctx = format!("{kind:?} {norm:?} orth={orth:?} axis={axis} n={n:?}");
                    both(&x, 80, &format!("dct {ctx}"), |x| dct(x, &o));
                    both(&x, 80, &format!("idct {ctx}"), |x| idct(x, &o));
                    both(&x, 80, &format!("dst {ctx}"), |x| dst(x, &o));
                    both(&x, 80, &format!("idst {ctx}"), |x| idst(x, &o));
                }
                let o = DctOptions {
                    kind,
                    norm,
                    orthogonalize: orth,
                    ..Default::default()
                };
                both(&x32, 34, &format!("dct f32 {kind:?} {norm:?}"), |x| {
                    dct(x, &o)
                });
                both(&x32, 34, &format!("idst f32 {kind:?} {norm:?}"), |x| {
                    idst(x, &o)
                });
            }
        }
        let o = DctnOptions {
            kind,
            ..Default::default()
        };
        both(&x, 80, &format!("dctn {kind:?}"), |x| dctn(x, &o));
        both(&x, 80, &format!("idctn {kind:?}"), |x| idctn(x, &o));
        both(&x, 80, &format!("dstn {kind:?}"), |x| dstn(x, &o));
        both(&x, 80, &format!("idstn {kind:?}"), |x| idstn(x, &o));
    }
    for n in [1usize, 2, 3, 257] {
        let y = randn::<f64>(&[2, n], n as u64, &cpu()).unwrap();
        for kind in kinds {
            if kind == DctType::Type1 && n < 2 {
                continue;
            }
            let o = DctOptions {
                kind,
                ..Default::default()
            };
            both(&y, 2 * n + 2, &format!("dct n={n} {kind:?}"), |x| {
                dct(x, &o)
            });
            both(&y, 2 * n + 2, &format!("dst n={n} {kind:?}"), |x| {
                dst(x, &o)
            });
        }
    }
}

#[test]
fn shifts_every_dtype() {
    let _serial = serial();
    let shapes: [&[usize]; 4] = [&[7], &[4, 5], &[3, 1, 6], &[2, 3, 4, 5]];
    for s in shapes {
        let x = randn::<f64>(s, 5, &cpu()).unwrap();
        let c = randn::<c64>(s, 6, &cpu()).unwrap();
        let i = randn::<f64>(s, 7, &cpu()).unwrap().astype::<i32>().unwrap();
        let b = randn::<f64>(s, 8, &cpu()).unwrap().gt_scalar(0.0).unwrap();
        let f = randn::<f32>(s, 9, &cpu()).unwrap();
        for axes in [None, Some(vec![0isize]), Some(vec![-1, 0, -1])] {
            let a = axes.as_deref();
            both(&x, 1, &format!("fftshift f64 {s:?} {axes:?}"), |x| {
                fftshift(x, a)
            });
            both(&x, 1, &format!("ifftshift f64 {s:?} {axes:?}"), |x| {
                ifftshift(x, a)
            });
            both(&c, 1, &format!("fftshift c64 {s:?}"), |x| fftshift(x, a));
            both(&i, 1, &format!("fftshift i32 {s:?}"), |x| fftshift(x, a));
            both(&b, 1, &format!("fftshift bool {s:?}"), |x| ifftshift(x, a));
            both(&f, 1, &format!("fftshift f32 {s:?}"), |x| fftshift(x, a));
        }
        both(&x, 1, "fftshift of a transposed view", |x| {
            fftshift(&x.t(), None)
        });
    }
}

#[test]
fn large_batches() {
    let _serial = serial();
    let x = randn::<c64>(&[512, 1024], 41, &cpu()).unwrap();
    both(&x, 1024, "fft 512x1024 last axis", |x| {
        fft(x, &FftOptions::default())
    });
    both(&x, 512, "fft 512x1024 axis 0", |x| {
        fft(x, &o1(None, 0, Norm::Backward))
    });
    let r = randn::<f32>(&[256, 4096], 42, &cpu()).unwrap();
    both(&r, 4096, "rfft 256x4096 f32", |x| {
        rfft(x, &FftOptions::default())
    });
    both(&r, 4096, "rfft2 256x4096 f32", |x| {
        rfft2(x, &FftnOptions::default())
    });
    let p = randn::<c32>(&[64, 65537], 43, &cpu()).unwrap();
    both(&p, 65537, "fft of a prime length 65537", |x| {
        fft(x, &FftOptions::default())
    });
}

#[test]
fn fht_both_devices() {
    let _serial = serial();
    for n in [1usize, 2, 31, 64, 257] {
        let x = randn::<f64>(&[3, n], 50 + n as u64, &cpu()).unwrap();
        for (mu, bias) in [(0.0, 0.0), (0.5, 0.3), (-0.5, -0.2), (2.0, 0.0)] {
            let o = FhtOptions { offset: 0.1, bias };
            both(&x, 4 * n, &format!("fht n={n} mu={mu} bias={bias}"), |x| {
                fht(x, 0.05, mu, &o)
            });
            both(&x, 4 * n, &format!("ifht n={n} mu={mu} bias={bias}"), |x| {
                ifht(x, 0.05, mu, &o)
            });
        }
    }
}

#[test]
fn bad_inputs_same_error() {
    let _serial = serial();
    let x = randn::<c64>(&[4, 5], 1, &cpu()).unwrap();
    let r = randn::<f64>(&[4, 5], 2, &cpu()).unwrap();
    let e = randn::<c64>(&[4, 0], 3, &cpu()).unwrap();
    same_err(&x, "n = 0", |x| fft(x, &o1(Some(0), -1, Norm::Backward)));
    same_err(&x, "axis out of range", |x| {
        fft(x, &o1(None, 2, Norm::Backward))
    });
    same_err(&e, "empty axis", |x| fft(x, &FftOptions::default()));
    same_err(&x, "repeated axes", |x| {
        fftn(
            x,
            &FftnOptions {
                axes: Some(vec![0, -2]),
                ..Default::default()
            },
        )
    });
    same_err(&x, "s and axes lengths", |x| {
        fftn(
            x,
            &FftnOptions {
                axes: Some(vec![0]),
                s: Some(vec![2, 2]),
                ..Default::default()
            },
        )
    });
    same_err(&r, "rfftn without axes", |x| {
        rfftn(
            x,
            &FftnOptions {
                axes: Some(vec![]),
                ..Default::default()
            },
        )
    });
    same_err(&r, "dct type 1 of 1 point", |x| {
        dct(
            x,
            &DctOptions {
                kind: DctType::Type1,
                n: Some(1),
                ..Default::default()
            },
        )
    });
    same_err(&x, "irfft of 1 point", |x| {
        irfft(
            &x.slice_axis(1, Some(0), Some(1), 1)?,
            &FftOptions::default(),
        )
    });
}

#[test]
fn cuda_plan_cache_hits_bounds_clear() {
    let _serial = serial();
    let Some(g) = gpu() else { return };
    clear_plan_cache(&g).unwrap();
    let x = randn::<c64>(&[8, 64], 1, &g).unwrap();
    let o = FftOptions::default();
    let a = fft(&x, &o).unwrap();
    let i0 = plan_cache_info(&g).unwrap();
    assert_eq!(i0.plans, 1, "{i0:?}");
    let b = fft(&x, &o).unwrap();
    let i1 = plan_cache_info(&g).unwrap();
    assert_eq!(i1.plans, 1, "{i1:?}");
    assert_eq!(
        i1.hits,
        i0.hits + 1,
        "the second call reuses the plan: {i1:?}"
    );
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
    // bounded by count
    set_plan_cache_limits(&g, 3, 1 << 30).unwrap();
    for n in 10..20 {
        fft(&x, &o1(Some(n), -1, Norm::Backward)).unwrap();
    }
    assert!(plan_cache_info(&g).unwrap().plans <= 3);
    // bounded by bytes: nothing needing a work area is kept past a 0-byte budget
    set_plan_cache_limits(&g, 64, 0).unwrap();
    fft(&x, &o1(Some(1009), -1, Norm::Backward)).unwrap();
    assert_eq!(plan_cache_info(&g).unwrap().work_bytes, 0);
    set_plan_cache_limits(&g, 64, 1 << 30).unwrap();
    clear_plan_cache(&g).unwrap();
    assert_eq!(plan_cache_info(&g).unwrap().plans, 0);
    // results unchanged after the clear, and from two threads on two streams at once
    let c = fft(&x, &o).unwrap();
    assert_eq!(a.to_vec().unwrap(), c.to_vec().unwrap());
    let cuda = g.as_cuda().unwrap().clone();
    std::thread::scope(|s| {
        for t in 0..2 {
            let cuda = cuda.clone();
            let x = x.clone();
            let want = a.to_vec().unwrap();
            s.spawn(move || {
                let d = Device::Cuda(cuda.new_stream().unwrap());
                let xs = x.to_device(&d).unwrap();
                for _ in 0..20 {
                    let y = fft(&xs, &FftOptions::default()).unwrap();
                    assert_eq!(y.to_vec().unwrap(), want, "thread {t}");
                }
            });
        }
    });
}

#[test]
fn explicit_plan_both_devices() {
    let _serial = serial();
    let x = randn::<c64>(&[6, 48], 61, &cpu()).unwrap();
    let r = randn::<f64>(&[6, 48], 62, &cpu()).unwrap();
    both(&x, 48, "FftPlan c2c", |x| {
        let p = get_fft_plan(x, &FftOptions::default())?;
        p.execute(x, true)
    });
    both(&r, 48, "FftPlan reused", |x| {
        let x = x.astype::<c64>()?;
        let p = get_fft_plan(&x, &o1(None, 0, Norm::Ortho))?;
        let y = p.execute(&x, true)?;
        p.execute(&y, false)
    });
}

#[test]
fn normalisation_folded_every_1d_transform() {
    let _serial = serial();
    // the scale (and the conjugation of hfft/ihfft) rides on the cut/pad copy, the C2R input
    // copy or one in-place pass, depending on n and the transform: every path, every norm
    let c = randn::<c64>(&[5, 6, 7], 71, &cpu()).unwrap();
    let c32v = randn::<c32>(&[5, 6, 7], 72, &cpu()).unwrap();
    let r = randn::<f64>(&[5, 6, 7], 73, &cpu()).unwrap();
    let r32 = randn::<f32>(&[5, 6, 7], 74, &cpu()).unwrap();
    for norm in NORMS {
        for axis in [0isize, 1, -1] {
            for n in [None, Some(4), Some(9)] {
                let o = o1(n, axis, norm);
                let ctx = format!("{norm:?} axis={axis} n={n:?}");
                both(&c, 16, &format!("fft {ctx}"), |x| fft(x, &o));
                both(&c, 16, &format!("ifft {ctx}"), |x| ifft(x, &o));
                both(&c32v, 16, &format!("fft c32 {ctx}"), |x| fft(x, &o));
                both(&r, 16, &format!("rfft {ctx}"), |x| rfft(x, &o));
                both(&r32, 16, &format!("rfft f32 {ctx}"), |x| rfft(x, &o));
                both(&r, 16, &format!("ihfft {ctx}"), |x| ihfft(x, &o));
                both(&r32, 16, &format!("ihfft f32 {ctx}"), |x| ihfft(x, &o));
                both(&c, 16, &format!("irfft {ctx}"), |x| irfft(x, &o));
                both(&c, 16, &format!("hfft {ctx}"), |x| hfft(x, &o));
                both(&c32v, 16, &format!("hfft c32 {ctx}"), |x| hfft(x, &o));
                both(&r, 16, &format!("irfft_real {ctx}"), |x| irfft_real(x, &o));
            }
        }
        // n-d: the conjugation moved across the other axes (hfftn/ihfftn), with cuts and pads
        for (axes, s) in [
            (vec![0isize, 2], Some(vec![4usize, 9])),
            (vec![2, 1], None),
            (vec![1, 0, 2], Some(vec![6, 3, 8])),
        ] {
            let o = FftnOptions {
                axes: Some(axes.clone()),
                s: s.clone(),
                norm,
                plan: None,
            };
            let ctx = format!("{norm:?} axes={axes:?} s={s:?}");
            both(&c, 64, &format!("fftn {ctx}"), |x| fftn(x, &o));
            both(&c, 64, &format!("hfftn {ctx}"), |x| hfftn(x, &o));
            both(&r, 64, &format!("ihfftn {ctx}"), |x| ihfftn(x, &o));
            both(&r, 64, &format!("rfftn {ctx}"), |x| rfftn(x, &o));
            both(&c, 64, &format!("irfftn {ctx}"), |x| irfftn(x, &o));
        }
    }
}

/// A transform of one fixed input under given options, as complex values on the host.
type Run<'a> = Box<dyn Fn(&FftnOptions) -> Vec<c64> + 'a>;

#[test]
fn plans_of_every_kind_are_the_ones_the_calls_use() {
    let _serial = serial();
    // on both devices the results equal the plan-less calls; on a GPU, after the plan is made
    // the call makes no new cuFFT plan (get_fftn_plan mirrors the transforms' layouts exactly)
    let c = randn::<c64>(&[4, 6, 10], 81, &cpu()).unwrap();
    let r = randn::<f32>(&[4, 6, 10], 82, &cpu()).unwrap();
    type Geometry = (Option<Vec<isize>>, Option<Vec<usize>>);
    let geoms: Vec<Geometry> = vec![
        (None, None),
        (Some(vec![1, 2]), None),
        (Some(vec![0, 2]), Some(vec![5, 12])),
        (Some(vec![1]), None),
        (Some(vec![2, 0, 1]), None),
    ];
    let mut devs = vec![cpu()];
    devs.extend(gpu());
    for dev in devs {
        let cd = c.to_device(&dev).unwrap();
        let rd = r.to_device(&dev).unwrap();
        for (axes, s) in &geoms {
            let o = FftnOptions {
                axes: axes.clone(),
                s: s.clone(),
                ..Default::default()
            };
            let ctx = format!("{dev} axes={axes:?} s={s:?}");
            let runs: Vec<(PlanKind, Run<'_>)> = vec![
                (
                    PlanKind::C2c,
                    Box::new(|o: &FftnOptions| fftn(&cd, o).unwrap().to_vec().unwrap()),
                ),
                (
                    PlanKind::R2c,
                    Box::new(|o: &FftnOptions| {
                        let y = rfftn(&rd, o).unwrap().astype::<c64>().unwrap();
                        y.to_vec().unwrap()
                    }),
                ),
                (
                    PlanKind::C2r,
                    Box::new(|o: &FftnOptions| {
                        let y = irfftn(&cd, o).unwrap().astype::<c64>().unwrap();
                        y.to_vec().unwrap()
                    }),
                ),
            ];
            for (kind, run) in runs {
                let want = run(&o);
                clear_plan_cache(&dev).unwrap();
                let p = match kind {
                    PlanKind::R2c => get_fftn_plan(&rd, &o, kind),
                    _ => get_fftn_plan(&cd, &o, kind),
                }
                .unwrap_or_else(|e| panic!("{ctx} {kind:?}: {e}"));
                let before = plan_cache_info(&dev).unwrap();
                let with = FftnOptions {
                    plan: Some(p),
                    ..o.clone()
                };
                let got = run(&with);
                let after = plan_cache_info(&dev).unwrap();
                assert_eq!(got, want, "{ctx} {kind:?}: the same transform");
                if dev.is_cuda() {
                    assert_eq!(
                        after.misses, before.misses,
                        "{ctx} {kind:?}: the call made a plan get_fftn_plan did not ({before:?} -> {after:?})"
                    );
                }
            }
        }
    }
}
