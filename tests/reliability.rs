//! The GPU side of the reliability promises (issue 33): inputs past 2^31 elements, recovery
//! after the device runs out of memory, and eight threads on their own streams giving the serial
//! results bit for bit. The large and out-of-memory tests need a GPU (skipped without one); the
//! threads test runs on every device.

use cusci::core::testing::{devices, gpu};
use cusci::fft::{rfft, FftOptions};
use cusci::ndimage::{gaussian_filter, label, uniform_filter1d, FilterOptions, GaussianOptions};
use cusci::sparse::CsrMatrix;
use cusci::{c32, Array, Device, Error};

/// 2^31 + 7: past every 32-bit element count.
const BIG: usize = (1 << 31) + 7;

/// The large and the out-of-memory tests take the card one at a time (the test harness runs
/// tests on several threads).
static CARD: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Indices to check in a long array: both ends, both sides of 2^31 and some in between.
fn probes(n: usize) -> Vec<usize> {
    let mut p = vec![0, 1, 2, 999, 1000, 123_456_789, n / 2];
    for c in [1usize << 31, n - 1] {
        p.extend(c.saturating_sub(3)..(c + 3).min(n));
    }
    p.retain(|&i| i < n);
    p
}

/// The element at `i` of a 1-D array, read without copying the whole array back.
fn at<T: cusci::core::Element>(a: &Array<T>, i: usize) -> T {
    let i = i as isize;
    a.slice_axis(0, Some(i), Some(i + 1), 1)
        .unwrap()
        .to_vec()
        .unwrap()[0]
}

#[test]
fn sum_filter_fft_label_and_spmv_past_2_31_elements() {
    let Some(dev) = gpu() else {
        return;
    };
    let _card = CARD.lock().unwrap_or_else(|e| e.into_inner());
    // sum: 2^31 + 7 ones (f32 input; the reduction's result rounds to f32 once)
    {
        let x = Array::<f32>::ones(&[BIG], &dev).unwrap();
        let s = x.sum().unwrap() as f64;
        assert!(
            ((s - BIG as f64) / BIG as f64).abs() < 1e-6,
            "sum of {BIG} ones = {s}"
        );
    }
    // a 1-D filter across the 2^31 boundary: uniform_filter1d(size 5, reflect) of i mod 1000
    {
        let h: Vec<f32> = (0..BIG).map(|i| (i % 1000) as f32).collect();
        let x = Array::from_vec(h, &[BIG], &dev).unwrap();
        let y = uniform_filter1d(&x, 5, 0, &FilterOptions::default()).unwrap();
        assert_eq!(y.shape(), &[BIG]);
        let v = |j: isize| -> f64 {
            // SciPy's reflect: d c b a | a b c d | d c b a
            let j = if j < 0 {
                -j - 1
            } else if j >= BIG as isize {
                2 * BIG as isize - j - 1
            } else {
                j
            };
            (j as usize % 1000) as f64
        };
        for i in probes(BIG) {
            let want = (-2..=2).map(|k| v(i as isize + k)).sum::<f64>() / 5.0;
            let got = at(&y, i) as f64;
            assert!(
                (got - want).abs() <= 1e-3,
                "uniform_filter1d[{i}] = {got}, want {want}"
            );
        }
    }
    // an FFT over 2^31 + 7 elements: rfft of 143,165,577 rows of 15 = 3 * 5 * 143165577
    {
        let (rows, cols) = (BIG / 15, 15);
        assert_eq!(rows * cols, BIG);
        let f = |r: usize, c: usize| ((r % 7) * 3 + c) as f32;
        let h: Vec<f32> = (0..BIG).map(|i| f(i / cols, i % cols)).collect();
        let x = Array::from_vec(h, &[rows, cols], &dev).unwrap();
        let y = rfft(&x, &FftOptions::default()).unwrap();
        assert_eq!(y.shape(), &[rows, 8]);
        for r in [0, 1, 6, rows / 2, (1 << 31) / 15, rows - 1] {
            let got: Vec<c32> = y
                .slice_axis(0, Some(r as isize), Some(r as isize + 1), 1)
                .unwrap()
                .to_vec()
                .unwrap();
            for (k, g) in got.iter().enumerate() {
                let (mut re, mut im) = (0f64, 0f64);
                for c in 0..cols {
                    let t = -2.0 * std::f64::consts::PI * (k * c) as f64 / cols as f64;
                    re += f(r, c) as f64 * t.cos();
                    im += f(r, c) as f64 * t.sin();
                }
                assert!(
                    (g.re as f64 - re).abs() < 1e-3 && (g.im as f64 - im).abs() < 1e-3,
                    "rfft row {r} bin {k}: {g}, want {re} + {im}i"
                );
            }
        }
    }
    // label: runs of true separated by one false every 1000 elements
    {
        let h: Vec<bool> = (0..BIG).map(|i| i % 1000 != 999).collect();
        let x = Array::from_vec(h, &[BIG], &dev).unwrap();
        let (lab, n) = label(&x, None).unwrap();
        assert_eq!(n, BIG.div_ceil(1000));
        for i in probes(BIG) {
            let want = if i % 1000 == 999 { 0 } else { i / 1000 + 1 };
            assert_eq!(at(&lab, i) as usize, want, "label[{i}]");
        }
    }
    // SpMV with 2^31 + 7 stored entries (64-bit indices), on both of the GPU's routes: short
    // rows (own kernel: 2^28 rows of 8) and long rows (cuSPARSE: 2^21 rows of 1024)
    spmv_past_2_31(&dev, 1 << 28, 8);
    spmv_past_2_31(&dev, 1 << 21, 1024);
}

