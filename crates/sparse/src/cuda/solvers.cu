// cusci-sparse: the scalar steps of minres, lsqr and lsmr (krylov.rs engine). Appended to the
// module source of sparse.cu (types, cusci_real, TRE); one thread does the work, every kernel
// does nothing once ist[0] != 0. The CPU mirrors are in lsq.rs (same formulas, same order).
#define SG(k) ((double)cusci_real(st[k]))
#define SP(k, v) (st[k] = TRE(v))

__device__ double sl_sign(double a) { return a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : 0.0); }

// SciPy's _sym_ortho (a stable Givens rotation)
__device__ void sl_sym_ortho(double a, double b, double* c, double* s, double* r) {
  if (b == 0.0) { *c = sl_sign(a); *s = 0.0; *r = fabs(a); return; }
  if (a == 0.0) { *c = 0.0; *s = sl_sign(b); *r = fabs(b); return; }
  if (fabs(b) > fabs(a)) {
    double tau = a / b;
    *s = sl_sign(b) / sqrt(1.0 + tau * tau);
    *c = *s * tau;
    *r = b / *s;
  } else {
    double tau = b / a;
    *c = sl_sign(a) / sqrt(1.0 + tau * tau);
    *s = *c * tau;
    *r = a / *c;
  }
}

// ---------------- minres (slots: see minres.rs MR_*) ----------------
enum { MR_BETA1 = 0, MR_BETA, MR_OLDB, MR_DBAR, MR_EPSLN, MR_PHIBAR, MR_RHS1, MR_RHS2, MR_TNORM2,
       MR_GMAX, MR_GMIN, MR_CS, MR_SN, MR_ISTOP, MR_DOT, MR_BB, MR_S, MR_COEF1, MR_COEF2,
       MR_NOLDEPS, MR_NDELTA, MR_DENOM, MR_PHI, MR_XX, MR_ROOT, MR_ALFA, MR_GBAR };

extern "C" __global__ void sl_mr_pre(T* st, int* ist) {
  if (ist[0] || threadIdx.x != 0) return;
  double beta = SG(MR_BETA), oldb = SG(MR_OLDB);
  SP(MR_S, 1.0 / beta);
  SP(MR_COEF1, oldb != 0.0 ? -(beta / oldb) : 0.0);
}

extern "C" __global__ void sl_mr_alfa(T* st, int* ist) {
  if (ist[0] || threadIdx.x != 0) return;
  double alfa = SG(MR_DOT);
  SP(MR_ALFA, alfa);
  SP(MR_COEF2, -(alfa / SG(MR_BETA)));
}

extern "C" __global__ void sl_mr_rot(T* st, int* ist, int itn, double eps) {
  if (ist[0] || threadIdx.x != 0) return;
  double oldb = SG(MR_BETA);
  double bb = SG(MR_BB);
  if (bb < 0.0) { ist[0] = 3; ist[1] = itn; return; }
  double beta = sqrt(bb);
  double alfa = SG(MR_ALFA);
  double tnorm2 = SG(MR_TNORM2) + alfa * alfa + oldb * oldb + beta * beta;
  if (itn == 1 && beta / SG(MR_BETA1) <= 10.0 * eps) SP(MR_ISTOP, -1.0);
  double cs = SG(MR_CS), sn = SG(MR_SN), dbar = SG(MR_DBAR);
  double oldeps = SG(MR_EPSLN);
  double delta = cs * dbar + sn * alfa;
  double gbar = sn * dbar - cs * alfa;
  double epsln = sn * beta;
  dbar = -cs * beta;
  double root = hypot(gbar, dbar);
  double gamma = fmax(hypot(gbar, beta), eps);
  cs = gbar / gamma;
  sn = beta / gamma;
  double phibar = SG(MR_PHIBAR);
  double phi = cs * phibar;
  phibar = sn * phibar;
  double z = SG(MR_RHS1) / gamma;
  SP(MR_RHS1, SG(MR_RHS2) - delta * z);
  SP(MR_RHS2, -epsln * z);
  SP(MR_GMAX, fmax(SG(MR_GMAX), gamma));
  SP(MR_GMIN, fmin(SG(MR_GMIN), gamma));
  SP(MR_OLDB, oldb); SP(MR_BETA, beta); SP(MR_TNORM2, tnorm2);
  SP(MR_CS, cs); SP(MR_SN, sn); SP(MR_DBAR, dbar); SP(MR_EPSLN, epsln);
  SP(MR_ROOT, root); SP(MR_GBAR, gbar); SP(MR_PHI, phi); SP(MR_PHIBAR, phibar);
  SP(MR_DENOM, 1.0 / gamma); SP(MR_NOLDEPS, -oldeps); SP(MR_NDELTA, -delta);
}

