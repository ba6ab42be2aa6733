//! Devices, streams, events, memory, user kernels and the kernel cache.

use cusci_core::elementwise::{Arg, RawArg, Scalar};
use cusci_core::testing::{devices, gpu};
use cusci_core::{Array, Device, ElementwiseKernel, Error, Event, RawKernel};

#[test]
fn auto_picks_a_usable_device() {
    let d = Device::auto().unwrap();
    match gpu() {
        Some(_) => assert!(d.is_cuda() || std::env::var("CUSCI_DEVICE").as_deref() == Ok("cpu")),
        None => assert_eq!(d, Device::Cpu),
    }
}

#[test]
fn cuda_device_properties_and_library_report() {
    let libs = cusci_core::cuda::libs::report();
    assert_eq!(libs.len(), cusci_core::cuda::libs::LIBRARIES.len());
    let Some(Device::Cuda(d)) = gpu() else { return };
    let p = d.props();
    assert!(!p.name.is_empty());
    assert!(p.compute_capability.0 >= 5);
    assert!(p.multiprocessors > 0 && p.total_memory > 0);
    assert!(libs.iter().any(|l| l.name == "cuda" && l.path.is_some()));
    assert!(libs.iter().any(|l| l.name == "nvrtc" && l.path.is_some()));
}

#[test]
fn streams_and_events_order_and_time_work() {
    let Some(Device::Cuda(d)) = gpu() else { return };
    let s2 = d.new_stream().unwrap();
    assert!(!d.same_stream(&s2) && d == s2);
    let x = Array::<f32>::ones(&[1 << 20], &Device::Cuda(d.clone())).unwrap();
    let start = Event::record(&d).unwrap();
    let y = x.mul_scalar(3.0).unwrap();
    let end = Event::record(&d).unwrap();
    assert!(start.elapsed_ms(&end).unwrap() >= 0.0);
    // hand the result to another stream: it waits for the first stream's event
    s2.wait_event(&end).unwrap();
    let y2 = y.on_stream(&Device::Cuda(s2.clone())).unwrap();
    let z = y2.add_scalar(1.0).unwrap();
    s2.synchronize().unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&v| v == 4.0));
    assert!(matches!(
        x.on_stream(&Device::Cpu),
        Err(Error::DeviceMismatch { .. })
    ));
}

