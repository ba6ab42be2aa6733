//! Arrays and element-wise operations: the CPU reference against naive loops, then every usable
//! device against the CPU, edge sizes, views, and the same typed error on every device.

use cusci_core::testing::{assert_allclose, devices, randn, randn_vec};
use cusci_core::{c32, c64, where_, Array, Device, Error};

const SIZES: [usize; 10] = [0, 1, 2, 3, 31, 32, 33, 255, 256, 257];

fn naive_binary<T: Copy>(a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

#[test]
fn creation_and_transfers() {
    for dev in devices() {
        let a = Array::<f64>::arange(0.0, 5.0, 1.0, &dev).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        let l = Array::<f32>::linspace(0.0, 1.0, 5, true, &dev).unwrap();
        assert_eq!(l.to_vec().unwrap(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let e = Array::<i32>::eye(2, Some(3), 1, &dev).unwrap();
        assert_eq!(e.to_vec().unwrap(), vec![0, 1, 0, 0, 0, 1]);
        let f = Array::<c64>::full(&[2, 2], c64::new(1.0, -2.0), &dev).unwrap();
        assert_eq!(f.to_vec().unwrap(), vec![c64::new(1.0, -2.0); 4]);
        let z = Array::<bool>::zeros(&[3], &dev).unwrap();
        assert_eq!(z.to_vec().unwrap(), vec![false; 3]);
        let o = Array::<u8>::ones(&[0, 4], &dev).unwrap();
        assert!(o.to_vec().unwrap().is_empty());
        let s = Array::<i64>::scalar(7, &dev).unwrap();
        assert_eq!((s.ndim(), s.item().unwrap()), (0, 7));
        // round trip through the host and ndarray
        let r = randn::<f32>(&[3, 4], 1, &dev).unwrap();
        let nd = r.to_ndarray().unwrap();
        let back = Array::from_ndarray(&nd, &dev).unwrap();
        assert_eq!(back.to_vec().unwrap(), r.to_vec().unwrap());
        let cpu = r.to_device(&Device::Cpu).unwrap();
        assert_eq!(cpu.to_vec().unwrap(), r.to_vec().unwrap());
        // errors
        assert!(matches!(
            Array::from_vec(vec![1.0f32; 5], &[2, 3], &dev),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            Array::<f32>::arange(0.0, 1.0, 0.0, &dev),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            Array::<f32>::zeros(&[2, 3], &dev).unwrap().item(),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn empty_arrays_take_writes_and_bools_start_false() {
    for dev in devices() {
        let mut a = Array::<f32>::empty(&[3, 5], &dev).unwrap();
        assert_eq!((a.shape(), a.device()), (&[3usize, 5][..], &dev));
        a.fill(2.5).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![2.5; 15]);
        let b = Array::<bool>::empty(&[7], &dev).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![false; 7]);
        assert_eq!(
            Array::<c64>::empty(&[0, 4], &dev)
                .unwrap()
                .to_vec()
                .unwrap(),
            vec![]
        );
        assert!(matches!(
            Array::<f64>::empty(&[usize::MAX, 2], &dev),
            Err(Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn views_share_storage_and_copy_on_write() {
    for dev in devices() {
        let v: Vec<i64> = (0..24).collect();
        let a = Array::from_vec(v.clone(), &[2, 3, 4], &dev).unwrap();
        // slicing with steps, negative steps and negative bounds
        let s = a.slice_axis(2, Some(1), None, 2).unwrap();
        assert_eq!(s.shape(), &[2, 3, 2]);
        assert_eq!(
            s.to_vec().unwrap(),
            vec![1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23]
        );
        let r = a.slice_axis(-1, None, None, -1).unwrap();
        assert_eq!(
            r.index_axis(0, 0)
                .unwrap()
                .index_axis(0, 0)
                .unwrap()
                .to_vec()
                .unwrap(),
            vec![3, 2, 1, 0]
        );
        let e = a.slice_axis(1, Some(5), Some(7), 1).unwrap();
        assert_eq!(e.shape(), &[2, 0, 4]);
        // transposes
        let t = a.permute(&[2, 0, 1]).unwrap();
        assert_eq!(t.shape(), &[4, 2, 3]);
        let tv = t.to_vec().unwrap();
        for i in 0..4 {
            for j in 0..2 {
                for k in 0..3 {
                    assert_eq!(tv[i * 6 + j * 3 + k], v[j * 12 + k * 4 + i]);
                }
            }
        }
        assert_eq!(a.t().shape(), &[4, 3, 2]);
        assert_eq!(a.swapaxes(0, -1).unwrap().shape(), &[4, 3, 2]);
        // reshape: a view of contiguous data, a copy of strided data
        let r2 = a.reshape(&[6, -1]).unwrap();
        assert_eq!(r2.shape(), &[6, 4]);
        assert_eq!(t.reshape(&[-1]).unwrap().to_vec().unwrap(), tv);
        assert!(matches!(
            a.reshape(&[5, -1]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            a.reshape(&[-1, -1]),
            Err(Error::InvalidArgument { .. })
        ));
        // broadcasting
        let row = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3], &dev).unwrap();
        let b = row.broadcast_to(&[2, 3]).unwrap();
        assert_eq!(b.strides(), &[0, 1]);
        assert_eq!(b.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        assert!(matches!(
            row.broadcast_to(&[2, 4]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert_eq!(row.expand_dims(0).unwrap().shape(), &[1, 3]);
        assert_eq!(row.expand_dims(0).unwrap().squeeze().shape(), &[3]);
        // axis errors
        assert!(matches!(
            a.slice_axis(3, None, None, 1),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            a.slice_axis(0, None, None, 0),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            a.index_axis(0, 2),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            a.permute(&[0, 0, 1]),
            Err(Error::InvalidArgument { .. })
        ));
        // copy-on-write: writing into a view's source leaves the view alone
        let mut w = a.clone();
        let view = a.slice_axis(0, Some(0), Some(1), 1).unwrap();
        w.fill(-1).unwrap();
        assert_eq!(view.to_vec().unwrap(), (0..12).collect::<Vec<i64>>());
        assert_eq!(w.to_vec().unwrap(), vec![-1; 24]);
        assert_eq!(a.to_vec().unwrap(), v);
        // assign with broadcasting into a strided destination
        let mut d = a.t().astype::<f64>().unwrap();
        let src = Array::from_vec(vec![5.0f64, 6.0], &[2], &dev).unwrap();
        d.assign(&src).unwrap();
        assert_eq!(d.shape(), &[4, 3, 2]);
        assert_eq!(d.to_vec().unwrap(), [5.0, 6.0].repeat(12));
    }
}

#[test]
fn arithmetic_against_naive_loops() {
    for dev in devices() {
        for &n in &SIZES {
            let av = randn_vec::<f64>(n, 11);
            let bv = randn_vec::<f64>(n, 12);
            let a = Array::from_vec(av.clone(), &[n], &dev).unwrap();
            let b = Array::from_vec(bv.clone(), &[n], &dev).unwrap();
            let ctx = format!("n={n} dev={dev} seeds 11,12");
            let check = |got: Array<f64>, want: Vec<f64>| {
                let w = Array::from_vec(want, &[n], &Device::Cpu).unwrap();
                assert_allclose(&got.to_device(&Device::Cpu).unwrap(), &w, 1e-15, 0.0, &ctx);
            };
            check((&a + &b).unwrap(), naive_binary(&av, &bv, |x, y| x + y));
            check((&a - &b).unwrap(), naive_binary(&av, &bv, |x, y| x - y));
            check((&a * &b).unwrap(), naive_binary(&av, &bv, |x, y| x * y));
            check((&a / &b).unwrap(), naive_binary(&av, &bv, |x, y| x / y));
            check(
                a.mul_scalar(2.5).unwrap(),
                av.iter().map(|x| x * 2.5).collect(),
            );
            check(
                a.rsub_scalar(1.0).unwrap(),
                av.iter().map(|x| 1.0 - x).collect(),
            );
            check(a.maximum(&b).unwrap(), naive_binary(&av, &bv, f64::max));
            check(
                a.clip(-0.5, 0.5).unwrap(),
                av.iter().map(|x| x.clamp(-0.5, 0.5)).collect(),
            );
            check(a.neg().unwrap(), av.iter().map(|x| -x).collect());
        }
    }
}

#[test]
fn integer_arithmetic_wraps_and_divides_by_zero_to_zero() {
    for dev in devices() {
        let a = Array::from_vec(vec![i32::MAX, 7, -7, i32::MIN, 5], &[5], &dev).unwrap();
        let b = Array::from_vec(vec![1, 2, 2, -1, 0], &[5], &dev).unwrap();
        assert_eq!(
            (&a + &b).unwrap().to_vec().unwrap(),
            vec![i32::MIN, 9, -5, i32::MAX, 5]
        );
        assert_eq!(
            (&a / &b).unwrap().to_vec().unwrap(),
            vec![i32::MAX, 3, -3, i32::MIN, 0]
        );
        let u = Array::from_vec(vec![250u8, 3], &[2], &dev).unwrap();
        assert_eq!(u.add_scalar(10).unwrap().to_vec().unwrap(), vec![4, 13]);
    }
}

#[test]
fn unary_math_complex_and_casts_agree_across_devices() {
    let cpu = Device::Cpu;
    let n = 1000;
    let x = randn::<f64>(&[n], 5, &cpu).unwrap();
    let xc = randn::<c64>(&[n], 6, &cpu).unwrap();
    let xf = randn::<f32>(&[n], 7, &cpu).unwrap();
    let xz = randn::<c32>(&[n], 8, &cpu).unwrap();
    // CPU reference against std
    let xv = x.to_vec().unwrap();
    assert_eq!(
        x.exp().unwrap().to_vec().unwrap(),
        xv.iter().map(|v| v.exp()).collect::<Vec<_>>()
    );
    assert_eq!(
        xc.abs().unwrap().to_vec().unwrap(),
        xc.to_vec()
            .unwrap()
            .iter()
            .map(|v| v.norm())
            .collect::<Vec<_>>()
    );
    // identities
    let id = x
        .abs()
        .unwrap()
        .sqrt()
        .unwrap()
        .mul(&x.abs().unwrap().sqrt().unwrap())
        .unwrap();
    assert_allclose(&id, &x.abs().unwrap(), 1e-15, 0.0, "sqrt(|x|)^2 = |x|");
    let e = xc.log().unwrap().exp().unwrap();
    assert_allclose(&e, &xc, 1e-14, 0.0, "exp(log z) = z");
    for dev in devices().into_iter().skip(1) {
        let g = |a: &Array<f64>| a.to_device(&dev).unwrap();
        let back = |a: Array<f64>| a.to_device(&cpu).unwrap();
        let tol = 1e-15;
        for (name, f) in [
            ("exp", (|a: &Array<f64>| a.exp()) as fn(&Array<f64>) -> _),
            ("log", |a| a.abs()?.log()),
            ("sin", |a| a.sin()),
            ("cos", |a| a.cos()),
            ("tanh", |a| a.tanh()),
            ("sqrt", |a| a.abs()?.sqrt()),
            ("pow", |a| a.abs()?.powf(1.7)),
        ] {
            assert_allclose(
                &back(f(&g(&x)).unwrap()),
                &f(&x).unwrap(),
                tol,
                1e-300,
                name,
            );
        }
        let gc = xc.to_device(&dev).unwrap();
        for (name, f) in [
            ("cexp", (|a: &Array<c64>| a.exp()) as fn(&Array<c64>) -> _),
            ("clog", |a| a.log()),
            ("csqrt", |a| a.sqrt()),
            ("csin", |a| a.sin()),
            ("ccos", |a| a.cos()),
            ("ctanh", |a| a.tanh()),
            ("cdiv", |a| {
                a.div(&a.conj()?.add_scalar(c64::new(0.5, 0.25))?)
            }),
            ("cpow", |a| a.powf(c64::new(0.5, 1.5))),
        ] {
            assert_allclose(
                &f(&gc).unwrap().to_device(&cpu).unwrap(),
                &f(&xc).unwrap(),
                1e-12, // complex transcendental functions cancel near poles (tanh)
                1e-300,
                name,
            );
        }
        let gf = xf.to_device(&dev).unwrap();
        assert_allclose(
            &gf.exp().unwrap().to_device(&cpu).unwrap(),
            &xf.exp().unwrap(),
            2e-7,
            0.0,
            "expf",
        );
        let gz = xz.to_device(&dev).unwrap();
        assert_allclose(
            &gz.abs().unwrap().to_device(&cpu).unwrap(),
            &xz.abs().unwrap(),
            2e-7,
            0.0,
            "cabsf",
        );
        // casts (exact)
        let big =
            Array::from_vec(vec![1e10f64, -1e10, f64::NAN, 2.7, -2.7, 300.0], &[6], &cpu).unwrap();
        let gb = big.to_device(&dev).unwrap();
        assert_eq!(
            gb.astype::<i32>().unwrap().to_vec().unwrap(),
            big.astype::<i32>().unwrap().to_vec().unwrap()
        );
        assert_eq!(
            gb.astype::<u8>().unwrap().to_vec().unwrap(),
            big.astype::<u8>().unwrap().to_vec().unwrap()
        );
        assert_eq!(
            gb.astype::<bool>().unwrap().to_vec().unwrap(),
            big.astype::<bool>().unwrap().to_vec().unwrap()
        );
        assert_eq!(
            gc.astype::<f32>().unwrap().to_vec().unwrap(),
            xc.astype::<f32>().unwrap().to_vec().unwrap()
        );
        assert_eq!(
            gf.astype::<c64>().unwrap().to_vec().unwrap(),
            xf.astype::<c64>().unwrap().to_vec().unwrap()
        );
    }
    // NumPy's casting rules on the CPU
    let v = Array::from_vec(vec![2.7f64, -2.7, f64::NAN, 1e10], &[4], &cpu).unwrap();
    assert_eq!(
        v.astype::<i32>().unwrap().to_vec().unwrap(),
        vec![2, -2, 0, i32::MAX]
    );
    assert_eq!(
        v.astype::<bool>().unwrap().to_vec().unwrap(),
        vec![true, true, true, true]
    );
}

#[test]
fn comparisons_where_and_nan_inf_propagate() {
    for dev in devices() {
        let a =
            Array::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY, -0.0, 2.0], &[5], &dev).unwrap();
        let b =
            Array::from_vec(vec![2.0f32, 1.0, f32::INFINITY, 0.0, f32::NAN], &[5], &dev).unwrap();
        assert_eq!(
            a.lt(&b).unwrap().to_vec().unwrap(),
            vec![true, false, false, false, false]
        );
        assert_eq!(
            a.eq(&b).unwrap().to_vec().unwrap(),
            vec![false, false, true, true, false]
        );
        assert_eq!(
            a.ne(&b).unwrap().to_vec().unwrap(),
            vec![true, true, false, false, true]
        );
        let m = a.maximum(&b).unwrap().to_vec().unwrap();
        assert!(m[1].is_nan() && m[4].is_nan() && m[0] == 2.0 && m[2] == f32::INFINITY);
        let s = (&a + &b).unwrap().to_vec().unwrap();
        assert!(s[1].is_nan() && s[2] == f32::INFINITY);
        let inf_minus_inf = (&a - &b).unwrap().to_vec().unwrap();
        assert!(inf_minus_inf[2].is_nan());
        let c = a.gt_scalar(0.5).unwrap();
        let w = where_(&c, &a, &b).unwrap().to_vec().unwrap();
        assert_eq!(w[0], 1.0);
        assert_eq!(w[1], 1.0); // NaN > 0.5 is false
        assert!(w[3] == 0.0 && w[4] == 2.0);
        assert!(a.isnan().unwrap().to_vec().unwrap()[1]);
        assert_eq!(
            a.isfinite().unwrap().to_vec().unwrap(),
            vec![true, false, false, true, true]
        );
        let one = Array::<f32>::ones(&[5], &dev).unwrap();
        let by_zero = one
            .div(&Array::zeros(&[5], &dev).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(by_zero.iter().all(|v| *v == f32::INFINITY));
    }
}

#[test]
fn broadcasting_and_strided_operands() {
    let cpu = Device::Cpu;
    let a = randn::<f32>(&[4, 1, 5], 21, &cpu).unwrap();
    let b = randn::<f32>(&[3, 1], 22, &cpu).unwrap();
    let want = (&a + &b).unwrap();
    assert_eq!(want.shape(), &[4, 3, 5]);
    let (av, bv, wv) = (
        a.to_vec().unwrap(),
        b.to_vec().unwrap(),
        want.to_vec().unwrap(),
    );
    for i in 0..4 {
        for j in 0..3 {
            for k in 0..5 {
                assert_eq!(wv[i * 15 + j * 5 + k], av[i * 5 + k] + bv[j]);
            }
        }
    }
    for dev in devices() {
        let ga = a.to_device(&dev).unwrap();
        let gb = b.to_device(&dev).unwrap();
        assert_allclose(
            &(&ga + &gb).unwrap(),
            &want.to_device(&dev).unwrap(),
            0.0,
            0.0,
            "broadcast add",
        );
        // 9-d operand whose axes cannot be merged on the GPU falls on the strided path
        let big = randn::<f64>(&[2, 3, 2, 3, 2, 3, 2, 3], 23, &dev).unwrap();
        let tr = big.permute(&[7, 6, 5, 4, 3, 2, 1, 0]).unwrap();
        let got = tr.mul_scalar(2.0).unwrap();
        let want2 = tr.to_device(&cpu).unwrap().mul_scalar(2.0).unwrap();
        assert_allclose(
            &got.to_device(&cpu).unwrap(),
            &want2,
            0.0,
            0.0,
            "8-d transposed",
        );
        // a misaligned contiguous view (offset 1) takes the scalar contiguous path
        let v = randn::<f32>(&[1027], 24, &dev).unwrap();
        let off = v.slice_axis(0, Some(1), None, 1).unwrap();
        let r = off.mul_scalar(3.0).unwrap().to_vec().unwrap();
        let vv = v.to_vec().unwrap();
        assert!(r.iter().zip(&vv[1..]).all(|(x, y)| *x == y * 3.0));
        // errors, the same on every device
        let c = randn::<f32>(&[4], 25, &dev).unwrap();
        assert!(matches!(&ga + &c, Err(Error::ShapeMismatch { .. })));
    }
}

#[test]
fn device_mismatch_is_a_typed_error() {
    let devs = devices();
    let Some(gpu) = devs.get(1) else { return };
    let a = Array::<f32>::ones(&[3], &Device::Cpu).unwrap();
    let b = Array::<f32>::ones(&[3], gpu).unwrap();
    assert!(matches!(&a + &b, Err(Error::DeviceMismatch { .. })));
    let mut c = Array::<f32>::zeros(&[3], gpu).unwrap();
    assert!(matches!(c.assign(&a), Err(Error::DeviceMismatch { .. })));
}

#[test]
fn cuda_device_env_override_parses() {
    assert_eq!(Device::parse("cpu").unwrap(), Device::Cpu);
    assert!(matches!(
        Device::parse("tpu"),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Device::parse("cuda:x"),
        Err(Error::InvalidArgument { .. })
    ));
    // a device that does not exist is an error value, not a panic
    assert!(Device::cuda(4096).is_err());
}