extern "C" __global__ void sl_mr_test(T* st, int* ist, int itn, int maxiter, double eps, double rtol) {
  if (ist[0] || threadIdx.x != 0) return;
  double anorm = sqrt(SG(MR_TNORM2));
  double ynorm = sqrt(SG(MR_XX));
  double epsx = anorm * ynorm * eps;
  double rnorm = SG(MR_PHIBAR);
  double test1 = (ynorm == 0.0 || anorm == 0.0) ? __longlong_as_double(0x7ff0000000000000LL) : rnorm / (anorm * ynorm);
  double test2 = anorm == 0.0 ? __longlong_as_double(0x7ff0000000000000LL) : SG(MR_ROOT) / anorm;
  double acond = SG(MR_GMAX) / SG(MR_GMIN);
  int istop = (int)SG(MR_ISTOP);
  if (istop == 0) {
    if (1.0 + test2 <= 1.0) istop = 2;
    if (1.0 + test1 <= 1.0) istop = 1;
    if (itn >= maxiter) istop = 6;
    if (acond >= 0.1 / eps) istop = 4;
    if (epsx >= SG(MR_BETA1)) istop = 3;
    if (test2 <= rtol) istop = 2;
    if (test1 <= rtol) istop = 1;
  }
  SP(MR_ISTOP, (double)istop);
  if (istop != 0) { ist[0] = 100 + istop; ist[1] = itn; }
}

// ---------------- lsqr and lsmr (slots: see lsq.rs LS_*) ----------------
enum { LS_ALFA = 0, LS_BETA, LS_DOTU, LS_DOTV, LS_INVB, LS_MB, LS_INVA, LS_NALFA, LS_ISTOP,
       LS_DOTW, LS_ANORM };
enum { QR_RHOBAR = 11, QR_PHIBAR, QR_DDNORM, QR_RES2, QR_XNORM, QR_XXNORM, QR_Z, QR_CS2, QR_SN2,
       QR_T1, QR_T2, QR_ACOND, QR_ARNORM, QR_R1NORM, QR_R2NORM, QR_RNORM };
enum { MR2_ZETABAR = 11, MR2_ALPHABAR, MR2_RHO, MR2_RHOBAR, MR2_CBAR, MR2_SBAR, MR2_BETADD,
       MR2_BETAD, MR2_RHODOLD, MR2_TAUTILDEOLD, MR2_THETATILDE, MR2_ZETA, MR2_D, MR2_NORMA2,
       MR2_MAXRBAR, MR2_MINRBAR, MR2_NORMA, MR2_CONDA, MR2_NORMX, MR2_NORMR, MR2_NORMAR, MR2_CH,
       MR2_CX, MR2_CHH };

extern "C" __global__ void sl_ls_nalfa(T* st, int* ist) {
  if (ist[0] || threadIdx.x != 0) return;
  SP(LS_NALFA, -SG(LS_ALFA));
}

