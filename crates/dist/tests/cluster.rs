//! The rank group with threads: results equal the single-worker run bit for bit, errors on one
//! worker or rank reach all of them, collectives, chunk-keyed random streams.

use cusci_core::random::Generator;
use cusci_core::testing::devices;
use cusci_core::{Array, Device, Error, Result};
use cusci_dist::workloads::{option_price, OptionJob};
use cusci_dist::{Chunk, Cluster, Grid, LaunchEnv, LocalOptions, ReduceOp, ThreadRanks, Worker};
use std::sync::Arc;

/// Runs `f` on `ranks` simulated ranks (threads) of `workers` logical workers each on `dev`;
/// returns every rank's result.
fn on_ranks<R: Send>(
    ranks: usize,
    workers: usize,
    dev: &Device,
    f: impl Fn(&Cluster) -> Result<R> + Sync,
) -> Vec<Result<R>> {
    let comms = ThreadRanks::group(ranks);
    std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .into_iter()
            .map(|comm| {
                let f = &f;
                s.spawn(move || {
                    let devs = vec![dev.clone(); 1];
                    let c = Cluster::with_comm(
                        Ok(devs
                            .iter()
                            .flat_map(|d| std::iter::repeat_n(d.clone(), workers))
                            .map(|d| match d {
                                Device::Cuda(c) => c.new_stream().map(Device::Cuda),
                                Device::Cpu => Ok(Device::Cpu),
                            })
                            .collect::<Result<Vec<_>>>()
                            .expect("streams")),
                        comm,
                    )?;
                    f(&c)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("rank thread"))
            .collect()
    })
}

fn small_job() -> OptionJob {
    OptionJob {
        paths: 100_003, // not a multiple of the chunk: a short last chunk
        chunk: 1 << 13,
        ..Default::default()
    }
}

#[test]
fn option_price_bit_identical_for_any_worker_and_rank_count() {
    for dev in devices() {
        let job = small_job();
        let one = option_price(&Cluster::logical(&dev, 1).unwrap(), &job).unwrap();
        assert!((one.price - 8.0214).abs() < 5.0 * one.std_error, "{one:?}");
        for w in [2, 3, 4, 8] {
            let r = option_price(&Cluster::logical(&dev, w).unwrap(), &job).unwrap();
            assert_eq!(r.price.to_bits(), one.price.to_bits(), "{dev} {w} workers");
            assert_eq!(r.std_error.to_bits(), one.std_error.to_bits());
        }
        for (ranks, w) in [(2, 1), (4, 1), (2, 3), (3, 2)] {
            for r in on_ranks(ranks, w, &dev, |c| option_price(c, &job)) {
                let r = r.unwrap();
                assert_eq!(r.price.to_bits(), one.price.to_bits(), "{dev} {ranks}x{w}");
                assert_eq!(r.std_error.to_bits(), one.std_error.to_bits());
            }
        }
    }
}

/// Chunk c of the grid computed alone, with the chunk's generator: the oracle of batch_map.
fn normals_of(dev: &Device, c: &Chunk, per: usize) -> Result<Vec<f32>> {
    c.generator(5, 3, per as u64)
        .standard_normal::<f32>(&[c.len as usize, per], dev)?
        .to_vec()
}

#[test]
fn batch_map_places_outputs_by_global_index() {
    for dev in devices() {
        let per = 7;
        for (items, chunk) in [(0u64, 4u64), (1, 1), (2, 4), (33, 4), (257, 32)] {
            let g = Grid::new(items, chunk).unwrap();
            // the whole batch from one generator: chunked generation must give the same values
            let whole = Generator::with_stream(5, 3)
                .standard_normal::<f32>(&[items as usize, per], &dev)
                .unwrap()
                .to_vec()
                .unwrap();
            for w in [1, 2, 5] {
                let c = Cluster::logical(&dev, w).unwrap();
                let v = c
                    .batch_map(&g, |wk, ch| normals_of(wk.device(), ch, per))
                    .unwrap();
                assert_eq!(v.len(), items as usize * per);
                let same = v
                    .iter()
                    .zip(&whole)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{dev} items {items} chunk {chunk} workers {w}");
            }
            for r in on_ranks(3, 2, &dev, |c| {
                c.batch_map(&g, |wk, ch| normals_of(wk.device(), ch, per))
            }) {
                let v = r.unwrap();
                assert!(v
                    .iter()
                    .zip(&whole)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
                assert_eq!(v.len(), whole.len());
            }
        }
    }
}

#[test]
fn map_reduce_folds_in_chunk_order() {
    // string concatenation is not commutative: the order is visible
    let g = Grid::new(10, 3).unwrap();
    for w in [1, 2, 4] {
        let c = Cluster::logical(&Device::Cpu, w).unwrap();
        let s = c
            .map_reduce(
                &g,
                String::new(),
                |_, ch| Ok(format!("[{}..{})", ch.start, ch.start + ch.len)),
                |a, b| a + &b,
            )
            .unwrap();
        assert_eq!(s, "[0..3)[3..6)[6..9)[9..10)");
    }
    for r in on_ranks(4, 1, &Device::Cpu, |c| {
        c.map_reduce(
            &g,
            String::new(),
            |_, ch| Ok(ch.index.to_string()),
            |a, b| a + &b,
        )
    }) {
        assert_eq!(r.unwrap(), "0123");
    }
}

fn fail_on(ch: &Chunk, bad: usize) -> Result<u64> {
    if ch.index == bad {
        Err(cusci_core::error::make::arg(
            "test",
            format!("chunk {bad} fails"),
        ))
    } else {
        Ok(ch.len)
    }
}

#[test]
fn an_error_in_one_chunk_is_the_error_of_every_rank() {
    let g = Grid::new(64, 4).unwrap();
    for bad in [0, 7, 15] {
        for w in [1, 3] {
            let c = Cluster::logical(&Device::Cpu, w).unwrap();
            let e = c.map_reduce(&g, 0, |_, ch| fail_on(ch, bad), |a, b| a + b);
            assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
        }
        let rs = on_ranks(4, 2, &Device::Cpu, |c| {
            c.map_reduce(&g, 0, |_, ch| fail_on(ch, bad), |a, b| a + b)
        });
        let want = cusci_core::error::make::arg("test", format!("chunk {bad} fails"));
        for r in rs {
            assert_eq!(r.unwrap_err(), want);
        }
        // and the cluster stays usable after a failed call
        let c = Cluster::logical(&Device::Cpu, 2).unwrap();
        assert_eq!(
            c.map_reduce(&g, 0, |_, ch| Ok(ch.len), |a, b| a + b)
                .unwrap(),
            64
        );
    }
}

#[test]
fn an_error_before_a_collective_does_not_deadlock() {
    // worker 2 fails while the others wait in an all-reduce, then a barrier
    let body = |w: &Worker<'_>| -> Result<f64> {
        if w.index() == 2 {
            return Err(cusci_core::error::make::arg("test", "worker 2 gives up"));
        }
        let a = Array::from_vec(vec![1.0f64; 4], &[4], w.device())?;
        let s = w.all_reduce(&a, ReduceOp::Sum)?;
        w.barrier()?;
        Ok(s.to_vec()?[0])
    };
    let c = Cluster::logical(&Device::Cpu, 4).unwrap();
    assert!(c.run(body).is_err());
    for r in on_ranks(3, 2, &Device::Cpu, |c| c.run(body)) {
        assert_eq!(
            r.unwrap_err(),
            cusci_core::error::make::arg("test", "worker 2 gives up")
        );
    }
    // a panic is an error too
    let c = Cluster::logical(&Device::Cpu, 3).unwrap();
    let r = c.run(|w| {
        if w.index() == 1 {
            panic!("boom");
        }
        w.barrier().map(|_| 0u8)
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
}

#[test]
fn collectives_on_every_device() {
    for dev in devices() {
        for (ranks, w) in [(1, 1), (1, 3), (2, 2)] {
            let rs = on_ranks(ranks, w, &dev, |c| {
                c.run(|wk| {
                    let i = wk.index() as f64;
                    let a = Array::from_vec(vec![i, 2.0 * i, 1.0], &[3], wk.device())?;
                    let s = wk.all_reduce(&a, ReduceOp::Sum)?.to_vec()?;
                    let m = wk.all_reduce(&a, ReduceOp::Max)?.to_vec()?;
                    let b = wk.broadcast(&a, wk.workers() - 1)?.to_vec()?;
                    let g = wk.all_gather(&a)?;
                    assert_eq!(g.shape(), &[wk.workers(), 3]);
                    let names = wk.gather(&(wk.index() as u32))?;
                    Ok((s, m, b, g.to_vec()?, names))
                })
            });
            let n = ranks * w;
            let tot: f64 = (0..n).map(|i| i as f64).sum();
            let last = (n - 1) as f64;
            for r in rs {
                for (s, m, b, g, names) in r.unwrap() {
                    assert_eq!(s, vec![tot, 2.0 * tot, n as f64], "{dev}");
                    assert_eq!(m, vec![last, 2.0 * last, 1.0]);
                    assert_eq!(b, vec![last, 2.0 * last, 1.0]);
                    let want: Vec<f64> = (0..n)
                        .flat_map(|i| [i as f64, 2.0 * i as f64, 1.0])
                        .collect();
                    assert_eq!(g, want);
                    assert_eq!(names, (0..n as u32).collect::<Vec<_>>());
                }
            }
        }
        // mismatched shapes: the same ShapeMismatch on every worker
        let c = Cluster::logical(&dev, 3).unwrap();
        let r = c.run(|wk| {
            let a = Array::<f32>::zeros(&[1 + wk.index()], wk.device())?;
            wk.all_reduce(&a, ReduceOp::Sum).map(|_| ())
        });
        assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
        // complex max is refused, bad root too
        let r = c.run(|wk| {
            let a = Array::<cusci_core::c64>::zeros(&[2], wk.device())?;
            wk.all_reduce(&a, ReduceOp::Max).map(|_| ())
        });
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
        let r = c.run(|wk| {
            let a = Array::<f64>::zeros(&[2], wk.device())?;
            wk.broadcast(&a, 3).map(|_| ())
        });
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    }
}

#[test]
fn cluster_shape_and_chunk_assignment() {
    let c = Cluster::with_options(&LocalOptions {
        devices: vec![Device::Cpu, Device::Cpu],
        workers_per_device: 2,
    })
    .unwrap();
    assert_eq!(
        (c.rank(), c.ranks(), c.workers(), c.local_workers()),
        (0, 1, 4, 4)
    );
    assert_eq!(c.transport(), "solo");
    assert!(Cluster::logical(&Device::Cpu, 0).is_err());
    assert!(Grid::new(5, 0).is_err());
    let g = Grid::new(1000, 10).unwrap();
    // ranks of 1, 2 and 1 workers: contiguous blocks in proportion, covering every chunk once
    let rs = on_ranks(3, 1, &Device::Cpu, |c| Ok(c.rank_chunks(&g)));
    let ranges: Vec<_> = rs.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(ranges[0].start, 0);
    assert_eq!(ranges[2].end, 100);
    assert_eq!(ranges[0].end, ranges[1].start);
    assert_eq!(ranges[1].end, ranges[2].start);
    let local = Cluster::local().unwrap();
    assert!(local.workers() >= 1);
    let _ = Arc::new(0);
}

#[test]
fn launcher_environment() {
    let env = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        LaunchEnv::from_lookup(move |k| pairs.iter().find(|p| p.0 == k).map(|p| p.1.clone()))
    };
    let none = env(&[]);
    assert_eq!((none.launcher, none.rank, none.size), (None, 0, 1));
    let o = env(&[
        ("OMPI_COMM_WORLD_RANK", "5"),
        ("OMPI_COMM_WORLD_SIZE", "8"),
        ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
        ("OMPI_COMM_WORLD_LOCAL_SIZE", "4"),
    ]);
    assert_eq!(
        (o.launcher, o.rank, o.size, o.local_rank, o.local_size),
        (Some("openmpi"), 5, 8, 1, 4)
    );
    let m = env(&[
        ("PMI_RANK", "2"),
        ("PMI_SIZE", "4"),
        ("MPI_LOCALRANKID", "0"),
        ("MPI_LOCALNRANKS", "2"),
    ]);
    assert_eq!(
        (m.launcher, m.rank, m.local_rank, m.local_size),
        (Some("mpich"), 2, 0, 2)
    );
    let s = env(&[
        ("SLURM_PROCID", "3"),
        ("SLURM_NTASKS", "4"),
        ("SLURM_LOCALID", "1"),
        ("SLURM_NTASKS_PER_NODE", "2(x2)"),
    ]);
    assert_eq!(
        (s.launcher, s.local_rank, s.local_size),
        (Some("slurm"), 1, 2)
    );
    // bad values fall through to a world of one
    assert_eq!(env(&[("PMI_RANK", "4"), ("PMI_SIZE", "4")]).launcher, None);
    // GPU split: 8 GPUs, 4 local ranks -> 2 each; 2 GPUs, 4 ranks -> shared round-robin
    assert_eq!(o.gpus(8), vec![2, 3]);
    assert_eq!(o.gpus(2), vec![1]);
    assert_eq!(o.gpus(0), Vec::<usize>::new());
    assert_eq!(none.gpus(4), vec![0, 1, 2, 3]);
}

#[test]
fn wire_and_errors_round_trip() {
    use cusci_dist::{from_bytes, to_bytes};
    let v = (
        vec![1.5f64, -0.0, f64::NAN],
        String::from("é"),
        Some(3u8),
        cusci_core::c32::new(1.0, 2.0),
    );
    let b: (Vec<f64>, String, Option<u8>, cusci_core::c32) = from_bytes(&to_bytes(&v)).unwrap();
    assert_eq!(b.0[0], 1.5);
    assert_eq!(b.0[1].to_bits(), (-0.0f64).to_bits());
    assert!(b.0[2].is_nan());
    assert_eq!((b.1, b.2, b.3), (v.1, v.2, v.3));
    assert!(from_bytes::<u64>(&[1, 2, 3]).is_err());
    assert!(from_bytes::<u8>(&[1, 2]).is_err());
    // every error variant reaches other ranks unchanged
    let errs = [
        Error::Singular {
            op: "lu".into(),
            index: 3,
        },
        Error::OutOfMemory {
            requested: 10,
            free: 2,
        },
        Error::Cuda {
            op: "x".into(),
            library: "cufft",
            status: "E".into(),
        },
        Error::NoConvergence {
            op: "cg".into(),
            iterations: 9,
            residual: 0.5,
        },
    ];
    for e in errs {
        let rs = on_ranks(2, 1, &Device::Cpu, |c| {
            let e = e.clone();
            c.run(move |w| {
                if w.index() == 1 {
                    Err(e.clone())
                } else {
                    Ok(())
                }
            })
        });
        for r in rs {
            assert_eq!(r.unwrap_err(), e);
        }
    }
}

#[test]
fn spectral_pipeline_bit_identical_and_filters() {
    use cusci_dist::workloads::{spectral_pipeline, SpectralJob};
    for dev in devices() {
        let job = SpectralJob {
            signals: 10,
            samples: 1024,
            chunk: 3,
            nperseg: 64,
            ..Default::default()
        };
        let one = spectral_pipeline(&Cluster::logical(&dev, 1).unwrap(), &job).unwrap();
        assert_eq!(one.len(), 10 * job.bins());
        // the pass band (100 Hz, bin 100/fs*nperseg = 6.4) keeps its tone, 300 Hz (bin 19.2) is cut
        for row in one.chunks(job.bins()) {
            assert!(row[6] > 20.0 * row[19], "{dev}: {} vs {}", row[6], row[19]);
        }
        for w in [2, 4] {
            let v = spectral_pipeline(&Cluster::logical(&dev, w).unwrap(), &job).unwrap();
            assert!(
                v.iter().zip(&one).all(|(a, b)| a.to_bits() == b.to_bits()),
                "{dev} {w}"
            );
        }
        for r in on_ranks(2, 2, &dev, |c| spectral_pipeline(c, &job)) {
            let v = r.unwrap();
            assert!(
                v.iter().zip(&one).all(|(a, b)| a.to_bits() == b.to_bits()),
                "{dev} 2x2"
            );
        }
        // a chunk of another size still gives the same numbers to rounding
        let other = spectral_pipeline(
            &Cluster::logical(&dev, 2).unwrap(),
            &SpectralJob { chunk: 10, ..job },
        )
        .unwrap();
        for (a, b) in other.iter().zip(&one) {
            assert!(
                (a - b).abs() <= 1e-4 * b.abs().max(1e-3),
                "{dev}: {a} vs {b}"
            );
        }
        let bad = SpectralJob {
            nperseg: 2048,
            ..job
        };
        assert!(spectral_pipeline(&Cluster::logical(&dev, 2).unwrap(), &bad).is_err());
    }
}