#[test]
fn memory_pool_info_oom_and_recovery() {
    let Some(dev @ Device::Cuda(_)) = gpu() else {
        return;
    };
    let d = dev.as_cuda().unwrap().clone();
    let before = d.memory_info().unwrap();
    assert!(before.total > 0 && before.free <= before.total);
    {
        let _a = Array::<f32>::zeros(&[64 << 20], &dev).unwrap(); // 256 MiB
        let during = d.memory_info().unwrap();
        assert!(
            during.used >= before.used + (256 << 20),
            "{before:?} -> {during:?}"
        );
    }
    d.synchronize().unwrap();
    let after = d.memory_info().unwrap();
    assert!(
        after.cached >= 256 << 20,
        "freed blocks stay cached: {after:?}"
    );
    d.free_cached().unwrap();
    assert!(d.memory_info().unwrap().cached < 256 << 20);
    // a 1 TB allocation fails with OutOfMemory and the device keeps working
    match Array::<u8>::zeros(&[1 << 40], &dev) {
        Err(Error::OutOfMemory { requested, free }) => {
            assert_eq!(requested, 1 << 40);
            assert!(free <= before.total);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    let ok = Array::<f32>::ones(&[1000], &dev)
        .unwrap()
        .mul_scalar(2.0)
        .unwrap();
    assert_eq!(ok.to_vec().unwrap(), vec![2.0; 1000]);
}

#[test]
fn freed_blocks_are_reused_on_their_stream() {
    // alone in a child process: the other tests of this executable allocate and free on the same
    // stream and device while it runs, which would take the block or move the memory counts
    if gpu().is_none() {
        return;
    }
    run_child("device::freed_blocks_child", "CUSCI_FREED_CHILD");
}

#[test]
fn freed_blocks_child() {
    // the child half of freed_blocks_are_reused_on_their_stream
    if std::env::var_os("CUSCI_FREED_CHILD").is_none() {
        return;
    }
    let dev = Device::cuda(0).unwrap();
    let d = dev.as_cuda().unwrap().clone();
    let ptr = |a: &Array<f32>| a.dev_ptr().unwrap().addr();
    // a block freed while its kernel may still run is handed to the next allocation of the same
    // size on the same stream, which runs after it (12 MiB blocks)
    let n = 3 << 20;
    let a = Array::<f32>::full(&[n], 1.0, &dev).unwrap();
    let pa = ptr(&a);
    drop(a);
    let before = d.memory_info().unwrap();
    let b = Array::<f32>::full(&[n], 2.0, &dev).unwrap();
    assert_eq!(ptr(&b), pa);
    let during = d.memory_info().unwrap();
    assert!(
        during.used >= before.used + 4 * n,
        "{before:?} -> {during:?}"
    );
    assert_eq!(b.to_vec().unwrap(), vec![2.0; n]);
    // another size, and another stream, do not take it
    drop(b);
    let c = Array::<f32>::zeros(&[n + 1], &dev).unwrap();
    assert_ne!(ptr(&c), pa);
    let other = Device::Cuda(d.new_stream().unwrap());
    let e = Array::<f32>::zeros(&[n], &other).unwrap();
    assert_ne!(ptr(&e), pa);
    assert_eq!(e.to_vec().unwrap(), vec![0.0; n]);
    // kept blocks count as cached and go back to the pool with free_cached
    assert!(d.memory_info().unwrap().cached >= 4 * n);
    drop((c, e));
    d.free_cached().unwrap();
    let f = Array::<f32>::ones(&[n], &dev).unwrap();
    assert_eq!(f.to_vec().unwrap(), vec![1.0; n]);
}

#[test]
fn peak_memory_tracks_and_resets() {
    // alone in a child process, as freed_blocks_are_reused_on_their_stream: the other tests of
    // this executable allocate on the same pool while it runs and would move the mark
    if gpu().is_none() {
        return;
    }
    run_child("device::peak_memory_child", "CUSCI_PEAK_CHILD");
}

#[test]
fn peak_memory_child() {
    // the child half of peak_memory_tracks_and_resets
    if std::env::var_os("CUSCI_PEAK_CHILD").is_none() {
        return;
    }
    let dev = Device::cuda(0).unwrap();
    let d = dev.as_cuda().unwrap().clone();
    let bytes = 8 * (32 << 20); // a 256 MiB f64 array
    d.free_cached().unwrap();
    d.reset_peak_memory().unwrap();
    let start = d.peak_memory().unwrap();
    assert!(start < bytes, "nothing allocated yet, peak {start}");
    let a = Array::<f64>::full(&[32 << 20], 1.5, &dev).unwrap();
    d.synchronize().unwrap();
    let high = d.peak_memory().unwrap();
    assert!(high >= bytes, "peak {high} below the array's {bytes} bytes");
    // the mark stays after the array drops; its block is kept for reuse and still counts
    drop(a);
    d.synchronize().unwrap();
    assert!(d.peak_memory().unwrap() >= bytes);
    // a smaller array after a reset: the mark falls to what is in use now
    d.free_cached().unwrap();
    d.reset_peak_memory().unwrap();
    let low = d.peak_memory().unwrap();
    assert!(
        low < high && low < bytes,
        "after the reset {low}, before {high}"
    );
    let b = Array::<f32>::ones(&[1 << 20], &dev).unwrap(); // 4 MiB
    let mid = d.peak_memory().unwrap();
    assert!(
        (4 << 20..bytes).contains(&mid),
        "peak {mid} with a 4 MiB array live"
    );
    assert_eq!(b.sum().unwrap(), (1 << 20) as f32);
}

#[test]
fn pinned_transfers_round_trip() {
    let Some(dev @ Device::Cuda(_)) = gpu() else {
        let a = Array::<f32>::ones(&[3], &Device::Cpu).unwrap();
        assert!(matches!(a.to_pinned(), Err(Error::InvalidArgument { .. })));
        return;
    };
    let v: Vec<f64> = (0..4099).map(|i| i as f64 * 0.5).collect();
    let a = Array::from_vec(v.clone(), &[4099], &dev).unwrap();
    let p = a.to_pinned().unwrap();
    assert_eq!(&p[..], &v[..]);
    let b = Array::from_pinned(&p, &[4099], &dev).unwrap();
    assert_eq!(b.to_vec().unwrap(), v);
    // more pinned memory than the host has, or than the address space holds: errors, no abort
    let cuda = dev.as_cuda().unwrap();
    assert!(matches!(
        cusci_core::cuda::memory::PinnedVec::<f64>::zeroed(cuda, 1 << 50),
        Err(Error::OutOfMemory { requested, .. }) if requested == 8 << 50
    ));
    assert!(matches!(
        cusci_core::cuda::memory::PinnedVec::<f64>::zeroed(cuda, usize::MAX / 4),
        Err(Error::InvalidArgument { .. })
    ));
}

fn axpy_kernel() -> ElementwiseKernel {
    ElementwiseKernel::new(
        "float32 a, float32 x, float32 y",
        "float32 z",
        "z = a * x + y",
        "axpy_test",
        |i, o| o[0] = Scalar::F32(i[0].to::<f32>() * i[1].to::<f32>() + i[2].to::<f32>()),
    )
    .unwrap()
}

#[test]
fn elementwise_kernel_on_every_device() {
    let k = axpy_kernel();
    let mut results = Vec::new();
    for dev in devices() {
        let x = Array::<f32>::arange(0.0, 1000.0, 1.0, &dev).unwrap();
        let y = Array::<f32>::full(&[1000], 0.5, &dev).unwrap();
        let mut z = Array::<f32>::zeros(&[1000], &dev).unwrap();
        k.call(
            &[
                Arg::Scalar(Scalar::F64(2.0)),
                Arg::Array(&x),
                Arg::Array(&y),
            ],
            &mut [&mut z],
        )
        .unwrap();
        let v = z.to_vec().unwrap();
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &z)| z == 2.0 * i as f32 + 0.5));
        // broadcast inputs, and a strided output
        let row = Array::<f32>::arange(0.0, 4.0, 1.0, &dev).unwrap();
        let col = Array::<f32>::arange(0.0, 3.0, 1.0, &dev)
            .unwrap()
            .reshape(&[3, 1])
            .unwrap();
        let mut out = Array::<f32>::zeros(&[4, 3], &dev).unwrap().t();
        k.call(
            &[
                Arg::Scalar(Scalar::F32(10.0)),
                Arg::Array(&col),
                Arg::Array(&row),
            ],
            &mut [&mut out],
        )
        .unwrap();
        results.push(out.to_vec().unwrap());
        // typed errors, the same on every device
        let xi = Array::<i32>::zeros(&[1000], &dev).unwrap();
        let e = k.call(
            &[
                Arg::Scalar(Scalar::F32(1.0)),
                Arg::Array(&xi),
                Arg::Array(&y),
            ],
            &mut [&mut z],
        );
        assert!(matches!(e, Err(Error::UnsupportedDType { .. })), "{e:?}");
        let short = Array::<f32>::zeros(&[999], &dev).unwrap();
        let e = k.call(
            &[
                Arg::Scalar(Scalar::F32(1.0)),
                Arg::Array(&short),
                Arg::Array(&y),
            ],
            &mut [&mut z],
        );
        assert!(matches!(e, Err(Error::ShapeMismatch { .. })), "{e:?}");
        let e = k.call(&[Arg::Array(&x)], &mut [&mut z]);
        assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    }
    let want: Vec<f32> = (0..3)
        .flat_map(|j| (0..4).map(move |i| 10.0 * j as f32 + i as f32))
        .collect();
    for r in results {
        assert_eq!(r, want);
    }
    assert!(ElementwiseKernel::new("float32 a", "float32 a", "a = a", "bad", |_, _| {}).is_err());
    assert!(ElementwiseKernel::new("float33 a", "float32 b", "b = a", "bad", |_, _| {}).is_err());
}