// beta = |u|; the scale of u (1/beta) and of v (-beta) when beta > 0, else 1 and 1
extern "C" __global__ void sl_ls_beta(T* st, int* ist, int upd_anorm, double dampsq) {
  if (ist[0] || threadIdx.x != 0) return;
  double beta = sqrt(SG(LS_DOTU));
  SP(LS_BETA, beta);
  if (beta > 0.0) {
    SP(LS_INVB, 1.0 / beta);
    SP(LS_MB, -beta);
    if (upd_anorm) {
      double a = SG(LS_ANORM), alfa = SG(LS_ALFA);
      SP(LS_ANORM, sqrt(a * a + alfa * alfa + beta * beta + dampsq));
    }
  } else {
    SP(LS_INVB, 1.0);
    SP(LS_MB, 1.0);
  }
}

// alfa = |v| when beta > 0 (else unchanged); the scale of v
extern "C" __global__ void sl_ls_alfa(T* st, int* ist) {
  if (ist[0] || threadIdx.x != 0) return;
  if (SG(LS_BETA) > 0.0) {
    double alfa = sqrt(SG(LS_DOTV));
    SP(LS_ALFA, alfa);
    SP(LS_INVA, alfa > 0.0 ? 1.0 / alfa : 1.0);
  } else {
    SP(LS_INVA, 1.0);
  }
}

extern "C" __global__ void sl_ls_flag(T* st, int* ist, int itn) {
  if (ist[0] || threadIdx.x != 0) return;
  int istop = (int)SG(LS_ISTOP);
  if (istop != 0) { ist[0] = 100 + istop; ist[1] = itn; }
}

extern "C" __global__ void sl_lsqr_rot(T* st, int* ist, int itn, int iter_lim, double damp, double atol,
                                       double btol, double ctol, double bnorm, double eps) {
  if (ist[0] || threadIdx.x != 0) return;
  double alfa = SG(LS_ALFA), beta = SG(LS_BETA), anorm = SG(LS_ANORM);
  double rhobar = SG(QR_RHOBAR), phibar = SG(QR_PHIBAR);
  double dampsq = damp * damp;
  double rhobar1, psi;
  if (damp > 0.0) {
    rhobar1 = sqrt(rhobar * rhobar + dampsq);
    double cs1 = rhobar / rhobar1, sn1 = damp / rhobar1;
    psi = sn1 * phibar;
    phibar = cs1 * phibar;
  } else {
    rhobar1 = rhobar;
    psi = 0.0;
  }
  double cs, sn, rho;
  sl_sym_ortho(rhobar1, beta, &cs, &sn, &rho);
  double theta = sn * alfa;
  rhobar = -cs * alfa;
  double phi = cs * phibar;
  phibar = sn * phibar;
  double tau = sn * phi;
  double t1 = phi / rho, t2 = -theta / rho;
  double ddnorm = SG(QR_DDNORM) + SG(LS_DOTW) / (rho * rho);
  double delta = SG(QR_SN2) * rho;
  double gambar = -SG(QR_CS2) * rho;
  double rhs = phi - delta * SG(QR_Z);
  double zbar = rhs / gambar;
  double xxnorm = SG(QR_XXNORM);
  double xnorm = sqrt(xxnorm + zbar * zbar);
  double gamma = sqrt(gambar * gambar + theta * theta);
  double cs2 = gambar / gamma, sn2 = theta / gamma;
  double z = rhs / gamma;
  xxnorm = xxnorm + z * z;
  double acond = anorm * sqrt(ddnorm);
  double res1 = phibar * phibar;
  double res2 = SG(QR_RES2) + psi * psi;
  double rnorm = sqrt(res1 + res2);
  double arnorm = alfa * fabs(tau);
  double r1sq = rnorm * rnorm - dampsq * xxnorm;
  double r1norm = sqrt(fabs(r1sq));
  if (r1sq < 0.0) r1norm = -r1norm;
  double test1 = rnorm / bnorm;
  double test2 = arnorm / (anorm * rnorm + eps);
  double test3 = 1.0 / (acond + eps);
  double tt1 = test1 / (1.0 + anorm * xnorm / bnorm);
  double rtol = btol + atol * anorm * xnorm / bnorm;
  int istop = 0;
  if (itn >= iter_lim) istop = 7;
  if (1.0 + test3 <= 1.0) istop = 6;
  if (1.0 + test2 <= 1.0) istop = 5;
  if (1.0 + tt1 <= 1.0) istop = 4;
  if (test3 <= ctol) istop = 3;
  if (test2 <= atol) istop = 2;
  if (test1 <= rtol) istop = 1;
  SP(QR_RHOBAR, rhobar); SP(QR_PHIBAR, phibar); SP(QR_DDNORM, ddnorm); SP(QR_RES2, res2);
  SP(QR_XNORM, xnorm); SP(QR_XXNORM, xxnorm); SP(QR_Z, z); SP(QR_CS2, cs2); SP(QR_SN2, sn2);
  SP(QR_T1, t1); SP(QR_T2, t2); SP(QR_ACOND, acond); SP(QR_ARNORM, arnorm);
  SP(QR_R1NORM, r1norm); SP(QR_R2NORM, rnorm); SP(QR_RNORM, rnorm); SP(LS_ISTOP, (double)istop);
}

