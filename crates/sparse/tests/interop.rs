//! sprs matrices in and out: no copy on the CPU for the matching storage, the other storage
//! converted, canonical form on the way back, both devices.

use cusci_sparse::{Array, CscMatrix, CsrMatrix, Device};

fn devices() -> Vec<Device> {
    let mut v = vec![Device::Cpu];
    match Device::cuda(0) {
        Ok(d) => v.push(d),
        Err(e) => {
            if std::env::var("CUSCI_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("GPU required: {e}")
            }
        }
    }
    v
}

#[test]
fn sprs_round_trips() {
    // [[1, 0, 2], [0, 0, 3], [4, 5, 0], [0, 0, 0]]
    let dense = vec![1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 0.0];
    let csr = sprs::CsMatI::<f64, i64>::new(
        (4, 3),
        vec![0, 2, 3, 5, 5],
        vec![0, 2, 2, 0, 1],
        vec![1.0, 2.0, 3.0, 4.0, 5.0],
    );
    let csc = csr.to_other_storage();
    for dev in devices() {
        let a = CsrMatrix::from_sprs(csr.clone(), &dev).unwrap();
        assert_eq!(a.shape(), (4, 3));
        assert_eq!(a.toarray().unwrap().to_vec().unwrap(), dense);
        assert_eq!(a.to_sprs().unwrap(), csr);
        // a CSC input to CsrMatrix, and both storages to CscMatrix
        let b = CsrMatrix::from_sprs(csc.clone(), &dev).unwrap();
        assert_eq!(b.toarray().unwrap().to_vec().unwrap(), dense);
        let c = CscMatrix::from_sprs(csc.clone(), &dev).unwrap();
        assert_eq!(c.toarray().unwrap().to_vec().unwrap(), dense);
        assert_eq!(c.to_sprs().unwrap(), csc);
        let d = CscMatrix::from_sprs(csr.clone(), &dev).unwrap();
        assert_eq!(d.toarray().unwrap().to_vec().unwrap(), dense);
        // a non-canonical matrix (unsorted, duplicate) comes back canonical
        let nc = CsrMatrix::new(
            Array::from_vec(vec![2.0f32, 1.0, 0.5], &[3], &dev).unwrap(),
            Array::from_vec(vec![1i32, 0, 1], &[3], &dev).unwrap(),
            Array::from_vec(vec![0i32, 3], &[2], &dev).unwrap(),
            (1, 2),
        )
        .unwrap();
        let s = nc.to_sprs().unwrap();
        assert_eq!(s.indices(), &[0, 1]);
        assert_eq!(s.data(), &[1.0, 2.5]);
    }
    // the CPU takes the vectors without a copy
    let data_ptr = csr.data().as_ptr();
    let a = CsrMatrix::from_sprs(csr, &Device::Cpu).unwrap();
    assert_eq!(a.data().as_ndarray().unwrap().as_ptr(), data_ptr);
}
