//! Bad and extreme inputs for cusci-signal (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.signal 1.17.1) where SciPy accepts the input, run on
//! every device in a child process (harness: `cusci_core::testing::bad_input`): huge orders,
//! rates and lengths refused before allocation (they wrapped or aborted), empty inputs, bad
//! windows and segment lengths.

use cusci_core::testing::bad_input::{self as bi, fv, Kind::*, Table, V};
use cusci_core::{Array, Device, Result};
use cusci_signal::*;
use num_complex::Complex64 as c64;

fn x8(d: &Device) -> Result<Array<f64>> {
    Array::from_vec((0..8).map(|v| v as f64).collect(), &[8], d)
}
fn vec1(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
fn lags(v: Vec<i64>) -> V {
    V::I(vec![v.len()], v)
}
fn ok<T>(r: Result<T>) -> Result<V> {
    r.map(|_| V::N(1))
}

fn table(_dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- filter design: huge and zero orders ----------
    let lp = IirOptions::default();
    for (name, n) in [
        ("usize::MAX", usize::MAX),
        ("2^62", 1usize << 62),
        ("2^59", 1 << 59),
    ] {
        t.err(&format!("butter({name}) overflows"), Arg, move |_| {
            ok(butter(n, &[0.5], &lp))
        });
        t.err(&format!("buttap({name}) overflows"), Arg, move |_| {
            ok(buttap(n))
        });
    }
    t.err("butter(2^40) past the host's memory", Oom, move |_| {
        ok(butter(1 << 40, &[0.5], &lp))
    });
    t.err("cheby1(2^40)", Oom, |_| {
        ok(cheby1(1 << 40, 1.0, &[0.5], &IirOptions::default()))
    });
    t.err("bessel(usize::MAX)", Arg, |_| {
        ok(bessel(
            usize::MAX,
            &[0.5],
            BesselNorm::default(),
            &IirOptions::default(),
        ))
    });
    t.err("butter(0)", Arg, move |_| ok(butter(0, &[0.5], &lp)));
    t.err("butter cutoff 1 (digital)", Arg, move |_| {
        ok(butter(2, &[1.0], &lp))
    });
    t.err("butter cutoff NaN", Arg, move |_| {
        ok(butter(2, &[f64::NAN], &lp))
    });
    t.err("butter cutoff 0", Arg, move |_| ok(butter(2, &[0.0], &lp)));

    // ---------- resample_poly: rates whose products wrapped ----------
    t.err("resample_poly up 2^62", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1 << 62,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly down 2^62", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1,
            1 << 62,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up usize::MAX", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            usize::MAX,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up 2^40", Oom, |d| {
        fv(resample_poly(
            &x8(d)?,
            1 << 40,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up 0", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            0,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly down 0", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1,
            0,
            &ResamplePolyOptions::default(),
        )?)
    });

    // ---------- correlation_lags: lengths past i64 ----------
    t.err("correlation_lags(usize::MAX, 2) full", Arg, |_| {
        Ok(lags(correlation_lags(usize::MAX, 2, ConvMode::Full)?))
    });
    t.err("correlation_lags(2, usize::MAX) valid", Arg, |_| {
        Ok(lags(correlation_lags(2, usize::MAX, ConvMode::Valid)?))
    });
    t.err("correlation_lags(2^40, 2^40) full", Oom, |_| {
        Ok(lags(correlation_lags(1 << 40, 1 << 40, ConvMode::Full)?))
    });
    t.err("correlation_lags(2^62, 2^62) full", Arg, |_| {
        Ok(lags(correlation_lags(1 << 62, 1 << 62, ConvMode::Full)?))
    });
    t.err("correlation_lags(i64::MAX, 1) same", Arg, |_| {
        Ok(lags(correlation_lags(
            i64::MAX as usize,
            1,
            ConvMode::Same,
        )?))
    });
    t.val(
        "correlation_lags(0, 0) full (SciPy: [])",
        lags(vec![]),
        |_| Ok(lags(correlation_lags(0, 0, ConvMode::Full)?)),
    );
    t.val(
        "correlation_lags(3, 2) full",
        lags(vec![-1, 0, 1, 2]),
        |_| Ok(lags(correlation_lags(3, 2, ConvMode::Full)?)),
    );
    t.val(
        "correlation_lags(2, 4) valid",
        lags(vec![-2, -1, 0]),
        |_| Ok(lags(correlation_lags(2, 4, ConvMode::Valid)?)),
    );
    t.val(
        "correlation_lags(4, 2) same",
        lags(vec![-1, 0, 1, 2]),
        |_| Ok(lags(correlation_lags(4, 2, ConvMode::Same)?)),
    );

    // ---------- empty and bad arguments ----------
    t.err("medfilt even kernel", Arg, |d| fv(medfilt(&x8(d)?, 4)?));
    t.err("firwin numtaps 0", Arg, |_| {
        ok(firwin(0, &[0.5], &FirwinOptions::default()))
    });
    t.val(
        "get_window kaiser NaN beta (SciPy: NaN)",
        V::F(vec![8], vec![f64::NAN; 8]),
        |d| fv(get_window::<f64>(&Window::Kaiser(f64::NAN), 8, true, d)?),
    );
    t.val(
        "get_window hann 0 (SciPy: [])",
        V::F(vec![0], vec![]),
        |d| fv(get_window::<f64>(&Window::Hann, 0, true, d)?),
    );
    t.err("welch noverlap >= nperseg", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(4),
            noverlap: Some(4),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("welch nperseg 0", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(0),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("welch nfft < nperseg", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(8),
            nfft: Some(4),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("lfilter a[0] = 0", Arg, |d| {
        let r = lfilter(
            &vec1(&[1.0], d)?,
            &vec1(&[0.0, 1.0], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.err("lfilter empty a", Arg, |d| {
        let r = lfilter(
            &vec1(&[1.0], d)?,
            &vec1(&[], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.err("sosfilt sos of 5 columns", Shape, |d| {
        let sos = Array::<f64>::ones(&[1, 5], d)?;
        fv(sosfilt(&sos, &x8(d)?, &FilterOptions::default())?.y)
    });
    t.err("convolve of an empty input", Arg, |d| {
        fv(convolve(&vec1(&[], d)?, &x8(d)?, &ConvOptions::default())?)
    });
    extra(&mut t);
    t
}

fn empty(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::zeros(&[0], d)
}
const HUGE: [(&str, usize); 3] = [
    ("2^40", 1 << 40),
    ("2^62", 1 << 62),
    ("usize::MAX", usize::MAX),
];

/// SciPy's `stft(arange(8.0), nperseg=8)[2]`, real and imaginary parts interleaved.
const STFT_X8: [f64; 30] = [
    0.5732233047033631,
    0.0,
    4.0,
    0.0,
    2.4267766952966365,
    0.0,
    -0.07322330470336309,
    0.47855339059327373,
    -2.0,
    0.9571067811865477,
    -0.9267766952966368,
    -1.9356601717798212,
    -0.25,
    -0.10355339059327373,
    0.0,
    -0.20710678118654746,
    -0.75,
    1.3106601717798212,
    0.07322330470336309,
    -0.02144660940672624,
    -1.1102230246251565e-16,
    -0.04289321881345226,
    0.9267766952966368,
    -0.4356601717798212,
    -0.07322330470336313,
    0.0,
    0.0,
    0.0,
    -0.9267766952966368,
    0.0,
];

fn welch_o(f: impl FnOnce(&mut WelchOptions)) -> WelchOptions {
    let mut o = WelchOptions::default();
    f(&mut o);
    o
}
fn stft_o(f: impl FnOnce(&mut StftOptions)) -> StftOptions {
    let mut o = StftOptions::default();
    f(&mut o);
    o
}
fn fz(f: impl FnOnce(&mut FreqzOptions)) -> FreqzOptions {
    let mut o = FreqzOptions::default();
    f(&mut o);
    o
}

fn extra(t: &mut Table) {
    // ---------- huge lengths in every length argument ----------
    // SciPy: MemoryError at 2^40 (the array of that length), ValueError ("array is too big",
    // "Maximum allowed size exceeded") at 2^62 and usize::MAX
    for (hn, h) in HUGE {
        let k = if h == 1 << 40 { Oom } else { Arg };
        t.err(&format!("firwin numtaps {hn}"), k, move |_| {
            ok(firwin(h, &[0.5], &FirwinOptions::default()))
        });
        t.err(&format!("firwin2 numtaps {hn}"), k, move |_| {
            ok(firwin2(
                h | 1,
                &[0.0, 0.5, 1.0],
                &[1.0, 1.0, 0.0],
                &Firwin2Options::default(),
            ))
        });
        t.err(&format!("resample to {hn}"), k, move |d| {
            fv(resample(&x8(d)?, h, &ResampleOptions::default())?)
        });
        t.err(&format!("hilbert N {hn}"), k, move |d| {
            let o = HilbertOptions {
                n: Some(h),
                ..Default::default()
            };
            bi::cv(hilbert(&x8(d)?, &o)?)
        });
        t.err(&format!("welch nfft {hn}"), k, move |d| {
            let o = welch_o(|o| {
                o.nperseg = Some(4);
                o.nfft = Some(h)
            });
            fv(welch(&x8(d)?, &o)?.1)
        });
        t.err(&format!("freqz worN {hn}"), k, move |_| {
            ok(freqz(&[1.0], &[1.0], &fz(|o| o.wor_n = WorN::N(h))))
        });
        t.err(&format!("freqz_zpk worN {hn}"), k, move |_| {
            ok(freqz_zpk(&[], &[], 1.0, &fz(|o| o.wor_n = WorN::N(h))))
        });
        t.err(&format!("group_delay worN {hn}"), k, move |_| {
            ok(group_delay(&[1.0], &[1.0], &fz(|o| o.wor_n = WorN::N(h))))
        });
        t.err(&format!("freqs worN {hn}"), k, move |_| {
            ok(freqs(&[1.0], &[1.0, 1.0], &WorN::N(h)))
        });
        t.err(&format!("czt m {hn}"), k, move |d| {
            let x = Array::<c64>::ones(&[4], d)?;
            bi::cv(czt(&x, Some(h), None, c64::new(1.0, 0.0), -1)?)
        });
        t.err(&format!("czt_points m {hn}"), k, move |_| {
            ok(czt_points(h, None, c64::new(1.0, 0.0)))
        });
        t.err(&format!("get_window hann {hn}"), k, move |d| {
            fv(get_window::<f64>(&Window::Hann, h, true, d)?)
        });
        t.err(&format!("get_window kaiser {hn}"), k, move |d| {
            fv(get_window::<f64>(&Window::Kaiser(8.6), h, false, d)?)
        });
        // SciPy: MemoryError for a domain of 2^40 + 1 and 2^62 + 1 booleans (here 2^62 + 1
        // values pass isize::MAX bytes), ValueError at usize::MAX
        t.err(&format!("medfilt kernel {hn}+1"), k, move |d| {
            fv(medfilt(&x8(d)?, h | 1)?)
        });
        // SciPy: ValueError (the input is not longer than padlen 27, whatever q)
        t.err(&format!("decimate q {hn}"), Arg, move |d| {
            fv(decimate(&x8(d)?, h, &DecimateOptions::default())?)
        });
        // SciPy: ValueError ("array is too big") for every huge square shape
        t.err(&format!("unit_impulse shape {hn} x {hn}"), Arg, move |d| {
            fv(unit_impulse::<f64>(&[h, h], &ImpulseIndex::First, d)?)
        });
        t.err(&format!("unit_impulse shape {hn}"), k, move |d| {
            fv(unit_impulse::<f64>(&[h], &ImpulseIndex::First, d)?)
        });
        t.err(&format!("savgol_coeffs window {hn}+1"), k, move |_| {
            ok(savgol_coeffs(h | 1, 2, &SavgolCoeffsOptions::default()))
        });
        // SciPy 1.15 removed ricker, morlet and morlet2: NumPy's MemoryError / ValueError for
        // arrays of these lengths
        t.err(&format!("ricker points {hn}"), k, move |d| {
            fv(ricker::<f64>(h, 1.0, d)?)
        });
        t.err(&format!("morlet points {hn}"), k, move |d| {
            bi::cv(morlet(h, &MorletOptions::default(), d)?)
        });
        t.err(&format!("morlet2 points {hn}"), k, move |d| {
            bi::cv(morlet2(h, 1.0, 5.0, d)?)
        });
        // SciPy: nperseg longer than the input is the input's length (a warning)
        t.val(
            &format!("welch nperseg {hn} (SciPy: nperseg 8)"),
            V::F(
                vec![5],
                vec![
                    1.3333333333333333,
                    10.437902832994919,
                    0.457527667343493,
                    0.01962483434857299,
                    1.232595164407831e-32,
                ],
            ),
            move |d| fv(welch(&x8(d)?, &welch_o(|o| o.nperseg = Some(h)))?.1),
        );
        t.val(
            &format!("stft nperseg {hn} (SciPy: nperseg 8)"),
            V::F(vec![5, 3, 2], STFT_X8.to_vec()),
            move |d| bi::cv(stft(&x8(d)?, &stft_o(|o| o.nperseg = Some(h)))?.2),
        );
    }

    // ---------- unstable and malformed filters ----------
    t.err("lfilter a all zeros", Arg, |d| {
        let r = lfilter(
            &vec1(&[1.0], d)?,
            &vec1(&[0.0, 0.0], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.err("lfilter empty b", Arg, |d| {
        let r = lfilter(
            &vec1(&[], d)?,
            &vec1(&[1.0], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.val(
        "lfilter of an empty input (SciPy: [])",
        V::F(vec![0], vec![]),
        |d| {
            let r = lfilter(
                &vec1(&[1.0, 1.0], d)?,
                &vec1(&[1.0], d)?,
                &empty(d)?,
                &FilterOptions::default(),
            )?;
            fv(r.y)
        },
    );
    t.err("sosfilt sos of 0 sections", Arg, |d| {
        let sos = Array::<f64>::ones(&[0, 6], d)?;
        fv(sosfilt(&sos, &x8(d)?, &FilterOptions::default())?.y)
    });
    t.err("sosfilt 1-d sos", Shape, |d| {
        let sos = Array::<f64>::ones(&[6], d)?;
        fv(sosfilt(&sos, &x8(d)?, &FilterOptions::default())?.y)
    });
    t.err("sosfilt a0 = 0", Arg, |d| {
        let sos = vec1(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0], d)?.reshape(&[1, 6])?;
        fv(sosfilt(&sos, &x8(d)?, &FilterOptions::default())?.y)
    });
    t.err("sosfiltfilt sos of 5 columns", Shape, |d| {
        let sos = Array::<f64>::ones(&[1, 5], d)?;
        fv(sosfiltfilt(&sos, &x8(d)?, &FiltfiltOptions::default())?)
    });
    t.err("filtfilt a[0] = 0", Arg, |d| {
        fv(filtfilt(
            &vec1(&[1.0], d)?,
            &vec1(&[0.0, 1.0], d)?,
            &x8(d)?,
            &FiltfiltOptions::default(),
        )?)
    });
    t.err("filtfilt input shorter than padlen", Arg, |d| {
        fv(filtfilt(
            &vec1(&[1.0, 2.0, 3.0], d)?,
            &vec1(&[1.0, 0.5, 0.25], d)?,
            &vec1(&[1.0, 2.0], d)?,
            &FiltfiltOptions::default(),
        )?)
    });
    // SciPy strips the leading zeros of a
    t.val("lfilter_zi a[0] = 0 (SciPy: [1])", bi::hv(&[1.0]), |d| {
        fv(lfilter_zi(&vec1(&[1.0, 1.0], d)?, &vec1(&[0.0, 1.0], d)?)?)
    });

    // ---------- filter design: cutoffs ----------
    // SciPy: ValueError; a count of critical frequencies that does not fit the band type is
    // ShapeMismatch here (as the other counts: sections, ranks)
    for (name, wn, btype, k) in [
        ("-0.5", vec![-0.5], BType::Lowpass, Arg),
        ("1.5", vec![1.5], BType::Lowpass, Arg),
        ("infinity", vec![f64::INFINITY], BType::Lowpass, Arg),
        ("empty", vec![], BType::Lowpass, Shape),
        ("band reversed", vec![0.6, 0.2], BType::Bandpass, Arg),
    ] {
        let w2 = wn.clone();
        t.err(&format!("butter Wn {name}"), k, move |_| {
            let o = IirOptions {
                btype,
                ..Default::default()
            };
            ok(butter(4, &w2, &o))
        });
        t.err(&format!("firwin cutoff {name}"), Arg, move |_| {
            ok(firwin(11, &wn, &FirwinOptions::default()))
        });
    }
    t.err("firwin cutoff NaN", Arg, |_| {
        ok(firwin(11, &[f64::NAN], &FirwinOptions::default()))
    });
    t.err("firwin highpass with an even numtaps", Arg, |_| {
        let o = FirwinOptions {
            pass_zero: false,
            ..Default::default()
        };
        ok(firwin(10, &[0.3], &o))
    });
    t.err("firwin fs 0", Arg, |_| {
        let o = FirwinOptions {
            fs: 0.0,
            ..Default::default()
        };
        ok(firwin(11, &[0.3], &o))
    });
    t.err("cheby1 ripple NaN", Arg, |_| {
        ok(cheby1(4, f64::NAN, &[0.5], &IirOptions::default()))
    });
    t.err("cheby2 attenuation -1", Arg, |_| {
        ok(cheby2(4, -1.0, &[0.5], &IirOptions::default()))
    });
    t.err("savgol_coeffs polyorder >= window", Arg, |_| {
        ok(savgol_coeffs(5, 5, &SavgolCoeffsOptions::default()))
    });
    t.err("savgol_coeffs window 0", Arg, |_| {
        ok(savgol_coeffs(0, 0, &SavgolCoeffsOptions::default()))
    });

    // ---------- resampling ----------
    t.err("resample to 0", Arg, |d| {
        fv(resample(&x8(d)?, 0, &ResampleOptions::default())?)
    });
    t.err("resample of an empty input", Arg, |d| {
        fv(resample(&empty(d)?, 4, &ResampleOptions::default())?)
    });
    t.err("decimate q 0", Arg, |d| {
        fv(decimate(&x8(d)?, 0, &DecimateOptions::default())?)
    });
    t.err("upfirdn empty filter", Arg, |d| {
        fv(upfirdn(
            &vec1(&[], d)?,
            &x8(d)?,
            1,
            1,
            &UpfirdnOptions::default(),
        )?)
    });
    t.err("upfirdn up 0", Arg, |d| {
        fv(upfirdn(
            &vec1(&[1.0], d)?,
            &x8(d)?,
            0,
            1,
            &UpfirdnOptions::default(),
        )?)
    });

    // ---------- hilbert ----------
    t.err("hilbert N 0", Arg, |d| {
        let o = HilbertOptions {
            n: Some(0),
            ..Default::default()
        };
        bi::cv(hilbert(&x8(d)?, &o)?)
    });
    t.err("hilbert axis 1 of 1-d", Arg, |d| {
        let o = HilbertOptions {
            axis: 1,
            ..Default::default()
        };
        bi::cv(hilbert(&x8(d)?, &o)?)
    });

    // ---------- peaks ----------
    t.err("find_peaks distance 0", Arg, |d| {
        let o = FindPeaksOptions {
            distance: Some(0.0),
            ..Default::default()
        };
        bi::iv(find_peaks(&x8(d)?, &o)?.0)
    });
    t.err("find_peaks distance NaN", Arg, |d| {
        let o = FindPeaksOptions {
            distance: Some(f64::NAN),
            ..Default::default()
        };
        bi::iv(find_peaks(&x8(d)?, &o)?.0)
    });
    t.err("find_peaks wlen NaN with a prominence", Arg, |d| {
        let o = FindPeaksOptions {
            prominence: Some(Bound::default()),
            wlen: Some(f64::NAN),
            ..Default::default()
        };
        bi::iv(find_peaks(&x8(d)?, &o)?.0)
    });
    t.err("find_peaks rel_height -1 with a width", Arg, |d| {
        let o = FindPeaksOptions {
            width: Some(Bound::default()),
            rel_height: -1.0,
            ..Default::default()
        };
        bi::iv(find_peaks(&x8(d)?, &o)?.0)
    });
    t.err("find_peaks of a 2-d input", Arg, |d| {
        let x = Array::<f64>::ones(&[2, 4], d)?;
        bi::iv(find_peaks(&x, &FindPeaksOptions::default())?.0)
    });
    t.val(
        "find_peaks of an empty input (SciPy: [])",
        V::I(vec![0], vec![]),
        |d| bi::iv(find_peaks(&empty(d)?, &FindPeaksOptions::default())?.0),
    );
    t.err("peak_widths peak index out of range", Arg, |d| {
        let p = Array::from_vec(vec![20i64], &[1], d)?;
        ok(peak_widths(&x8(d)?, &p, 0.5, None, None))
    });
    t.err("argrelmin order 0", Arg, |d| {
        ok(argrelmin(&x8(d)?, -1, 0, ExtremaMode::Clip))
    });

    // ---------- convolution ----------
    t.err("convolve of an empty kernel", Arg, |d| {
        fv(convolve(&x8(d)?, &vec1(&[], d)?, &ConvOptions::default())?)
    });
    t.err("correlate of empty inputs", Arg, |d| {
        fv(correlate(
            &vec1(&[], d)?,
            &vec1(&[], d)?,
            &ConvOptions::default(),
        )?)
    });
    t.err("fftconvolve of an empty input", Arg, |d| {
        fv(fftconvolve(&vec1(&[], d)?, &x8(d)?, ConvMode::Full)?)
    });
    // SciPy: ValueError; ShapeMismatch here
    t.err("convolve of inputs of different rank", Shape, |d| {
        let y = Array::<f64>::ones(&[2, 2], d)?;
        fv(convolve(&x8(d)?, &y, &ConvOptions::default())?)
    });
    t.err("convolve2d of 1-d inputs", Shape, |d| {
        fv(convolve2d(&x8(d)?, &x8(d)?, &Conv2dOptions::default())?)
    });

    // ---------- medfilt and order filters ----------
    t.err("medfilt kernel 0", Arg, |d| fv(medfilt(&x8(d)?, 0)?));
    t.err("medfilt kernel of 2 values for 1-d", Arg, |d| {
        fv(medfilt(&x8(d)?, vec![3, 3])?)
    });
    t.err("order_filter rank past the domain", Arg, |d| {
        fv(order_filter(&x8(d)?, &vec1(&[1.0, 1.0, 1.0], d)?, 3)?)
    });
    t.err("wiener of an empty input", Arg, |d| {
        fv(wiener(&empty(d)?, None, None)?)
    });

    // ---------- spectral: fs, segments, windows ----------
    for (name, fs) in [
        ("0", 0.0),
        ("NaN", f64::NAN),
        ("-1", -1.0),
        ("infinity", f64::INFINITY),
    ] {
        t.err(&format!("welch fs {name}"), Arg, move |d| {
            fv(welch(&x8(d)?, &welch_o(|o| o.fs = fs))?.1)
        });
        t.err(&format!("stft fs {name}"), Arg, move |d| {
            bi::cv(stft(&x8(d)?, &stft_o(|o| o.fs = fs))?.2)
        });
        t.err(&format!("freqz fs {name}"), Arg, move |_| {
            ok(freqz(&[1.0], &[1.0], &fz(|o| o.fs = fs)))
        });
    }
    t.err("stft noverlap >= nperseg", Arg, |d| {
        let o = stft_o(|o| {
            o.nperseg = Some(4);
            o.noverlap = Some(5)
        });
        bi::cv(stft(&x8(d)?, &o)?.2)
    });
    t.err(
        "welch window values of another length than nperseg",
        Arg,
        |d| {
            let o = welch_o(|o| {
                o.nperseg = Some(4);
                o.window = WindowSpec::Values(vec![1.0; 3])
            });
            fv(welch(&x8(d)?, &o)?.1)
        },
    );
    t.err("welch window of 2-d values empty", Arg, |d| {
        let o = welch_o(|o| o.window = WindowSpec::Values(vec![]));
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("periodogram fs 0", Arg, |d| {
        fv(periodogram(&x8(d)?, None, &welch_o(|o| o.fs = 0.0))?.1)
    });
    t.val("freqz worN 0 (SciPy: no frequencies)", V::N(0), |_| {
        let r = freqz(&[1.0], &[1.0], &fz(|o| o.wor_n = WorN::N(0)))?;
        Ok(V::N((r.w.len() + r.h.len()) as u64))
    });
    t.err("freqz empty b", Arg, |_| {
        ok(freqz(&[], &[1.0], &FreqzOptions::default()))
    });
    t.err("czt m 0", Arg, |d| {
        let x = Array::<c64>::ones(&[4], d)?;
        bi::cv(czt(&x, Some(0), None, c64::new(1.0, 0.0), -1)?)
    });
    t.err("czt_points m 0", Arg, |_| {
        ok(czt_points(0, None, c64::new(1.0, 0.0)))
    });
    t.err("get_window tukey alpha NaN", Arg, |d| {
        fv(get_window::<f64>(&Window::Tukey(f64::NAN), 8, true, d)?)
    });
    // SciPy: exp(-x² / 0), NaN at the centre (0 / 0)
    t.val(
        "get_window gaussian std 0 (SciPy: 0 but NaN at the centre)",
        V::F(vec![8], vec![0.0, 0.0, 0.0, 0.0, f64::NAN, 0.0, 0.0, 0.0]),
        |d| fv(get_window::<f64>(&Window::Gaussian(0.0), 8, true, d)?),
    );

    // ---------- waveforms ----------
    // SciPy: NaN where the width or duty is outside [0, 1]
    let nan8 = || V::F(vec![8], vec![f64::NAN; 8]);
    t.val("sawtooth width 2 (SciPy: NaN)", nan8(), |d| {
        fv(sawtooth(&x8(d)?, 2.0)?)
    });
    t.val("sawtooth width NaN (SciPy: NaN)", nan8(), |d| {
        fv(sawtooth(&x8(d)?, f64::NAN)?)
    });
    t.val("square duty -1 (SciPy: NaN)", nan8(), |d| {
        fv(square(&x8(d)?, -1.0)?)
    });
    // SciPy: ZeroDivisionError (linear and quadratic divide by t1)
    t.err("chirp t1 0 (division by zero)", Arg, |d| {
        fv(chirp(&x8(d)?, 1.0, 0.0, 2.0, &ChirpOptions::default())?)
    });
    t.err("chirp quadratic t1 0 (division by zero)", Arg, |d| {
        let o = ChirpOptions {
            method: ChirpMethod::Quadratic,
            ..Default::default()
        };
        fv(chirp(&x8(d)?, 1.0, 0.0, 2.0, &o)?)
    });
    t.err("chirp logarithmic f0 0", Arg, |d| {
        let o = ChirpOptions {
            method: ChirpMethod::Logarithmic,
            ..Default::default()
        };
        fv(chirp(&x8(d)?, 0.0, 1.0, 2.0, &o)?)
    });
    t.val("chirp f0 NaN (SciPy: NaN)", nan8(), |d| {
        fv(chirp(
            &x8(d)?,
            f64::NAN,
            1.0,
            2.0,
            &ChirpOptions::default(),
        )?)
    });
    t.err("ricker a 0", Arg, |d| fv(ricker::<f64>(8, 0.0, d)?));
    t.err("unit_impulse index out of range", Arg, |d| {
        fv(unit_impulse::<f64>(&[4], &ImpulseIndex::At(vec![9]), d)?)
    });
    t.err("max_len_seq nbits 0", Arg, |_| {
        ok(max_len_seq(0, None, None, None))
    });
    t.err("max_len_seq nbits 64", Arg, |_| {
        ok(max_len_seq(64, None, None, None))
    });
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-signal", 190, table);
}
