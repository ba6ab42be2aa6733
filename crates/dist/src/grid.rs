//! The global chunk grid: how a batch of items is cut into units of work, independently of how
//! many workers and ranks there are.

use cusci_core::error::make;
use cusci_core::random::Generator;
use cusci_core::{Array, Device, Element, Result};

/// A batch of `items` cut into chunks of `chunk` consecutive items (the last one may be shorter).
///
/// The grid depends only on these two numbers, never on the cluster, so that every chunk is
/// computed the same way whatever the number of workers or ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    items: u64,
    chunk: u64,
}

impl Grid {
    /// `items` items in chunks of `chunk`.
    ///
    /// # Errors
    /// `InvalidArgument` for `chunk == 0`.
    ///
    /// ```
    /// let g = cusci_dist::Grid::new(10, 4).unwrap();
    /// assert_eq!(g.chunks(), 3);
    /// assert_eq!(g.chunk(2).len, 2);
    /// ```
    pub fn new(items: u64, chunk: u64) -> Result<Grid> {
        if chunk == 0 {
            return Err(make::arg("Grid::new", "chunk must be at least 1 item"));
        }
        Ok(Grid { items, chunk })
    }

    /// Number of items.
    pub fn items(&self) -> u64 {
        self.items
    }
    /// Items per chunk (all but the last).
    pub fn chunk_items(&self) -> u64 {
        self.chunk
    }
    /// Number of chunks.
    pub fn chunks(&self) -> usize {
        self.items.div_ceil(self.chunk) as usize
    }
    /// Chunk `index` (`index < chunks()`).
    pub fn chunk(&self, index: usize) -> Chunk {
        let start = index as u64 * self.chunk;
        Chunk {
            index,
            start,
            len: self.chunk.min(self.items.saturating_sub(start)),
        }
    }
}

/// One unit of work: items `start .. start + len` of the global batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Position of the chunk in the grid.
    pub index: usize,
    /// First global item.
    pub start: u64,
    /// Number of items.
    pub len: u64,
}

impl Chunk {
    /// The global item range.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.start..self.start + self.len
    }

    /// The chunk's part of a host batch of `per_item` values per item.
    ///
    /// # Errors
    /// `ShapeMismatch` when `data` is shorter than the chunk's items need.
    pub fn host_slice<'a, T>(&self, data: &'a [T], per_item: usize) -> Result<&'a [T]> {
        let a = self.start as usize * per_item;
        let b = (self.start + self.len) as usize * per_item;
        data.get(a..b).ok_or_else(|| {
            make::shape(
                "Chunk::host_slice",
                format!(
                    "chunk {} needs elements {a}..{b}, the batch has {}",
                    self.index,
                    data.len()
                ),
            )
        })
    }

    /// The chunk's part of a host batch, as an array of shape `[len, item_shape...]` on `dev`.
    ///
    /// # Errors
    /// As [`host_slice`](Self::host_slice), and the transfer's.
    pub fn load<T: Element>(
        &self,
        data: &[T],
        item_shape: &[usize],
        dev: &Device,
    ) -> Result<Array<T>> {
        let per: usize = item_shape.iter().product();
        let s = self.host_slice(data, per)?;
        let mut shape = vec![self.len as usize];
        shape.extend_from_slice(item_shape);
        Array::from_slice(s, &shape, dev)
    }

    /// A Philox generator keyed by global item: stream `stream` of `seed`, positioned at word
    /// `start · words_per_item`, so item `i` always draws words `i·words_per_item ..` whatever
    /// chunk or worker computes it (one f32 value is one word, one f64 two).
    pub fn generator(&self, seed: u64, stream: u64, words_per_item: u64) -> Generator {
        let mut g = Generator::with_stream(seed, stream);
        g.set_position(self.start * words_per_item);
        g
    }
}
