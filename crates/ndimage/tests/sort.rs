//! The crate's radix sort (used by median, value_indices, labeled_comprehension): the CPU twin
//! against `sort_by_key` (a stable sort), the GPU against both; lengths around the digit and
//! tile sizes, keys with many duplicates (stability: the payload is the input position), partial
//! key widths, every key/payload width, the argsort form, and its argument errors.

use cusci_core::testing::gpu;
use cusci_core::{Array, Device, Error};
use cusci_ndimage::sort::{bits_for, sort_pairs, RadixWord};

/// Keys of `bits` bits drawn from a small set when `dups` (many duplicates), else spread.
fn keys<K: RadixWord>(n: usize, seed: u64, bits: u32, dups: bool) -> Vec<K> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = if dups {
                // 7 distinct keys, with high bits set so that every digit matters
                let c = s % 7;
                c.wrapping_mul(0x0101_0101_0101_0101) ^ (c << (bits.saturating_sub(3)))
            } else {
                s
            };
            K::from_bits(v & mask)
        })
        .collect()
}

/// The reference: a stable sort of (key, position) by the low `bits` bits of the key.
fn reference<K: RadixWord>(k: &[K], bits: u32) -> (Vec<K>, Vec<u64>) {
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut p: Vec<(K, u64)> = k.iter().enumerate().map(|(i, &x)| (x, i as u64)).collect();
    p.sort_by_key(|&(x, _)| x.bits() & mask);
    (
        p.iter().map(|q| q.0).collect(),
        p.iter().map(|q| q.1).collect(),
    )
}

fn check<K: RadixWord, V: RadixWord>(dev: &Device, n: usize, bits: u32, dups: bool) {
    let k: Vec<K> = keys(n, n as u64 * 31 + bits as u64, bits.min(K::BITS), dups);
    let (wk, wp) = reference(&k, bits);
    let ka = Array::from_vec(k.clone(), &[n], dev).unwrap();
    let what = format!("{} n={n} bits={bits} dups={dups} on {dev}", K::BITS);
    // explicit payload: the position, in V's width
    let pv: Vec<V> = (0..n as u64).map(V::from_bits).collect();
    let pa = Array::from_vec(pv, &[n], dev).unwrap();
    let (sk, sv) = sort_pairs(&ka, Some(&pa), bits).unwrap();
    assert_eq!(sk.shape(), &[n]);
    assert!(sk.to_vec().unwrap() == wk, "keys {what}");
    let got: Vec<u64> = sv.to_vec().unwrap().into_iter().map(|v| v.bits()).collect();
    assert!(got == wp, "payload (stability) {what}");
    // argsort form
    let (sk2, pos) = sort_pairs::<K, V>(&ka, None, bits).unwrap();
    assert!(sk2.to_vec().unwrap() == wk, "argsort keys {what}");
    let got: Vec<u64> = pos
        .to_vec()
        .unwrap()
        .into_iter()
        .map(|v| v.bits())
        .collect();
    assert!(got == wp, "argsort positions {what}");
}

const LENGTHS: [usize; 9] = [0, 1, 2, 255, 256, 257, 4095, 4097, 100_000];

#[test]
fn cpu_twin_against_stable_sort() {
    let dev = Device::Cpu;
    for &n in &LENGTHS {
        for dups in [false, true] {
            check::<i32, i32>(&dev, n, 32, dups);
            check::<i64, i32>(&dev, n, 64, dups);
        }
    }
    for &n in &[0usize, 1, 257, 5000] {
        for bits in [0u32, 1, 7, 8, 9, 17, 31] {
            check::<i32, i64>(&dev, n, bits, true);
        }
        for bits in [33u32, 40, 63] {
            check::<i64, i64>(&dev, n, bits, false);
        }
    }
}

/// The GPU against the CPU twin and `sort_by_key`: every width pair, every length, duplicates,
/// partial key widths (fewer passes, an odd or even number of them), and a long input of few
/// distinct keys (deep per-digit runs across many tiles).
#[test]
fn gpu_against_twin_and_stable_sort() {
    let Some(g) = gpu() else {
        return;
    };
    for &n in &LENGTHS {
        for dups in [false, true] {
            check::<i32, i32>(&g, n, 32, dups);
            check::<i32, i64>(&g, n, 32, dups);
            check::<i64, i32>(&g, n, 64, dups);
            check::<i64, i64>(&g, n, 64, dups);
        }
        for bits in [0u32, 1, 8, 9, 17, 24] {
            check::<i32, i32>(&g, n, bits, true);
        }
        for bits in [33u32, 48] {
            check::<i64, i32>(&g, n, bits, false);
        }
    }
    // many elements, few keys; GPU vs the CPU twin directly
    let n = 3_000_000;
    let k: Vec<i64> = keys(n, 5, 20, true);
    let v: Vec<i32> = (0..n as u64).rev().map(i32::from_bits).collect();
    let run = |dev: &Device| {
        let ka = Array::from_vec(k.clone(), &[n], dev).unwrap();
        let va = Array::from_vec(v.clone(), &[n], dev).unwrap();
        let (a, b) = sort_pairs(&ka, Some(&va), 20).unwrap();
        (a.to_vec().unwrap(), b.to_vec().unwrap())
    };
    assert!(run(&g) == run(&Device::Cpu), "3e6 keys: GPU vs CPU twin");
}

#[test]
fn sort_errors_and_bits() {
    let dev = Device::Cpu;
    let k = Array::from_vec(vec![1i32, 2, 3], &[3], &dev).unwrap();
    assert!(matches!(
        sort_pairs::<i32, i32>(&k, None, 33).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    let v = Array::from_vec(vec![1i64, 2], &[2], &dev).unwrap();
    assert!(matches!(
        sort_pairs(&k, Some(&v), 8).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    // a 2-D input is sorted flat
    let k2 = Array::from_vec(vec![4i32, 3, 2, 1], &[2, 2], &dev).unwrap();
    let (s, p) = sort_pairs::<i32, i32>(&k2, None, 3).unwrap();
    assert_eq!(
        (s.to_vec().unwrap(), p.to_vec().unwrap()),
        (vec![1, 2, 3, 4], vec![3, 2, 1, 0])
    );
    // keys compare as unsigned words: -1 is the largest
    let k3 = Array::from_vec(vec![-1i32, 0, 5], &[3], &dev).unwrap();
    let (s, _) = sort_pairs::<i32, i32>(&k3, None, 32).unwrap();
    assert_eq!(s.to_vec().unwrap(), vec![0, 5, -1]);
    assert_eq!(
        (bits_for(0), bits_for(1), bits_for(255), bits_for(256)),
        (0, 1, 8, 9)
    );
}
