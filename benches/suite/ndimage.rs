//! The `ndimage.*` cases of CASES.md (see `cupy_ref.py` for CuPy's side of each). Each check
//! runs the same call on a CPU copy of the input and compares the whole output.

use crate::{randn_f32, Bench, BenchResult, Case};
use cusci::ndimage::{self as ndi, FilterOptions, Footprint, GaussianOptions, InterpOptions};
use cusci::{Array, Device};

const IMG: usize = 4096;
const F32: u64 = 4;

/// The ndimage cases of issue 8 (filters and geometric transforms), as in cupy_ref.py.
pub fn cases() -> Vec<Case> {
    vec![
        image_case("ndimage.gaussian_filter_f32_4096_s4", 2, 10, |d| {
            Filter::image(d, Kind::Gaussian)
        }),
        image_case("ndimage.uniform_filter_f32_4096_s9", 2, 10, |d| {
            Filter::image(d, Kind::Uniform)
        }),
        image_case("ndimage.median_filter_f32_4096_s5", 2, 5, |d| {
            Filter::image(d, Kind::Median)
        }),
        image_case("ndimage.sobel_f32_4096", 2, 10, |d| {
            Filter::image(d, Kind::Sobel)
        }),
        Case {
            name: "ndimage.convolve_f32_256^3_k5",
            bytes: 2 * 256u64.pow(3) * F32,
            flops: 2 * 125 * 256u64.pow(3),
            n_repeat: 5,
            setup: |d| Filter::boxed(d, &[256, 256, 256], Kind::Convolve),
        },
        Case {
            name: "ndimage.zoom_f32_2048_x2_o3",
            bytes: (2048 * 2048 + 4096 * 4096) * F32,
            flops: 0,
            n_repeat: 5,
            setup: |d| Filter::boxed(d, &[2048, 2048], Kind::Zoom),
        },
        image_case("ndimage.rotate_f32_4096_30deg_o1", 2, 5, |d| {
            Filter::image(d, Kind::Rotate)
        }),
        image_case("ndimage.map_coordinates_f32_4096_o1", 4, 5, |d| {
            Filter::image(d, Kind::MapCoordinates)
        }),
    ]
}

/// A case on the 4096² f32 image that moves `passes` times its bytes (cupy_ref.py's count; no
/// flops given).
fn image_case(
    name: &'static str,
    passes: u64,
    n_repeat: usize,
    setup: fn(&Device) -> BenchResult<Box<dyn Bench>>,
) -> Case {
    Case {
        name,
        bytes: passes * (IMG * IMG) as u64 * F32,
        flops: 0,
        n_repeat,
        setup,
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Gaussian,
    Uniform,
    Median,
    Sobel,
    Convolve,
    Zoom,
    Rotate,
    MapCoordinates,
}

struct Filter {
    x: Array<f32>,
    k: Array<f64>,
    /// map_coordinates: coordinates uniform in [0, 4095), f32[2, 4096²]
    c: Option<Array<f32>>,
    kind: Kind,
}

impl Filter {
    /// [`Filter::boxed`] on the 4096² image.
    fn image(dev: &Device, kind: Kind) -> BenchResult<Box<dyn Bench>> {
        Filter::boxed(dev, &[IMG, IMG], kind)
    }

    fn boxed(dev: &Device, shape: &[usize], kind: Kind) -> BenchResult<Box<dyn Bench>> {
        let n: usize = shape.iter().product();
        let x = randn_f32(n, 81, dev)?
            .reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())?;
        let k = randn_f32(125, 82, &Device::Cpu)?
            .astype::<f64>()?
            .reshape(&[5, 5, 5])?;
        let c = match kind {
            Kind::MapCoordinates => {
                let u = cusci::core::random::Generator::new(83).uniform::<f32>(
                    0.0,
                    (IMG - 1) as f64,
                    &[2, n],
                    dev,
                );
                Some(u?)
            }
            _ => None,
        };
        Ok(Box::new(Filter { x, k, c, kind }))
    }

    fn call(&self, x: &Array<f32>) -> cusci::Result<Array<f32>> {
        let o = FilterOptions::default();
        match self.kind {
            Kind::Gaussian => ndi::gaussian_filter(x, &[4.0], &GaussianOptions::default()),
            Kind::Uniform => ndi::uniform_filter(x, &[9], &o),
            Kind::Median => ndi::median_filter(x, &Footprint::Size(vec![5]), &o),
            Kind::Sobel => ndi::sobel(x, 0, &o),
            Kind::Convolve => ndi::convolve(x, &self.k, &o),
            Kind::Zoom => ndi::zoom(
                x,
                &[2.0],
                false,
                &InterpOptions {
                    order: 3,
                    ..Default::default()
                },
            ),
            Kind::Rotate => ndi::rotate(
                x,
                30.0,
                (1, 0),
                false,
                &InterpOptions {
                    order: 1,
                    ..Default::default()
                },
            ),
            Kind::MapCoordinates => {
                let c = self.c.as_ref().expect("coordinates");
                let c = c.to_device(x.device())?;
                ndi::map_coordinates(
                    x,
                    &c,
                    &InterpOptions {
                        order: 1,
                        ..Default::default()
                    },
                )
            }
        }
    }
}

