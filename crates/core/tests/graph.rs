//! CUDA graphs: a captured chain of calls replayed with new inputs gives the eager results bit
//! for bit (on the CPU the graph calls its body); what cannot be captured is a typed error and
//! leaves the device usable.

use cusci_core::graph::Graph;
use cusci_core::testing::{gpu, randn};
use cusci_core::{Array, Device, Error, Result};
use std::cell::{Cell, RefCell};

/// 20 small calls: element-wise arithmetic and functions, a host upload inside the chain,
/// broadcasting, reductions over an axis, a cumulative sum.
fn chain(x: &Array<f32>) -> Result<Vec<Array<f32>>> {
    let dev = x.device().clone();
    let w = Array::<f32>::from_vec(
        (0..x.shape()[1]).map(|i| 1.0 + i as f32 / 64.0).collect(),
        &[x.shape()[1]],
        &dev,
    )?; // 1: an upload
    let a = x.mul_scalar(2.5)?; // 2
    let b = a.add_scalar(1.0)?; // 3
    let c = b.mul(&w)?; // 4 (broadcast)
    let d = c.tanh()?; // 5
    let e = d.abs()?; // 6
    let f = e.add_scalar(1e-3)?; // 7
    let g = f.sqrt()?; // 8
    let h = g.sub(&d)?; // 9
    let i = h.clip(-0.75, 0.75)?; // 10
    let j = i.exp()?; // 11
    let k = j.log()?; // 12
    let l = k.maximum_scalar(-0.5)?; // 13
    let m = l.mul(&x.sin()?)?; // 14, 15
    let n = m.div_scalar(3.0)?; // 16
    let rows = n.sum_axes(&[1])?; // 17
    let means = n.mean_axes(&[0])?; // 18
    let peak = n.max_axes(&[1])?; // 19
    let cs = rows.cumsum(0)?; // 20
    Ok(vec![n, rows, means, peak, cs])
}

fn host(outs: &[Array<f32>]) -> Vec<Vec<u32>> {
    outs.iter()
        .map(|a| a.to_vec().unwrap().iter().map(|v| v.to_bits()).collect())
        .collect()
}

fn check_replays_match_eager(dev: &Device) {
    let x0 = randn::<f32>(&[8, 1024], 1, dev).unwrap();
    let mut g = Graph::capture(dev, &[&x0], |ins| chain(&ins[0])).unwrap();
    assert_eq!(host(g.outputs()), host(&chain(&x0).unwrap()));
    for seed in [2u64, 3, 4] {
        let x = randn::<f32>(&[8, 1024], seed, dev).unwrap();
        let want = host(&chain(&x).unwrap());
        let got = host(g.run(&[&x]).unwrap());
        assert_eq!(got, want, "replay with seed {seed}");
    }
    // the inputs are copied in: the caller's array is untouched and may be reused
    let x = randn::<f32>(&[8, 1024], 5, dev).unwrap();
    let before = x.to_vec().unwrap();
    let first = host(g.run(&[&x]).unwrap());
    let second = host(g.run(&[&x]).unwrap());
    assert_eq!(first, second);
    assert_eq!(x.to_vec().unwrap(), before);
}

#[test]
fn cpu_graph_calls_its_body() {
    check_replays_match_eager(&Device::Cpu);
}

#[test]
fn gpu_replays_match_eager_bit_for_bit() {
    let Some(dev) = gpu() else { return };
    check_replays_match_eager(&dev);
    // a second graph on a new stream of the same GPU, and the first dropped before the second runs
    let s = match &dev {
        Device::Cuda(d) => Device::Cuda(d.new_stream().unwrap()),
        Device::Cpu => unreachable!(),
    };
    let x = randn::<f32>(&[3, 257], 9, &s).unwrap();
    let g1 = Graph::capture(&s, &[&x], |ins| chain(&ins[0])).unwrap();
    let mut g2 = Graph::capture(&s, &[&x], |ins| chain(&ins[0])).unwrap();
    drop(g1);
    let y = randn::<f32>(&[3, 257], 10, &s).unwrap();
    assert_eq!(host(g2.run(&[&y]).unwrap()), host(&chain(&y).unwrap()));
}

#[test]
fn gpu_capture_beside_another_thread_on_the_same_stream() {
    let Some(dev) = gpu() else { return };
    // another thread keeps queueing work on the handle's own stream and waiting for it while
    // graphs are captured: its waits are not refused, its work is not recorded
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let busy = s.spawn(|| {
            let y = randn::<f32>(&[8, 1024], 7, &dev).unwrap();
            let want = host(&chain(&y).unwrap());
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                assert_eq!(host(&chain(&y).unwrap()), want);
                dev.synchronize().unwrap();
            }
        });
        for seed in 0..5u64 {
            let x = randn::<f32>(&[8, 1024], 20 + seed, &dev).unwrap();
            let mut g = Graph::capture(&dev, &[&x], |ins| chain(&ins[0])).unwrap();
            let z = randn::<f32>(&[8, 1024], 30 + seed, &dev).unwrap();
            assert_eq!(host(g.run(&[&z]).unwrap()), host(&chain(&z).unwrap()));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        busy.join().unwrap();
    });
}

