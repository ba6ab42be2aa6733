//! The examples that used to be doc tests (each cost seconds of CI compile time as its own
//! binary), kept as integration tests with the same assertions; the docs keep one tiny
//! example per function family.

#![allow(unused_imports)]

#[test]
fn example_fft() {
    use cusci_fft::{fft, Array, Device, FftOptions};
    let x = Array::from_vec(vec![1.0f64, 0.0, -1.0, 0.0], &[4], &Device::cpu()).unwrap();
    let y = fft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
    assert!((y[1].re - 2.0).abs() < 1e-12 && y[0].norm() < 1e-12);
}

#[test]
fn example_ifft() {
    use cusci_fft::{fft, ifft, Array, Device, FftOptions};
    let x = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &Device::cpu()).unwrap();
    let o = FftOptions::default();
    let back = ifft(&fft(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
    assert!((back[1].re - 2.0).abs() < 1e-12 && back[1].im.abs() < 1e-12);
}

#[test]
fn example_rfft() {
    use cusci_fft::{rfft, Array, Device, FftOptions};
    let x = Array::from_vec(vec![1.0f32, 1.0, 1.0, 1.0, 1.0], &[5], &Device::cpu()).unwrap();
    let y = rfft(&x, &FftOptions::default()).unwrap();
    assert_eq!(y.shape(), &[3]);
    assert!((y.to_vec().unwrap()[0].re - 5.0).abs() < 1e-6);
}

#[test]
fn example_hfft() {
    use cusci_fft::{c64, hfft, Array, Device, FftOptions};
    let x = Array::from_vec(
        vec![c64::new(1.0, 0.0), c64::new(0.0, 0.0)],
        &[2],
        &Device::cpu(),
    )
    .unwrap();
    let y = hfft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), 2);
    assert!((y[0] - 1.0).abs() < 1e-12 && (y[1] - 1.0).abs() < 1e-12);
}

#[test]
fn example_ihfft() {
    use cusci_fft::{ihfft, Array, Device, FftOptions};
    let x = Array::from_vec(vec![2.0f64, 2.0, 2.0, 2.0], &[4], &Device::cpu()).unwrap();
    let y = ihfft(&x, &FftOptions::default()).unwrap().to_vec().unwrap();
    assert!((y[0].re - 2.0).abs() < 1e-12 && y[1].norm() < 1e-12);
}

#[test]
fn example_fftn() {
    use cusci_fft::{fftn, Array, Device, FftnOptions};
    let x = Array::<f64>::ones(&[2, 3, 4], &Device::cpu()).unwrap();
    let y = fftn(&x, &FftnOptions::default()).unwrap().to_vec().unwrap();
    assert!((y[0].re - 24.0).abs() < 1e-12 && y[1].norm() < 1e-12);
}

#[test]
fn example_fft2() {
    use cusci_fft::{fft2, Array, Device, FftnOptions};
    let x = Array::<f32>::ones(&[2, 2], &Device::cpu()).unwrap();
    let y = fft2(&x, &FftnOptions::default()).unwrap().to_vec().unwrap();
    assert!((y[0].re - 4.0).abs() < 1e-6);
}

