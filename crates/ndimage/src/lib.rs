//! cusci-ndimage: `scipy.ndimage` on CUDA and on the CPU.
//!
//! Every function takes [`Array`]s on any device and runs there: NVRTC kernels on a CUDA device,
//! a rayon reference on the CPU. Boundary handling is [`Mode`] (module [`modes`]).

pub mod complex;
mod cuda;
pub mod filters;
pub mod fourier;
pub mod interpolation;
pub mod modes;

pub use complex::{
    affine_transform_complex, convolve1d_complex, convolve_complex, correlate1d_complex,
    correlate_complex, gaussian_filter1d_complex, gaussian_filter_complex, map_coordinates_complex,
    rotate_complex, shift_complex, uniform_filter1d_complex, uniform_filter_complex, zoom_complex,
};
pub use complex::{
    gaussian_laplace_complex, laplace_complex, prewitt_complex, sobel_complex,
    spline_filter1d_complex, spline_filter_complex,
};
pub use cusci_core::{Array, Device, Error, Result};
pub use filters::*;
pub use fourier::{
    fourier_ellipsoid, fourier_ellipsoid_as, fourier_gaussian, fourier_gaussian_as, fourier_shift,
    fourier_shift_as, fourier_uniform, fourier_uniform_as,
};
pub use interpolation::output::{
    affine_transform_as, map_coordinates_as, rotate_as, shift_as, spline_filter1d_as,
    spline_filter_as, zoom_as,
};
pub use interpolation::{
    affine_transform, map_coordinates, rotate, shift, spline_filter, spline_filter1d, zoom,
    InterpOptions, Matrix,
};
pub use interpolation::{geometric_transform, MapFn, Mapping};
pub use modes::Mode;

// morphology, labels, measurements, distance transforms (issue 9)
pub mod distance;
pub mod label;
pub mod measurements;
pub mod morphology;
#[doc(hidden)]
pub mod sort;
pub mod structure;
pub mod watershed;

pub use distance::{
    distance_transform_bf, distance_transform_cdt, distance_transform_edt, BfMetric, CdtMetric,
    DistanceOptions, DistanceResult,
};
pub use label::{label, label_as};
pub use measurements::{
    center_of_mass, extrema, find_objects, histogram, labeled_comprehension, maximum,
    maximum_position, mean, median, minimum, minimum_position, standard_deviation, sum, sum_labels,
    value_indices, variance, Extrema, ObjectSlices,
};
pub use morphology::{
    binary_closing, binary_dilation, binary_erosion, binary_fill_holes, binary_hit_or_miss,
    binary_opening, binary_propagation, black_tophat, grey_closing, grey_dilation, grey_erosion,
    grey_opening, iterate_structure, morphological_gradient, morphological_laplace, white_tophat,
    BinaryOptions, GreyOptions,
};
pub use structure::generate_binary_structure;
pub use watershed::{watershed_ift, Marker};

/// Every kernel module of the crate (each declared once, beside its launcher), for the compile
/// checks of the tests (`cusci_core::testing::compile_modules`).
#[doc(hidden)]
pub fn kernel_modules() -> Vec<&'static cusci_core::KernelModule> {
    vec![
        &filters::FILTERS,
        &filters::GENERIC,
        &filters::STORE,
        &fourier::FOURIER,
        &complex::COMPLEX,
        &interpolation::INTERP,
        &interpolation::GEOMAP,
        &morphology::binary::BINARY,
        &morphology::grey::GREY,
        &label::LABEL,
        &label::LABEL32,
        &measurements::MEAS,
        &distance::DISTANCE,
        &sort::SORT,
    ]
}