impl Bench for Filter {
    fn check(&mut self) -> BenchResult<()> {
        let got = self.call(&self.x)?.to_vec()?;
        let want = self.call(&self.x.to_device(&Device::Cpu)?)?.to_vec()?;
        let scale = want.iter().fold(1f32, |m, v| m.max(v.abs()));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            if (g - w).abs() > 1e-4 * scale {
                return Err(format!("element {i}: GPU {g}, CPU {w}").into());
            }
        }
        Ok(())
    }

    fn run(&mut self) -> cusci::Result<()> {
        self.call(&self.x).map(|_| ())
    }
}

// ---------------------------------------------------------------------------------------------
// issue 9: label and the Euclidean distance transform

/// The ndimage cases of issue 9 (labels, distance transforms), as in cupy_ref.py.
pub fn morphology_cases() -> Vec<Case> {
    vec![
        Case {
            name: "ndimage.label_4096",
            bytes: 0,
            flops: 0,
            n_repeat: 5,
            setup: |d| Morph::boxed(d, IMG, 0.5, MorphKind::Label),
        },
        Case {
            name: "ndimage.distance_transform_edt_2048",
            bytes: 0,
            flops: 0,
            n_repeat: 5,
            setup: |d| Morph::boxed(d, 2048, -1.0, MorphKind::Edt),
        },
    ]
}

#[derive(Clone, Copy)]
enum MorphKind {
    Label,
    Edt,
}

struct Morph {
    x: Array<bool>,
    kind: MorphKind,
}

impl Morph {
    fn boxed(dev: &Device, n: usize, thr: f32, kind: MorphKind) -> BenchResult<Box<dyn Bench>> {
        let x = randn_f32(n * n, 91, dev)?
            .reshape(&[n as isize, n as isize])?
            .gt_scalar(thr)?;
        Ok(Box::new(Morph { x, kind }))
    }
}

impl Bench for Morph {
    fn check(&mut self) -> BenchResult<()> {
        let cpu = self.x.to_device(&Device::Cpu)?;
        match self.kind {
            MorphKind::Label => {
                let (g, gn) = ndi::label(&self.x, None)?;
                let (w, wn) = ndi::label(&cpu, None)?;
                if gn != wn || g.to_vec()? != w.to_vec()? {
                    return Err(
                        format!("label: GPU {gn} components, CPU {wn}, or labels differ").into(),
                    );
                }
            }
            MorphKind::Edt => {
                let o = ndi::DistanceOptions::default();
                let g = ndi::distance_transform_edt(&self.x, &o)?
                    .0
                    .ok_or("no distances")?;
                let w = ndi::distance_transform_edt(&cpu, &o)?
                    .0
                    .ok_or("no distances")?;
                for (i, (a, b)) in g.to_vec()?.iter().zip(w.to_vec()?).enumerate() {
                    if (a - b).abs() > 1e-12 * (1.0 + b) {
                        return Err(format!("edt element {i}: GPU {a}, CPU {b}").into());
                    }
                }
            }
        }
        Ok(())
    }

    fn run(&mut self) -> cusci::Result<()> {
        match self.kind {
            MorphKind::Label => ndi::label(&self.x, None).map(|_| ()),
            MorphKind::Edt => {
                ndi::distance_transform_edt(&self.x, &ndi::DistanceOptions::default()).map(|_| ())
            }
        }
    }
}
