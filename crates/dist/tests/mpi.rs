//! MPI ranks (feature `mpi`): run under `mpirun -np N target/.../mpi-<hash>` (`.ci/run` does it
//! for N = 2 and 4); without a launcher it runs as a world of one. Every check compares the
//! ranks' results with a single-process, single-worker run bit for bit, or checks that an error
//! on one rank ends every rank with the same `Err`. A custom harness: MPI is initialised once per
//! process, so the checks share one world.

#![allow(clippy::redundant_closure_call, clippy::type_complexity)] // one closure per check, called in place

use cusci_core::random::Generator;
use cusci_core::{Array, Device, Error, Result};
use cusci_dist::workloads::{option_price, spectral_pipeline, OptionJob, SpectralJob};
use cusci_dist::{Cluster, Grid, LocalOptions, ReduceOp};

fn check(name: &str, rank: usize, r: std::result::Result<(), String>) -> bool {
    match r {
        Ok(()) => {
            println!("rank {rank}: {name} ... ok");
            true
        }
        Err(e) => {
            println!("rank {rank}: {name} ... FAILED: {e}");
            false
        }
    }
}

fn ensure(ok: bool, msg: impl FnOnce() -> String) -> std::result::Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

fn bits32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() {
    let world = Cluster::from_env().expect("Cluster::from_env");
    // a second cluster on the same world: two CPU workers per rank
    let wide = Cluster::from_env_with(&LocalOptions {
        devices: vec![Device::Cpu],
        workers_per_device: 2,
    })
    .expect("from_env_with");
    let rank = world.rank();
    let solo = Cluster::logical(&world.devices()[0], 1).expect("local cluster");
    println!(
        "rank {rank} of {} ({}), devices {:?}",
        world.ranks(),
        world.transport(),
        world.devices()
    );
    let mut ok = true;

    let job = OptionJob {
        paths: 300_007,
        chunk: 1 << 14,
        ..Default::default()
    };
    ok &= check(
        "option price equals the one-worker run bit for bit",
        rank,
        (|| {
            let want = option_price(&solo, &job).map_err(|e| e.to_string())?;
            for c in [&world, &wide] {
                let got = option_price(c, &job).map_err(|e| e.to_string())?;
                ensure(
                    got.price.to_bits() == want.price.to_bits()
                        && got.std_error.to_bits() == want.std_error.to_bits(),
                    || format!("{got:?} vs {want:?}"),
                )?;
            }
            Ok(())
        })(),
    );

    ok &= check(
        "batch_map places items by global index",
        rank,
        (|| {
            let per = 5usize;
            let g = Grid::new(101, 8).map_err(|e| e.to_string())?;
            let dev = world.devices()[0].clone();
            let whole = Generator::with_stream(9, 1)
                .standard_normal::<f32>(&[101, per], &dev)
                .and_then(|a| a.to_vec())
                .map_err(|e| e.to_string())?;
            for c in [&world, &wide] {
                let v = c
                    .batch_map(&g, |w, ch| {
                        ch.generator(9, 1, per as u64)
                            .standard_normal::<f32>(&[ch.len as usize, per], w.device())?
                            .to_vec()
                    })
                    .map_err(|e| e.to_string())?;
                ensure(bits32(&v, &whole), || "batch_map output differs".into())?;
            }
            Ok(())
        })(),
    );

    ok &= check(
        "spectral pipeline equals the one-worker run bit for bit",
        rank,
        (|| {
            let job = SpectralJob {
                signals: 9,
                samples: 512,
                chunk: 2,
                nperseg: 64,
                ..Default::default()
            };
            let want = spectral_pipeline(&solo, &job).map_err(|e| e.to_string())?;
            let got = spectral_pipeline(&world, &job).map_err(|e| e.to_string())?;
            ensure(bits32(&got, &want), || "pipeline output differs".into())
        })(),
    );

    ok &= check(
        "an error in the last rank's chunk is every rank's error",
        rank,
        (|| {
            let g = Grid::new(64, 4).map_err(|e| e.to_string())?;
            let bad = g.chunks() - 1;
            let r = wide.map_reduce(
                &g,
                0u64,
                |_, ch| {
                    if ch.index == bad {
                        Err(cusci_core::error::make::arg(
                            "mpi test",
                            "the last chunk fails",
                        ))
                    } else {
                        Ok(ch.len)
                    }
                },
                |a, b| a + b,
            );
            ensure(
                r == Err(cusci_core::error::make::arg(
                    "mpi test",
                    "the last chunk fails",
                )),
                || format!("{r:?}"),
            )
        })(),
    );

    ok &= check(
        "a rank failing before a collective ends every rank with Err",
        rank,
        (|| {
            let last = world.workers() - 1;
            let r = world.run(|w| {
                if w.index() == last && w.workers() > 1 {
                    return Err(Error::Singular {
                        op: "mpi test".into(),
                        index: 7,
                    });
                }
                let a = Array::from_vec(vec![1.0f64; 8], &[8], w.device())?;
                w.all_reduce(&a, ReduceOp::Sum)?;
                w.barrier()?;
                Ok(())
            });
            if world.workers() > 1 {
                ensure(
                    r == Err(Error::Singular {
                        op: "mpi test".into(),
                        index: 7,
                    }),
                    || format!("{r:?}"),
                )
            } else {
                ensure(r.is_ok(), || format!("{r:?}"))
            }
        })(),
    );

    ok &= check(
        "collectives after a failure",
        rank,
        (|| {
            let n = wide.workers();
            let r: Result<Vec<(Vec<f64>, Vec<f64>, Vec<usize>)>> = wide.run(|w| {
                let i = w.index() as f64;
                let a = Array::from_vec(vec![i, 1.0], &[2], w.device())?;
                let s = w.all_reduce(&a, ReduceOp::Sum)?.to_vec()?;
                let b = w.broadcast(&a, n - 1)?.to_vec()?;
                let g = w.all_gather(&a)?;
                Ok((s, b, g.shape().to_vec()))
            });
            let r = r.map_err(|e| e.to_string())?;
            let tot: f64 = (0..n).map(|i| i as f64).sum();
            for (s, b, g) in r {
                ensure(s == vec![tot, n as f64], || format!("sum {s:?}"))?;
                ensure(b == vec![(n - 1) as f64, 1.0], || {
                    format!("broadcast {b:?}")
                })?;
                ensure(g == vec![n, 2], || format!("gather shape {g:?}"))?;
            }
            Ok(())
        })(),
    );

    // every rank agrees on the outcome before exiting
    let all_ok = world
        .run(|w| Ok(w.gather(&ok)?.iter().all(|&x| x)))
        .map(|v| v.iter().all(|&x| x))
        .unwrap_or(false);
    drop(wide);
    drop(world);
    if !all_ok {
        eprintln!("rank {rank}: MPI tests FAILED");
        std::process::exit(1);
    }
    println!("rank {rank}: all MPI tests passed");
}
