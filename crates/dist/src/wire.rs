//! Plain byte encodings of the values that travel between workers and ranks.
//!
//! Results of [`Cluster::run`](crate::Cluster::run), [`Cluster::batch_map`](crate::Cluster::batch_map)
//! and [`Cluster::map_reduce`](crate::Cluster::map_reduce) cross thread and process boundaries as
//! bytes (little-endian, fixed layout), so the same bits arrive on every rank.

use cusci_core::error::make;
use cusci_core::{c32, c64, Result};

/// A value that can be sent to other workers and ranks as bytes.
///
/// Implemented for the numeric element types, `bool`, `()`, `String`, `Vec<T>`, `Option<T>` and
/// tuples of up to six `Wire` values.
pub trait Wire: Sized + Send {
    /// Appends the encoding of `self` to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads one value from the front of `inp`, advancing it.
    ///
    /// # Errors
    /// `InvalidArgument` when the bytes are too short or malformed.
    fn decode(inp: &mut &[u8]) -> Result<Self>;
}

pub(crate) fn take<'a>(inp: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if inp.len() < n {
        return Err(make::arg(
            "cusci_dist::Wire::decode",
            format!("needs {n} more bytes, has {}", inp.len()),
        ));
    }
    let (a, b) = inp.split_at(n);
    *inp = b;
    Ok(a)
}

macro_rules! wire_num {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn decode(inp: &mut &[u8]) -> Result<Self> {
                let b = take(inp, std::mem::size_of::<$t>())?;
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                Ok(<$t>::from_le_bytes(a))
            }
        }
    )*};
}
wire_num!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, f32, f64);

impl Wire for usize {
    fn encode(&self, out: &mut Vec<u8>) {
        (*self as u64).encode(out)
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        let v = u64::decode(inp)?;
        usize::try_from(v).map_err(|_| make::arg("cusci_dist::Wire::decode", "usize overflow"))
    }
}

impl Wire for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self as u8)
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        Ok(take(inp, 1)?[0] != 0)
    }
}

impl Wire for () {
    fn encode(&self, _: &mut Vec<u8>) {}
    fn decode(_: &mut &[u8]) -> Result<Self> {
        Ok(())
    }
}

impl Wire for c32 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.re.encode(out);
        self.im.encode(out);
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        Ok(c32::new(f32::decode(inp)?, f32::decode(inp)?))
    }
}

impl Wire for c64 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.re.encode(out);
        self.im.encode(out);
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        Ok(c64::new(f64::decode(inp)?, f64::decode(inp)?))
    }
}

impl Wire for String {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        let n = usize::decode(inp)?;
        let b = take(inp, n)?;
        String::from_utf8(b.to_vec())
            .map_err(|_| make::arg("cusci_dist::Wire::decode", "invalid UTF-8"))
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.len().encode(out);
        for v in self {
            v.encode(out);
        }
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        let n = usize::decode(inp)?;
        // no pre-allocation from untrusted lengths beyond what the bytes can hold
        let mut v = Vec::with_capacity(n.min(inp.len()));
        for _ in 0..n {
            v.push(T::decode(inp)?);
        }
        Ok(v)
    }
}

impl<T: Wire> Wire for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.encode(out);
            }
        }
    }
    fn decode(inp: &mut &[u8]) -> Result<Self> {
        Ok(if bool::decode(inp)? {
            Some(T::decode(inp)?)
        } else {
            None
        })
    }
}

macro_rules! wire_tuple {
    ($($n:ident),*) => {
        impl<$($n: Wire),*> Wire for ($($n,)*) {
            #[allow(non_snake_case)]
            fn encode(&self, out: &mut Vec<u8>) {
                let ($($n,)*) = self;
                $($n.encode(out);)*
            }
            fn decode(inp: &mut &[u8]) -> Result<Self> {
                Ok(($($n::decode(inp)?,)*))
            }
        }
    };
}
wire_tuple!(A);
wire_tuple!(A, B);
wire_tuple!(A, B, C);
wire_tuple!(A, B, C, D);
wire_tuple!(A, B, C, D, E);
wire_tuple!(A, B, C, D, E, F);

/// Encodes one value into a fresh buffer.
pub fn to_bytes<T: Wire>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode(&mut out);
    out
}

/// Decodes one value that fills `bytes` exactly.
///
/// # Errors
/// `InvalidArgument` when the bytes are malformed or not used up.
pub fn from_bytes<T: Wire>(mut bytes: &[u8]) -> Result<T> {
    let v = T::decode(&mut bytes)?;
    if !bytes.is_empty() {
        return Err(make::arg(
            "cusci_dist::from_bytes",
            format!("{} bytes left over", bytes.len()),
        ));
    }
    Ok(v)
}

/// Slices of plain numbers encoded at once (faster than element by element for large outputs).
pub(crate) fn encode_slice<T: Wire>(v: &[T], out: &mut Vec<u8>) {
    out.reserve(std::mem::size_of_val(v));
    for x in v {
        x.encode(out);
    }
}