extern "C" __global__ void sl_lsmr_rot(T* st, int* ist, int itn, double damp) {
  if (ist[0] || threadIdx.x != 0) return;
  double alpha = SG(LS_ALFA), beta = SG(LS_BETA);
  double chat, shat, alphahat;
  sl_sym_ortho(SG(MR2_ALPHABAR), damp, &chat, &shat, &alphahat);
  double rhoold = SG(MR2_RHO);
  double c, s, rho;
  sl_sym_ortho(alphahat, beta, &c, &s, &rho);
  double thetanew = s * alpha;
  double alphabar = c * alpha;
  double rhobarold = SG(MR2_RHOBAR);
  double zetaold = SG(MR2_ZETA);
  double cbar = SG(MR2_CBAR), sbar = SG(MR2_SBAR);
  double thetabar = sbar * rho;
  double rhotemp = cbar * rho;
  double rhobar;
  sl_sym_ortho(cbar * rho, thetanew, &cbar, &sbar, &rhobar);
  double zetabar = SG(MR2_ZETABAR);
  double zeta = cbar * zetabar;
  zetabar = -sbar * zetabar;
  SP(MR2_CH, -(thetabar * rho / (rhoold * rhobarold)));
  SP(MR2_CX, zeta / (rho * rhobar));
  SP(MR2_CHH, -(thetanew / rho));
  double betadd = SG(MR2_BETADD);
  double betaacute = chat * betadd;
  double betacheck = -shat * betadd;
  double betahat = c * betaacute;
  betadd = -s * betaacute;
  double thetatildeold = SG(MR2_THETATILDE);
  double ctildeold, stildeold, rhotildeold;
  sl_sym_ortho(SG(MR2_RHODOLD), thetabar, &ctildeold, &stildeold, &rhotildeold);
  double thetatilde = stildeold * rhobar;
  double rhodold = ctildeold * rhobar;
  double betad = -stildeold * SG(MR2_BETAD) + ctildeold * betahat;
  double tautildeold = (zetaold - thetatildeold * SG(MR2_TAUTILDEOLD)) / rhotildeold;
  double taud = (zeta - thetatilde * tautildeold) / rhodold;
  double d = SG(MR2_D) + betacheck * betacheck;
  double normr = sqrt(d + (betad - taud) * (betad - taud) + betadd * betadd);
  double norma2 = SG(MR2_NORMA2) + beta * beta;
  double norma = sqrt(norma2);
  norma2 = norma2 + alpha * alpha;
  double maxrbar = fmax(SG(MR2_MAXRBAR), rhobarold);
  double minrbar = SG(MR2_MINRBAR);
  if (itn > 1) minrbar = fmin(minrbar, rhobarold);
  double conda = fmax(maxrbar, rhotemp) / fmin(minrbar, rhotemp);
  SP(MR2_ALPHABAR, alphabar); SP(MR2_RHO, rho); SP(MR2_RHOBAR, rhobar); SP(MR2_CBAR, cbar);
  SP(MR2_SBAR, sbar); SP(MR2_ZETA, zeta); SP(MR2_ZETABAR, zetabar); SP(MR2_BETADD, betadd);
  SP(MR2_THETATILDE, thetatilde); SP(MR2_RHODOLD, rhodold); SP(MR2_BETAD, betad);
  SP(MR2_TAUTILDEOLD, tautildeold); SP(MR2_D, d); SP(MR2_NORMR, normr); SP(MR2_NORMA2, norma2);
  SP(MR2_NORMA, norma); SP(MR2_MAXRBAR, maxrbar); SP(MR2_MINRBAR, minrbar); SP(MR2_CONDA, conda);
  SP(MR2_NORMAR, fabs(zetabar));
}

