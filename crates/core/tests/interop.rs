//! ndarray views and owned arrays without a copy on the CPU, approx's comparisons and equality
//! on arrays of both devices.

use approx::{assert_abs_diff_eq, assert_relative_eq, assert_ulps_eq, relative_eq};
use cusci_core::{c64, Array, Device};

fn gpu() -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("GPU required: {e}")
            }
            None
        }
    }
}

#[test]
fn ndarray_views_borrow_and_owned_arrays_move() {
    let cpu = Device::Cpu;
    let a = Array::from_vec((0..24).map(f64::from).collect(), &[2, 3, 4], &cpu).unwrap();
    // the view reads the array's own storage: a permuted, sliced, broadcast layout as it is
    let p = a.permute(&[2, 0, 1]).unwrap();
    let v = p.as_ndarray().unwrap();
    assert_eq!(v.shape(), &[4, 2, 3]);
    assert_eq!(v[[3, 1, 2]], 23.0);
    let addr = |x: &Array<f64>| x.as_ndarray().unwrap().as_ptr();
    assert_eq!(addr(&a), addr(&a.reshape(&[6, 4]).unwrap()));
    let s = a.slice_axis(2, Some(1), None, 2).unwrap();
    assert_eq!(s.as_ndarray().unwrap().to_owned(), s.to_ndarray().unwrap());
    let b = Array::from_vec(vec![1.0f64, 2.0], &[2], &cpu)
        .unwrap()
        .broadcast_to(&[3, 2])
        .unwrap();
    assert_eq!(b.as_ndarray().unwrap().sum(), 9.0);
    // negative strides: no borrowed view, the copy still works
    let r = a.slice_axis(0, None, None, -1).unwrap();
    assert!(r.as_ndarray().is_none());
    assert_eq!(r.to_ndarray().unwrap()[[0, 0, 0]], 12.0);
    // an owned standard-layout array moves in (same buffer); others are copied in C order
    let n = ndarray::Array2::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as f32);
    let ptr = n.as_ptr();
    let m = Array::from_ndarray_owned(n, &cpu).unwrap();
    assert_eq!(m.as_ndarray().unwrap().as_ptr(), ptr);
    // a standard-layout tail of a buffer (its data starts past the buffer's start)
    let tail = ndarray::Array2::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as f32)
        .slice_move(ndarray::s![1.., ..]);
    assert!(tail.is_standard_layout());
    let mtail = Array::from_ndarray_owned(tail.clone(), &cpu).unwrap();
    assert_eq!(mtail.to_ndarray().unwrap(), tail.into_dyn());
    let t = ndarray::Array2::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as f32).reversed_axes();
    let mt = Array::from_ndarray_owned(t.clone(), &cpu).unwrap();
    assert_eq!(mt.shape(), &[5, 3]);
    assert_eq!(mt.to_ndarray().unwrap(), t.into_dyn());
    if let Some(dev) = gpu() {
        assert!(m.to_device(&dev).unwrap().as_ndarray().is_none());
        let g = Array::from_ndarray_owned(ndarray::arr1(&[1.0f64, 2.0]), &dev).unwrap();
        assert_eq!(g.to_vec().unwrap(), vec![1.0, 2.0]);
    }
}

#[test]
fn approx_and_equality_on_arrays() {
    let mut devs = vec![Device::Cpu];
    devs.extend(gpu());
    for dev in devs {
        let a = Array::from_vec(vec![1.0f64, 2.0, 3.0], &[3], &dev).unwrap();
        let b = Array::from_vec(vec![1.0 + 1e-12, 2.0, 3.0 - 1e-12], &[3], &dev).unwrap();
        assert_relative_eq!(a, b, max_relative = 1e-10);
        assert_abs_diff_eq!(a, b, epsilon = 1e-11);
        assert_ulps_eq!(a, a.copy().unwrap());
        assert!(!relative_eq!(a, b, max_relative = 1e-14));
        assert_eq!(a, a.copy().unwrap());
        assert_ne!(a, b);
        // shapes must agree
        let c = a.reshape(&[3, 1]).unwrap();
        assert!(!relative_eq!(a, c, max_relative = 1.0));
        assert_ne!(a, c);
        // NaN is not equal to itself; complex elements compare per part
        let n = Array::from_vec(vec![f32::NAN], &[1], &dev).unwrap();
        assert_ne!(n, n.copy().unwrap());
        let z = Array::from_vec(vec![c64::new(1.0, 2.0)], &[1], &dev).unwrap();
        let w = Array::from_vec(vec![c64::new(1.0, 2.0 + 1e-13)], &[1], &dev).unwrap();
        assert_relative_eq!(z, w, max_relative = 1e-12);
    }
}