const RAW: &str = r#"
extern "C" __global__ void scale_add(float* out, const float* x, float s, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * x[i] + (float)i;
}"#;

#[test]
fn raw_kernel_runs_on_the_gpu_and_refuses_the_cpu() {
    let k = RawKernel::new(RAW, "scale_add");
    let cpu = Array::<f32>::ones(&[10], &Device::Cpu).unwrap();
    let e = k.launch(
        &Device::Cpu,
        (1, 1, 1),
        (32, 1, 1),
        0,
        &[RawArg::Array(&cpu)],
    );
    assert!(matches!(e, Err(Error::NotImplemented { .. })));
    let Some(dev) = gpu() else { return };
    let x = Array::<f32>::full(&[1000], 2.0, &dev).unwrap();
    let out = Array::<f32>::zeros(&[1000], &dev).unwrap();
    k.launch(
        &dev,
        (4, 1, 1),
        (256, 1, 1),
        0,
        &[
            RawArg::Array(&out),
            RawArg::Array(&x),
            RawArg::F32(3.0),
            RawArg::I64(1000),
        ],
    )
    .unwrap();
    let v = out.to_vec().unwrap();
    assert!(v.iter().enumerate().all(|(i, &o)| o == 6.0 + i as f32));
    let bad = RawKernel::new("this is not CUDA", "nothing");
    assert!(matches!(
        bad.launch(&dev, (1, 1, 1), (1, 1, 1), 0, &[]),
        Err(Error::Compile { .. })
    ));
}

