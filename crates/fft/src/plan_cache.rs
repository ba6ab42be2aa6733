//! The bounded, least-recently-used cache that holds the cuFFT plans of one device.
//!
//! The logic does not depend on the device (it is unit-tested on the CPU below): a plan is
//! *taken out* of the cache while it runs ([`LruCache::take`]) and *given back* afterwards
//! ([`LruCache::put`]), so that two threads never use one plan at the same time (a cuFFT plan is
//! bound to one stream and one work area while it executes); a second thread asking for the same
//! key meanwhile makes its own plan, and both are kept when given back (up to the bounds). The
//! cache is bounded by a count and by the sum of the entries' costs (the plans' workspace bytes):
//! past either bound, the least recently used entries are dropped.

/// An entry: key, value, cost (bytes) and the tick of its last use.
struct Entry<K, V> {
    key: K,
    val: V,
    bytes: usize,
    last: u64,
}

/// A bounded LRU multimap (see the module documentation).
pub(crate) struct LruCache<K, V> {
    entries: Vec<Entry<K, V>>,
    pub(crate) max_count: usize,
    pub(crate) max_bytes: usize,
    tick: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
}

impl<K: PartialEq, V> LruCache<K, V> {
    /// An empty cache holding at most `max_count` entries of at most `max_bytes` in all.
    pub(crate) fn new(max_count: usize, max_bytes: usize) -> Self {
        LruCache {
            entries: Vec::new(),
            max_count,
            max_bytes,
            tick: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// Removes and returns a value stored under `key` (the most recently used one), counting a
    /// hit, or counts a miss.
    pub(crate) fn take(&mut self, key: &K) -> Option<V> {
        let pos = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.key == *key)
            .max_by_key(|(_, e)| e.last)
            .map(|(i, _)| i);
        match pos {
            Some(i) => {
                self.hits += 1;
                Some(self.entries.swap_remove(i).val)
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Stores `val` under `key` as the most recently used entry, then drops the least recently
    /// used entries until both bounds hold; returns what was dropped (for the caller to release
    /// outside its lock). An entry costing more than `max_bytes` alone is returned at once.
    pub(crate) fn put(&mut self, key: K, val: V, bytes: usize) -> Vec<V> {
        if bytes > self.max_bytes || self.max_count == 0 {
            return vec![val];
        }
        self.tick += 1;
        self.entries.push(Entry {
            key,
            val,
            bytes,
            last: self.tick,
        });
        self.evict()
    }

    /// Drops the least recently used entries until both bounds hold; returns them.
    fn evict(&mut self) -> Vec<V> {
        let mut dropped = Vec::new();
        while self.entries.len() > self.max_count || self.bytes() > self.max_bytes {
            let Some((i, _)) = self.entries.iter().enumerate().min_by_key(|(_, e)| e.last) else {
                break;
            };
            dropped.push(self.entries.swap_remove(i).val);
        }
        dropped
    }

    /// Empties the cache; returns the values (for the caller to release outside its lock).
    pub(crate) fn clear(&mut self) -> Vec<V> {
        self.entries.drain(..).map(|e| e.val).collect()
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Sum of the entries' costs.
    pub(crate) fn bytes(&self) -> usize {
        self.entries.iter().map(|e| e.bytes).sum()
    }

    /// Sets the bounds; returns what no longer fits.
    pub(crate) fn set_limits(&mut self, max_count: usize, max_bytes: usize) -> Vec<V> {
        self.max_count = max_count;
        self.max_bytes = max_bytes;
        self.evict()
    }
}

#[cfg(test)]
mod tests {
    use super::LruCache;

    #[test]
    fn hit_miss_and_take_out_while_in_use() {
        let mut c = LruCache::new(4, 1000);
        assert!(c.take(&1).is_none());
        assert_eq!(c.misses, 1);
        assert!(c.put(1, "a", 10).is_empty());
        // taken out: a second user of the same key misses and makes its own
        assert_eq!(c.take(&1), Some("a"));
        assert!(c.take(&1).is_none());
        assert_eq!((c.hits, c.misses), (1, 2));
        // both given back: both kept
        c.put(1, "a", 10);
        c.put(1, "b", 10);
        assert_eq!(c.len(), 2);
        assert_eq!(c.take(&1), Some("b"), "the most recently used first");
    }

    #[test]
    fn bounded_by_count_lru() {
        let mut c = LruCache::new(3, usize::MAX);
        for k in 0..3 {
            c.put(k, k * 10, 1);
        }
        // use 0 again: 1 becomes the least recently used
        let v = c.take(&0).unwrap();
        c.put(0, v, 1);
        let dropped = c.put(3, 30, 1);
        assert_eq!(dropped, vec![10]);
        assert_eq!(c.len(), 3);
        assert!(c.take(&1).is_none());
        assert_eq!(c.take(&0), Some(0));
    }

    #[test]
    fn bounded_by_bytes_and_clear() {
        let mut c = LruCache::new(100, 100);
        c.put('a', 1, 60);
        let dropped = c.put('b', 2, 50);
        assert_eq!(dropped, vec![1]);
        assert_eq!(c.bytes(), 50);
        // larger than the whole budget: never stored
        assert_eq!(c.put('c', 3, 101), vec![3]);
        assert_eq!(c.len(), 1);
        assert_eq!(c.set_limits(0, 0), vec![2]);
        c.set_limits(10, 1000);
        c.put('d', 4, 1);
        c.put('e', 5, 1);
        let mut all = c.clear();
        all.sort();
        assert_eq!(all, vec![4, 5]);
        assert_eq!(c.len(), 0);
    }
}