/// `rows` rows of `per_row` entries, the last row 7 more (2^31 + 7 in all when `rows * per_row`
/// is 2^31); row r holds columns (r + 5j) mod n, all ones; x[c] = c mod 4.
fn spmv_past_2_31(dev: &Device, rows: usize, per_row: usize) {
    let n = rows;
    let len = |r: usize| if r + 1 == rows { per_row + 7 } else { per_row };
    let mut indptr = Vec::with_capacity(rows + 1);
    let mut indices = Vec::with_capacity(BIG);
    indptr.push(0i64);
    for r in 0..rows {
        indices.extend((0..len(r)).map(|j| ((r + 5 * j) % n) as i64));
        indptr.push(indices.len() as i64);
    }
    assert_eq!(indices.len(), BIG);
    let data = Array::<f32>::ones(&[BIG], dev).unwrap();
    let indices = Array::from_vec(indices, &[BIG], dev).unwrap();
    let indptr = Array::from_vec(indptr, &[rows + 1], dev).unwrap();
    let a = CsrMatrix::new(data, indices, indptr, (rows, n)).unwrap();
    let xs: Vec<f32> = (0..n).map(|c| (c % 4) as f32).collect();
    let x = Array::from_vec(xs, &[n], dev).unwrap();
    let y = a
        .dot(&x)
        .unwrap_or_else(|e| panic!("spmv of {rows} rows of {per_row}: {e}"));
    for r in [0, 1, 2, 3, rows / 2, rows - 2, rows - 1] {
        let want: usize = (0..len(r)).map(|j| ((r + 5 * j) % n) % 4).sum();
        assert_eq!(
            at(&y, r),
            want as f32,
            "spmv of {rows} rows of {per_row}: row {r}"
        );
    }
}

#[test]
fn the_device_works_after_running_out_of_memory() {
    let Some(dev) = gpu() else {
        return;
    };
    let _card = CARD.lock().unwrap_or_else(|e| e.into_inner());
    let img: Vec<f32> = (0..512 * 512).map(|i| ((i * 7919) % 1013) as f32).collect();
    let opts = GaussianOptions::default();
    let cpu = Array::from_slice(&img, &[512, 512], &Device::Cpu).unwrap();
    let want = gaussian_filter(&cpu, &[2.0], &opts)
        .unwrap()
        .to_vec()
        .unwrap();
    let x = Array::from_slice(&img, &[512, 512], &dev).unwrap();
    // fill the card with 1 GiB blocks until it refuses one
    let mut held = Vec::new();
    let refused = loop {
        match Array::<u8>::zeros(&[1 << 30], &dev) {
            Ok(a) => held.push(a),
            Err(e) => break e,
        }
        assert!(held.len() < 4096, "4 TiB allocated without an error");
    };
    assert!(
        matches!(refused, Error::OutOfMemory { .. }),
        "expected OutOfMemory, got {refused:?}"
    );
    // the GPU's result against the CPU's: f32 sums in another order
    let close = |y: &[f32]| {
        y.iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0f32, f32::max)
    };
    // with the card full a filter either runs or says OutOfMemory: never another error
    match gaussian_filter(&x, &[2.0], &opts).and_then(|y| y.to_vec()) {
        Ok(y) => assert!(close(&y) < 1e-5, "with a full card: error {}", close(&y)),
        Err(Error::OutOfMemory { .. }) => {}
        Err(e) => panic!("gaussian_filter with a full card: {e:?}"),
    }
    // a request past the card, then everything freed: the same device computes as before
    assert!(matches!(
        Array::<u8>::zeros(&[1 << 40], &dev),
        Err(Error::OutOfMemory { .. })
    ));
    drop(held);
    let y = gaussian_filter(&x, &[2.0], &opts)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!(close(&y) < 1e-5, "after recovery: error {}", close(&y));
}

