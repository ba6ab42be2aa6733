//! Binary and grey morphology (`scipy.ndimage`'s morphology functions).

pub mod binary;
pub mod grey;

pub use binary::{
    binary_closing, binary_dilation, binary_erosion, binary_fill_holes, binary_hit_or_miss,
    binary_opening, binary_propagation, iterate_structure, BinaryOptions,
};
pub use grey::{
    black_tophat, grey_closing, grey_dilation, grey_erosion, grey_opening, morphological_gradient,
    morphological_laplace, white_tophat, GreyOptions,
};