extern "C" __global__ void sl_lsmr_test(T* st, int* ist, int itn, int maxiter, double atol, double btol,
                                        double ctol, double normb) {
  if (ist[0] || threadIdx.x != 0) return;
  double normx = sqrt(SG(LS_DOTW));
  double normr = SG(MR2_NORMR), norma = SG(MR2_NORMA), normar = SG(MR2_NORMAR);
  double test1 = normr / normb;
  double test2 = (norma * normr) != 0.0 ? normar / (norma * normr) : __longlong_as_double(0x7ff0000000000000LL);
  double test3 = 1.0 / SG(MR2_CONDA);
  double t1 = test1 / (1.0 + norma * normx / normb);
  double rtol = btol + atol * norma * normx / normb;
  int istop = 0;
  if (itn >= maxiter) istop = 7;
  if (1.0 + test3 <= 1.0) istop = 6;
  if (1.0 + test2 <= 1.0) istop = 5;
  if (1.0 + t1 <= 1.0) istop = 4;
  if (test3 <= ctol) istop = 3;
  if (test2 <= atol) istop = 2;
  if (test1 <= rtol) istop = 1;
  SP(MR2_NORMX, normx);
  SP(LS_ISTOP, (double)istop);
  if (istop > 0) { ist[0] = 100 + istop; ist[1] = itn; }
}

// ---------------- sparse triangular solve (direct.rs) ----------------
// A load that bypasses L1 (x[j] is written by another SM; a stale line must not be read).
__device__ T sl_vload(const T* p) {
  T v;
  const volatile R* src = (const volatile R*)p;
  R* dst = (R*)&v;
  for (int c = 0; c < (int)(sizeof(T) / sizeof(R)); ++c) dst[c] = src[c];
  return v;
}

// Sync-free CSR triangular solve, one warp per row: rows are handed out in solve order by an
// atomic ticket, so a warp only waits for rows taken earlier by warps already running (no
// deadlock whatever the grid); ready[i] publishes x[i] after a fence. Only the chosen triangle
// and the diagonal are read. b and x are columns of stride ld. sing: the smallest row with a zero
// diagonal, as its ticket (position in solve order; atomicMin), when not unit.
extern "C" __global__ void sl_trsv(const int* indptr, const int* indices, const T* data, i64 n,
                                   const T* b, T* x, i64 ld, int* ready, int* ticket, int lower,
                                   int unit, int* sing) {
  __shared__ T rs[NT];
  __shared__ T rd[NT];
  int lane = threadIdx.x & 31;
  for (;;) {
    int t = 0;
    if (lane == 0) t = atomicAdd(ticket, 1);
    t = __shfl_sync(0xffffffffu, t, 0);
    if ((i64)t >= n) return;
    i64 i = lower ? (i64)t : n - 1 - (i64)t;
    T s = TZERO, d = TZERO;
    for (int k = indptr[i] + lane; k < indptr[i + 1]; k += 32) {
      i64 j = indices[k];
      if (j == i) {
        d = d + data[k];
      } else if (lower ? j < i : j > i) {
        while (((volatile int*)ready)[j] == 0) { }
        __threadfence();
        s = s + data[k] * sl_vload(x + j * ld);
      }
    }
    rs[threadIdx.x] = s;
    rd[threadIdx.x] = d;
    __syncwarp();
    for (int o = 16; o > 0; o >>= 1) {
      if (lane < o) {
        rs[threadIdx.x] = rs[threadIdx.x] + rs[threadIdx.x + o];
        rd[threadIdx.x] = rd[threadIdx.x] + rd[threadIdx.x + o];
      }
      __syncwarp();
    }
    if (lane == 0) {
      T r = b[i * ld] - rs[threadIdx.x];
      if (!unit) {
        T dd = rd[threadIdx.x];
        if (dd == TZERO) atomicMin(sing, t);
        r = r / dd;
      }
      x[i * ld] = r;
      __threadfence();
      atomicExch(&ready[i], 1);
    }
    __syncwarp();
  }
}

