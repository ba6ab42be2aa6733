//! `graph.*` cases: a chain of 20 small calls (an image pipeline on 256² f32), timed eagerly and
//! replayed from a CUDA graph ([`cusci::core::graph::Graph`]). The GPU time between the events
//! includes the gaps where the GPU waits for the host, which is what a graph removes. Each case
//! checks once that the replay gives the eager results bit for bit.

use crate::{same_bits, Bench, BenchResult, Case};
use cusci::core::graph::Graph;
use cusci::core::random::Generator;
use cusci::ndimage::{self as ndi, FilterOptions, Footprint, GaussianOptions};
use cusci::{Array, Device};

/// The image side.
const N: usize = 256;

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "graph.image_chain20_f32_256_eager",
            bytes: 0,
            flops: 0,
            n_repeat: 200,
            setup: eager,
        },
        Case {
            name: "graph.image_chain20_f32_256_replay",
            bytes: 0,
            flops: 0,
            n_repeat: 200,
            setup: replay,
        },
    ]
}

/// 20 calls: smoothing, edges, gradient magnitude, rank filters, a Laplacian, normalisation and
/// two reductions (the microscopy example's kind of work at 256²).
fn chain(x: &Array<f32>) -> cusci::Result<Vec<Array<f32>>> {
    let o = FilterOptions::default();
    let g = ndi::gaussian_filter(x, &[2.0], &GaussianOptions::default())?; // 1
    let sx = ndi::sobel(&g, 0, &o)?; // 2
    let sy = ndi::sobel(&g, 1, &o)?; // 3
    let m2 = sx.mul(&sx)?.add(&sy.mul(&sy)?)?; // 4, 5, 6
    let mag = m2.sqrt()?; // 7
    let u = ndi::uniform_filter(&mag, &[5], &o)?; // 8
    let med = ndi::median_filter(&u, &Footprint::Size(vec![3]), &o)?; // 9
    let mx = ndi::maximum_filter(&med, &Footprint::Size(vec![3]), &o)?; // 10
    let mn = ndi::minimum_filter(&med, &Footprint::Size(vec![3]), &o)?; // 11
    let range = mx.sub(&mn)?; // 12
    let lap = ndi::laplace(&g, &o)?.abs()?; // 13, 14
    let s = range.add(&lap)?; // 15
    let p = ndi::prewitt(&s, 1, &o)?; // 16
    let n = s.add(&p.abs()?)?.mul_scalar(0.25)?.clip(0.0, 1.0)?; // 17, 18, 19 (+ abs)
    let rows = n.sum_axes(&[1])?; // 20
    Ok(vec![n, rows])
}

struct Chain {
    x: Array<f32>,
    graph: Option<Graph<'static, f32, f32>>,
}

fn setup(dev: &Device, graph: bool) -> BenchResult<Box<dyn Bench>> {
    let x = Generator::new(41).standard_normal::<f32>(&[N, N], dev)?;
    let graph = if graph {
        Some(Graph::capture(dev, &[&x], |ins| chain(&ins[0]))?)
    } else {
        None
    };
    Ok(Box::new(Chain { x, graph }))
}

fn eager(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    setup(dev, false)
}

fn replay(dev: &Device) -> BenchResult<Box<dyn Bench>> {
    setup(dev, true)
}

impl Bench for Chain {
    fn check(&mut self) -> BenchResult<()> {
        let want = chain(&self.x)?;
        let got: Vec<Array<f32>> = match &mut self.graph {
            Some(g) => g.run(&[&self.x])?.to_vec(),
            None => return Ok(()),
        };
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            same_bits(&format!("output {i}"), &g.to_vec()?, &w.to_vec()?, 0)?;
        }
        Ok(())
    }

    fn run(&mut self) -> cusci::Result<()> {
        match &mut self.graph {
            Some(g) => g.run(&[&self.x]).map(drop),
            None => chain(&self.x).map(drop),
        }
    }
}