#[test]
fn gpu_replay_is_faster_than_eager() {
    let Some(dev) = gpu() else { return };
    let x = randn::<f32>(&[8, 1024], 1, &dev).unwrap();
    let mut g = Graph::capture(&dev, &[&x], |ins| chain(&ins[0])).unwrap();
    let time = |f: &mut dyn FnMut()| {
        for _ in 0..5 {
            f();
        }
        dev.synchronize().unwrap();
        let t = std::time::Instant::now();
        for _ in 0..200 {
            f();
        }
        dev.synchronize().unwrap();
        t.elapsed().as_secs_f64() / 200.0
    };
    let eager = time(&mut || {
        chain(&x).unwrap();
    });
    let replay = time(&mut || {
        g.run(&[&x]).unwrap();
    });
    eprintln!(
        "chain of 20 calls on [8, 1024] f32: eager {:.1} µs, graph {:.1} µs ({:.1}×)",
        eager * 1e6,
        replay * 1e6,
        eager / replay
    );
    assert!(replay < eager, "the graph is slower than eager calls");
}

#[test]
fn bad_runs_are_errors() {
    for dev in cusci_core::testing::devices() {
        let x = randn::<f32>(&[4, 16], 1, &dev).unwrap();
        let mut g = Graph::capture(&dev, &[&x], |ins| Ok(vec![ins[0].mul_scalar(2.0)?])).unwrap();
        let wrong = randn::<f32>(&[4, 17], 1, &dev).unwrap();
        assert!(matches!(g.run(&[&wrong]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(
            g.run(&[&x, &x]),
            Err(Error::InvalidArgument { .. })
        ));
        if dev.is_cuda() {
            // an output kept past the next run would be overwritten under the caller: refused
            let kept = g.run(&[&x]).unwrap()[0].clone();
            assert!(matches!(g.run(&[&x]), Err(Error::InvalidArgument { .. })));
            drop(kept);
            let copy = g.run(&[&x]).unwrap()[0].copy().unwrap();
            g.run(&[&x]).unwrap();
            assert_eq!(
                copy.to_vec().unwrap(),
                x.mul_scalar(2.0).unwrap().to_vec().unwrap()
            );
            // an input on the CPU
            let xc = x.to_device(&Device::Cpu).unwrap();
            assert!(matches!(g.run(&[&xc]), Err(Error::DeviceMismatch { .. })));
        }
    }
}

#[test]
fn gpu_what_cannot_be_captured_is_an_error_and_the_device_goes_on() {
    let Some(dev) = gpu() else { return };
    let x = randn::<f32>(&[4, 64], 1, &dev).unwrap();
    // reading device data on the host inside the body
    let r = Graph::capture(&dev, &[&x], |ins| {
        let s = ins[0].to_vec()?;
        Ok(vec![ins[0].add_scalar(s[0])?])
    });
    assert!(
        matches!(r, Err(Error::InvalidArgument { .. })),
        "{:?}",
        r.err()
    );
    // a scalar reduction read on the host
    let r = Graph::capture(&dev, &[&x], |ins| {
        let s = ins[0].sum()?;
        Ok(vec![ins[0].add_scalar(s)?])
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
    // outputs whose shape changes between the eager call and the capture
    let calls = Cell::new(0usize);
    let r = Graph::capture(&dev, &[&x], |ins| {
        calls.set(calls.get() + 1);
        let n = if calls.get() == 1 { 32 } else { 16 };
        Ok(vec![ins[0].slice_axis(1, Some(0), Some(n), 1)?.copy()?])
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })));
    // an array made inside the body kept alive outside it
    {
        let leak: RefCell<Vec<Array<f32>>> = RefCell::new(Vec::new());
        let r = Graph::capture(&dev, &[&x], |ins| {
            let t = ins[0].mul_scalar(3.0)?;
            leak.borrow_mut().push(t.clone());
            Ok(vec![t.add_scalar(1.0)?])
        });
        assert!(matches!(r, Err(Error::InvalidArgument { .. })));
    }
    // an error of the body itself comes back as it is
    let r: Result<Graph<f32, f32>> =
        Graph::capture(&dev, &[&x], |ins| Ok(vec![ins[0].reshape(&[5, 5])?]));
    assert!(matches!(r, Err(Error::ShapeMismatch { .. })));
    // the device is usable afterwards, eager and captured
    let y = x.mul_scalar(2.0).unwrap().to_vec().unwrap();
    let xs = x.to_vec().unwrap();
    assert!(y.iter().zip(&xs).all(|(a, b)| *a == 2.0 * b));
    let mut g = Graph::capture(&dev, &[&x], |ins| Ok(vec![ins[0].mul_scalar(2.0)?])).unwrap();
    assert_eq!(g.run(&[&x]).unwrap()[0].to_vec().unwrap(), y);
}