// out[k, c] = b[p[k], c] for a row-major (n, ncol) b (a row permutation)
extern "C" __global__ void sl_gather_rows(const T* b, const int* p, i64 n, i64 ncol, T* out) {
  GRID_LOOP(e, n * ncol) {
    i64 k = e / ncol, c = e - k * ncol;
    out[e] = b[(i64)p[k] * ncol + c];
  }
}

// dst[i, c] = src[i] for a row-major (n, k) dst (eigsh's eigenvector columns)
extern "C" __global__ void sl_put_col(const T* src, T* dst, i64 n, i64 k, i64 c) {
  GRID_LOOP(i, n) { dst[i * k + c] = src[i]; }
}

// ---------------- blocks of vectors (lobpcg.rs, svds.rs) ----------------
// A block is a row-major (p, n) array: row i is vector i (contiguous). Host code owns the small
// p x q coefficient matrices; these kernels do the O(n) work.

// parts[pair * G + g] = sum over rows r of chunk g of conj(A[i, r]) * B[j, r], pair = i * q + j;
// block b handles pair b / G and chunk b % G (the grid has p * q * G blocks; fixed order)
extern "C" __global__ void lo_gram_part(const T* A, int p, const T* B, int q, i64 n, T* parts, int G) {
  __shared__ T sh[NT];
  int pair = blockIdx.x / G, g = blockIdx.x - pair * G;
  int i = pair / q, j = pair - i * q;
  const T* a = A + (i64)i * n;
  const T* b = B + (i64)j * n;
  T acc = TZERO;
  for (i64 r = (i64)g * NT + threadIdx.x; r < n; r += (i64)G * NT) acc = acc + cusci_conj(a[r]) * b[r];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) sh[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}

// out[e] = sum of the G parts of pair e, in order
extern "C" __global__ void lo_gram_sum(const T* parts, int G, int pq, T* out) {
  GRID_LOOP(e, pq) {
    T s = TZERO;
    for (int g = 0; g < G; g++) s = s + parts[e * G + g];
    out[e] = s;
  }
}

// out[j, r] = base[j, r] (when base != 0) + sum_i A[i, r] * C[i, j]; A (p, n), C (p, q), out (q, n)
extern "C" __global__ void lo_combine(const T* A, int p, const T* C, int q, i64 n, const T* base, T* out) {
  GRID_LOOP(e, (i64)q * n) {
    i64 j = e / n, r = e - j * n;
    T s = base ? base[e] : TZERO;
    for (int i = 0; i < p; i++) s = s + A[(i64)i * n + r] * C[(i64)i * q + j];
    out[e] = s;
  }
}

// dst[i] = src[i]
extern "C" __global__ void lo_copy(const T* src, T* dst, i64 n) {
  GRID_LOOP(i, n) { dst[i] = src[i]; }
}