/// Runs the same kernels as a child process would; prints the compile count.
fn run_kernels(dev: &Device) {
    let x = Array::<f32>::arange(0.0, 100.0, 1.0, dev).unwrap();
    let y = (&x * &x).unwrap().add_scalar(1.0).unwrap();
    let _ = y.astype::<f64>().unwrap().to_vec().unwrap();
    // a new shape must not compile anything
    let n0 = cusci_core::compile_count();
    let z = Array::<f32>::arange(0.0, 1000.0, 1.0, dev).unwrap();
    let _ = (&z * &z)
        .unwrap()
        .add_scalar(1.0)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(
        cusci_core::compile_count(),
        n0,
        "a new shape compiled a kernel"
    );
}

#[test]
fn kernel_cache_child() {
    // the child half of kernel_cache_second_process_compiles_nothing
    if std::env::var_os("CUSCI_CACHE_CHILD").is_none() {
        return;
    }
    let dev = Device::cuda(0).unwrap();
    run_kernels(&dev);
    println!("COMPILES={}", cusci_core::compile_count());
}

#[test]
fn kernel_cache_second_process_compiles_nothing() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("cusci-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = || {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "device::kernel_cache_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CUSCI_CACHE_CHILD", "1")
            .env("CUSCI_CACHE_DIR", &dir)
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "child failed: {s}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        s.lines()
            .find_map(|l| {
                // the test harness prints its own text on the same line
                let rest = l.split("COMPILES=").nth(1)?;
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<usize>().ok()
            })
            .unwrap_or_else(|| panic!("no count in child output: {s}"))
    };
    let first = run();
    let second = run();
    assert!(first > 0, "the first process should compile");
    assert_eq!(second, 0, "the second process compiled {second} kernels");
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert!(files >= first);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs test `name` of this executable alone in a child process with `env` set, and asserts that
/// it passed (for tests that the others' allocations on the same pool would disturb).
fn run_child(name: &str, env: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(env, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "child {name} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