#[test]
fn example_ifft2() {
    use cusci_fft::{ifft2, Array, Device, FftnOptions};
    let x = Array::<f64>::ones(&[2, 2], &Device::cpu()).unwrap();
    let y = ifft2(&x, &FftnOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((y[0].re - 1.0).abs() < 1e-12 && y[3].norm() < 1e-12);
}

#[test]
fn example_rfftn() {
    use cusci_fft::{rfftn, Array, Device, FftnOptions};
    let x = Array::<f64>::ones(&[3, 4], &Device::cpu()).unwrap();
    let y = rfftn(&x, &FftnOptions::default()).unwrap();
    assert_eq!(y.shape(), &[3, 3]);
    assert!((y.to_vec().unwrap()[0].re - 12.0).abs() < 1e-12);
}

#[test]
fn example_rfft2() {
    use cusci_fft::{rfft2, Array, Device, FftnOptions};
    let x = Array::<f32>::ones(&[2, 6], &Device::cpu()).unwrap();
    assert_eq!(rfft2(&x, &FftnOptions::default()).unwrap().shape(), &[2, 4]);
}

#[test]
fn example_irfft2() {
    use cusci_fft::{c64, irfft2, Array, Device, FftnOptions};
    let x = Array::<c64>::ones(&[2, 4], &Device::cpu()).unwrap();
    assert_eq!(
        irfft2(&x, &FftnOptions::default()).unwrap().shape(),
        &[2, 6]
    );
}

#[test]
fn example_hfftn() {
    use cusci_fft::{c64, hfftn, Array, Device, FftnOptions};
    let x = Array::<c64>::ones(&[2, 3], &Device::cpu()).unwrap();
    let y = hfftn(&x, &FftnOptions::default()).unwrap();
    assert_eq!(y.shape(), &[2, 4]);
    assert!((y.to_vec().unwrap()[0] - 8.0).abs() < 1e-12);
}

#[test]
fn example_hfft2() {
    use cusci_fft::{c32, hfft2, Array, Device, FftnOptions};
    let x = Array::<c32>::ones(&[3, 2, 5], &Device::cpu()).unwrap();
    assert_eq!(
        hfft2(&x, &FftnOptions::default()).unwrap().shape(),
        &[3, 2, 8]
    );
}

#[test]
fn example_ihfftn() {
    use cusci_fft::{ihfftn, Array, Device, FftnOptions};
    let x = Array::<f64>::ones(&[2, 4], &Device::cpu()).unwrap();
    let y = ihfftn(&x, &FftnOptions::default()).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert!((y.to_vec().unwrap()[0].re - 1.0).abs() < 1e-12);
}

#[test]
fn example_ihfft2() {
    use cusci_fft::{ihfft2, Array, Device, FftnOptions};
    let x = Array::<f32>::ones(&[3, 6], &Device::cpu()).unwrap();
    assert_eq!(
        ihfft2(&x, &FftnOptions::default()).unwrap().shape(),
        &[3, 4]
    );
}

#[test]
fn example_irfft_real() {
    use cusci_fft::{irfft_real, Array, Device, FftOptions};
    let x = Array::from_vec(vec![4.0f64, 0.0, 0.0], &[3], &Device::cpu()).unwrap();
    let y = irfft_real(&x, &FftOptions::default())
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(y.len(), 4);
    assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
}

#[test]
fn example_fhtoptions() {
    use cusci_fft::FhtOptions;
    let o = FhtOptions::default();
    assert_eq!((o.offset, o.bias), (0.0, 0.0));
}

#[test]
fn example_fhtoffset() {
    use cusci_fft::fhtoffset;
    let off = fhtoffset(0.1, 0.5, 0.0, 0.0).unwrap();
    assert!(off.abs() <= 0.05 + 1e-12);
}

#[test]
fn example_ifht() {
    use cusci_fft::{ifht, Array, Device, FhtOptions};
    let x = Array::<f32>::ones(&[8], &Device::cpu()).unwrap();
    assert_eq!(
        ifht(&x, 0.2, 0.0, &FhtOptions::default()).unwrap().shape(),
        &[8]
    );
}

#[test]
fn example_fftfreq() {
    use cusci_fft::{fftfreq, Device};
    let f = fftfreq::<f64>(4, 0.5, &Device::cpu())
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(f, vec![0.0, 0.5, -1.0, -0.5]);
}

#[test]
fn example_rfftfreq() {
    use cusci_fft::{rfftfreq, Device};
    let f = rfftfreq::<f64>(5, 0.1, &Device::cpu())
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(f.len(), 3);
    assert!((f[2] - 4.0).abs() < 1e-12);
}

#[test]
fn example_ifftshift() {
    use cusci_fft::{fftfreq, fftshift, ifftshift, Device};
    let f = fftfreq::<f64>(5, 1.0, &Device::cpu()).unwrap();
    let back = ifftshift(&fftshift(&f, None).unwrap(), None).unwrap();
    assert_eq!(back.to_vec().unwrap(), f.to_vec().unwrap());
}

#[test]
fn example_clear_plan_cache() {
    use cusci_fft::{clear_plan_cache, rfft, Array, Device, FftOptions};
    let dev = Device::cpu();
    let x = Array::<f64>::ones(&[8], &dev).unwrap();
    rfft(&x, &FftOptions::default()).unwrap();
    clear_plan_cache(&dev).unwrap();
    assert_eq!(rfft(&x, &FftOptions::default()).unwrap().shape(), &[5]);
}

#[test]
fn example_set_plan_cache_limits() {
    use cusci_fft::{set_plan_cache_limits, Device};
    set_plan_cache_limits(&Device::cpu(), 16, 1 << 20).unwrap();
}

#[test]
fn example_fftnoptions() {
    use cusci_fft::FftnOptions;
    let o = FftnOptions {
        axes: Some(vec![0, 2]),
        ..Default::default()
    };
    assert!(o.s.is_none());
}

#[test]
fn example_get_fftn_plan() {
    use cusci_fft::{get_fftn_plan, rfftn, Array, Device, FftnOptions, PlanKind};
    let x = Array::<f32>::ones(&[4, 6], &Device::cpu()).unwrap();
    let p = get_fftn_plan(&x, &FftnOptions::default(), PlanKind::R2c).unwrap();
    let y = rfftn(
        &x,
        &FftnOptions {
            plan: Some(p),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(y.shape(), &[4, 4]);
}

#[test]
fn example_dcttype() {
    use cusci_fft::DctType;
    assert_eq!(DctType::default(), DctType::Type2);
    assert_eq!(DctType::Type3.inverse(), DctType::Type2);
}

#[test]
fn example_dctoptions() {
    use cusci_fft::{DctOptions, DctType, Norm};
    let o = DctOptions {
        kind: DctType::Type4,
        norm: Norm::Ortho,
        ..Default::default()
    };
    assert_eq!(o.axis, -1);
    assert!(o.orthogonalize.is_none());
}

#[test]
fn example_dctnoptions() {
    use cusci_fft::{DctType, DctnOptions};
    let o = DctnOptions {
        axes: Some(vec![0]),
        ..Default::default()
    };
    assert_eq!(o.kind, DctType::Type2);
}

#[test]
fn example_dct() {
    use cusci_fft::{dct, Array, DctOptions, Device};
    let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[4], &Device::cpu()).unwrap();
    let y = dct(&x, &DctOptions::default()).unwrap().to_vec().unwrap();
    assert!((y[0] - 20.0).abs() < 1e-12 && (y[1] + 6.308644059797899).abs() < 1e-12);
}

#[test]
fn example_dst() {
    use cusci_fft::{dst, Array, DctOptions, Device};
    let x = Array::from_vec(vec![1.0f64, 1.0], &[2], &Device::cpu()).unwrap();
    let y = dst(&x, &DctOptions::default()).unwrap().to_vec().unwrap();
    // 2(sin(π/4) + sin(3π/4)) and 2(sin(π/2) + sin(3π/2))
    assert!((y[0] - 2.0f64.sqrt() * 2.0).abs() < 1e-12 && y[1].abs() < 1e-12);
}

#[test]
fn example_idst() {
    use cusci_fft::{dst, idst, Array, DctOptions, DctType, Device, Norm};
    let x = Array::from_vec(vec![3.0f32, 1.0, 4.0, 1.0], &[4], &Device::cpu()).unwrap();
    let o = DctOptions {
        kind: DctType::Type3,
        norm: Norm::Ortho,
        ..Default::default()
    };
    let back = idst(&dst(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
    assert!((back[2] - 4.0).abs() < 1e-5);
}

#[test]
fn example_dctn() {
    use cusci_fft::{dctn, Array, DctnOptions, Device};
    let x = Array::<f64>::ones(&[2, 3], &Device::cpu()).unwrap();
    let y = dctn(&x, &DctnOptions::default()).unwrap().to_vec().unwrap();
    // (2·2)·(2·3) at the origin, 0 elsewhere
    assert!((y[0] - 24.0).abs() < 1e-12 && y[1].abs() < 1e-12);
}

#[test]
fn example_idctn() {
    use cusci_fft::{dctn, idctn, Array, DctnOptions, Device};
    let x = Array::<f64>::arange(0.0, 6.0, 1.0, &Device::cpu())
        .unwrap()
        .reshape(&[2, 3])
        .unwrap();
    let o = DctnOptions::default();
    let back = idctn(&dctn(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
    assert!((back[5] - 5.0).abs() < 1e-12);
}

#[test]
fn example_dstn() {
    use cusci_fft::{dstn, Array, DctType, DctnOptions, Device};
    let x = Array::<f64>::ones(&[1, 1], &Device::cpu()).unwrap();
    let o = DctnOptions {
        kind: DctType::Type1,
        ..Default::default()
    };
    // DST-I of one point is 2·x, along both axes
    assert!((dstn(&x, &o).unwrap().to_vec().unwrap()[0] - 4.0).abs() < 1e-12);
}

#[test]
fn example_idstn() {
    use cusci_fft::{dstn, idstn, Array, DctnOptions, Device, Norm};
    let x = Array::<f64>::arange(0.0, 12.0, 1.0, &Device::cpu())
        .unwrap()
        .reshape(&[3, 4])
        .unwrap();
    let o = DctnOptions {
        norm: Norm::Forward,
        ..Default::default()
    };
    let back = idstn(&dstn(&x, &o).unwrap(), &o).unwrap().to_vec().unwrap();
    assert!((back[7] - 7.0).abs() < 1e-12);
}