/// One pipeline of calls from several crates; every result as host data.
fn pipeline(dev: &Device, seed: usize) -> Vec<Vec<u32>> {
    let n = 4096 + seed;
    let sig: Vec<f32> = (0..64 * n)
        .map(|i| ((i * 2654435761 + seed) % 10007) as f32 / 10007.0)
        .collect();
    let x = Array::from_vec(sig, &[64, n], dev).unwrap();
    let spec = rfft(&x, &FftOptions::default()).unwrap();
    let smooth = gaussian_filter(&x, &[1.5], &GaussianOptions::default()).unwrap();
    let total = smooth.sum().unwrap();
    let m = 64;
    let a: Vec<f64> = (0..m * m)
        .map(|i| {
            if i % (m + 1) == 0 {
                m as f64
            } else {
                ((i * 31 + seed) % 17) as f64 / 17.0
            }
        })
        .collect();
    let a = Array::from_vec(a, &[m, m], dev).unwrap();
    let b = Array::from_vec((0..m).map(|i| i as f64).collect(), &[m], dev).unwrap();
    let sol = cusci::linalg::solve(&a, &b).unwrap();
    let s = cusci::sparse::diags::<f32>(
        &[&vec![-1.0; n - 1], &vec![2.0; n], &vec![-1.0; n - 1]],
        &[-1, 0, 1],
        Some((n, n)),
        dev,
    )
    .unwrap();
    let row = smooth
        .slice_axis(0, Some(0), Some(1), 1)
        .unwrap()
        .reshape(&[n as isize])
        .unwrap();
    let lap = s.dot(&row).unwrap();
    let bits32 = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<u32>>();
    let spec: Vec<f32> = spec
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(|c| [c.re, c.im])
        .collect();
    let sol: Vec<f32> = sol.to_vec().unwrap().iter().map(|&v| v as f32).collect();
    let sol64: Vec<u32> = cusci::linalg::solve(
        &Array::from_vec(vec![2.0f64, 1.0, 1.0, 3.0], &[2, 2], dev).unwrap(),
        &Array::from_vec(vec![1.0f64, 2.0], &[2], dev).unwrap(),
    )
    .unwrap()
    .to_vec()
    .unwrap()
    .iter()
    .flat_map(|v| {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32]
    })
    .collect();
    vec![
        bits32(spec),
        bits32(smooth.to_vec().unwrap()),
        vec![total.to_bits()],
        bits32(sol),
        bits32(lap.to_vec().unwrap()),
        sol64,
    ]
}

#[test]
fn eight_threads_on_their_own_streams_give_the_serial_results_bit_for_bit() {
    for dev in devices() {
        let serial: Vec<_> = (0..8).map(|t| pipeline(&dev, t)).collect();
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let d = match &dev {
                        Device::Cuda(c) => Device::Cuda(c.new_stream().unwrap()),
                        Device::Cpu => Device::Cpu,
                    };
                    s.spawn(move || (0..3).map(|_| pipeline(&d, t)).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, runs) in got.iter().enumerate() {
            for (k, r) in runs.iter().enumerate() {
                assert!(
                    *r == serial[t],
                    "on {dev}: thread {t}, run {k} differs from serial"
                );
            }
        }
    }
}
