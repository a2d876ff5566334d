// The Fortran LAPACK/BLAS routines the CPU backend calls. OpenBLAS exports
// them from the same libopenblas.so as cblas (Debian ships no lapack.h for
// it, hence the declarations here). Fortran convention: every argument by
// pointer, one hidden size_t length after the last argument per CHARACTER
// argument, column-major matrices, 32-bit integers (Debian's OpenBLAS is
// LP64).
//
// The overloads in hlo::cpu::lapack pick the s/d/c/z routine from the
// element type so that kernels are written once as templates.
#pragma once

#include <complex>
#include <cstddef>

extern "C" {
using hlo_c64 = std::complex<float>;
using hlo_c128 = std::complex<double>;

void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void cpotrf_(const char*, const int*, hlo_c64*, const int*, int*, size_t);
void zpotrf_(const char*, const int*, hlo_c128*, const int*, int*, size_t);

void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void cgetrf_(const int*, const int*, hlo_c64*, const int*, int*, int*);
void zgetrf_(const int*, const int*, hlo_c128*, const int*, int*, int*);

void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void cgeqrf_(const int*, const int*, hlo_c64*, const int*, hlo_c64*, hlo_c64*, const int*, int*);
void zgeqrf_(const int*, const int*, hlo_c128*, const int*, hlo_c128*, hlo_c128*, const int*, int*);

void sgeqp3_(const int*, const int*, float*, const int*, int*, float*, float*, const int*, int*);
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*, double*, const int*,
             int*);
void cgeqp3_(const int*, const int*, hlo_c64*, const int*, int*, hlo_c64*, hlo_c64*, const int*,
             float*, int*);
void zgeqp3_(const int*, const int*, hlo_c128*, const int*, int*, hlo_c128*, hlo_c128*,
             const int*, double*, int*);

void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*,
             const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void cungqr_(const int*, const int*, const int*, hlo_c64*, const int*, const hlo_c64*, hlo_c64*,
             const int*, int*);
void zungqr_(const int*, const int*, const int*, hlo_c128*, const int*, const hlo_c128*,
             hlo_c128*, const int*, int*);

void strsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const float*, const float*, const int*, float*, const int*, size_t, size_t, size_t,
            size_t);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const double*, const double*, const int*, double*, const int*, size_t, size_t,
            size_t, size_t);
void ctrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const hlo_c64*, const hlo_c64*, const int*, hlo_c64*, const int*, size_t, size_t,
            size_t, size_t);
void ztrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const hlo_c128*, const hlo_c128*, const int*, hlo_c128*, const int*, size_t, size_t,
            size_t, size_t);

void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*,
             const int*, int*, const int*, int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*,
             const int*, int*, const int*, int*, size_t, size_t);
void cheevd_(const char*, const char*, const int*, hlo_c64*, const int*, float*, hlo_c64*,
             const int*, float*, const int*, int*, const int*, int*, size_t, size_t);
void zheevd_(const char*, const char*, const int*, hlo_c128*, const int*, double*, hlo_c128*,
             const int*, double*, const int*, int*, const int*, int*, size_t, size_t);

void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*,
             const int*, float*, const int*, float*, const int*, int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*,
             const int*, double*, const int*, double*, const int*, int*, int*, size_t);
void cgesdd_(const char*, const int*, const int*, hlo_c64*, const int*, float*, hlo_c64*,
             const int*, hlo_c64*, const int*, hlo_c64*, const int*, float*, int*, int*, size_t);
void zgesdd_(const char*, const int*, const int*, hlo_c128*, const int*, double*, hlo_c128*,
             const int*, hlo_c128*, const int*, hlo_c128*, const int*, double*, int*, int*,
             size_t);

void sgtsv_(const int*, const int*, float*, float*, float*, float*, const int*, int*);
void dgtsv_(const int*, const int*, double*, double*, double*, double*, const int*, int*);
void cgtsv_(const int*, const int*, hlo_c64*, hlo_c64*, hlo_c64*, hlo_c64*, const int*, int*);
void zgtsv_(const int*, const int*, hlo_c128*, hlo_c128*, hlo_c128*, hlo_c128*, const int*, int*);

void sgehrd_(const int*, const int*, const int*, float*, const int*, float*, float*, const int*,
             int*);
void dgehrd_(const int*, const int*, const int*, double*, const int*, double*, double*,
             const int*, int*);
void cgehrd_(const int*, const int*, const int*, hlo_c64*, const int*, hlo_c64*, hlo_c64*,
             const int*, int*);
void zgehrd_(const int*, const int*, const int*, hlo_c128*, const int*, hlo_c128*, hlo_c128*,
             const int*, int*);

void ssytrd_(const char*, const int*, float*, const int*, float*, float*, float*, float*,
             const int*, int*, size_t);
void dsytrd_(const char*, const int*, double*, const int*, double*, double*, double*, double*,
             const int*, int*, size_t);
void chetrd_(const char*, const int*, hlo_c64*, const int*, float*, float*, hlo_c64*, hlo_c64*,
             const int*, int*, size_t);
void zhetrd_(const char*, const int*, hlo_c128*, const int*, double*, double*, hlo_c128*,
             hlo_c128*, const int*, int*, size_t);

// gees's SELECT is a LOGICAL function; only null is passed (no sorting).
void sgees_(const char*, const char*, void*, const int*, float*, const int*, int*, float*, float*,
            float*, const int*, float*, const int*, int*, int*, size_t, size_t);
void dgees_(const char*, const char*, void*, const int*, double*, const int*, int*, double*,
            double*, double*, const int*, double*, const int*, int*, int*, size_t, size_t);
void cgees_(const char*, const char*, void*, const int*, hlo_c64*, const int*, int*, hlo_c64*,
            hlo_c64*, const int*, hlo_c64*, const int*, float*, int*, int*, size_t, size_t);
void zgees_(const char*, const char*, void*, const int*, hlo_c128*, const int*, int*, hlo_c128*,
            hlo_c128*, const int*, hlo_c128*, const int*, double*, int*, int*, size_t, size_t);

void sgesvd_(const char*, const char*, const int*, const int*, float*, const int*, float*, float*,
             const int*, float*, const int*, float*, const int*, int*, size_t, size_t);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
void cgesvd_(const char*, const char*, const int*, const int*, hlo_c64*, const int*, float*,
             hlo_c64*, const int*, hlo_c64*, const int*, hlo_c64*, const int*, float*, int*,
             size_t, size_t);
void zgesvd_(const char*, const char*, const int*, const int*, hlo_c128*, const int*, double*,
             hlo_c128*, const int*, hlo_c128*, const int*, hlo_c128*, const int*, double*, int*,
             size_t, size_t);

void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*,
            const int*, float*, const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*,
            double*, const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, const int*, hlo_c64*, const int*, hlo_c64*, hlo_c64*,
            const int*, hlo_c64*, const int*, hlo_c64*, const int*, float*, int*, size_t,
            size_t);
void zgeev_(const char*, const char*, const int*, hlo_c128*, const int*, hlo_c128*, hlo_c128*,
            const int*, hlo_c128*, const int*, hlo_c128*, const int*, double*, int*, size_t,
            size_t);
}

namespace hlo::cpu::lapack {

#define HLO_LAPACK_OVERLOADS(X) X(float, s) X(double, d) X(hlo_c64, c) X(hlo_c128, z)

// potrf(uplo, n, a, lda, info)
#define HLO_POTRF(T, p)                                                  \
  inline void potrf(char uplo, int n, T* a, int lda, int* info) {        \
    p##potrf_(&uplo, &n, a, &lda, info, 1);                              \
  }
HLO_LAPACK_OVERLOADS(HLO_POTRF)
#undef HLO_POTRF

// getrf(m, n, a, lda, ipiv, info)
#define HLO_GETRF(T, p)                                                  \
  inline void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) { \
    p##getrf_(&m, &n, a, &lda, ipiv, info);                              \
  }
HLO_LAPACK_OVERLOADS(HLO_GETRF)
#undef HLO_GETRF

// geqrf(m, n, a, lda, tau, work, lwork, info); lwork -1 queries the size.
#define HLO_GEQRF(T, p)                                                              \
  inline void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) { \
    p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                             \
  }
HLO_LAPACK_OVERLOADS(HLO_GEQRF)
#undef HLO_GEQRF

// geqp3(m, n, a, lda, jpvt, tau, work, lwork, [rwork,] info); the real
// forms ignore `rwork`.
#define HLO_GEQP3_REAL(T, p)                                                                \
  inline void geqp3(int m, int n, T* a, int lda, int* jpvt, T* tau, T* work, int lwork,      \
                    T* /*rwork*/, int* info) {                                               \
    p##geqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, info);                               \
  }
HLO_GEQP3_REAL(float, s)
HLO_GEQP3_REAL(double, d)
#undef HLO_GEQP3_REAL
#define HLO_GEQP3_COMPLEX(T, R, p)                                                          \
  inline void geqp3(int m, int n, T* a, int lda, int* jpvt, T* tau, T* work, int lwork,      \
                    R* rwork, int* info) {                                                   \
    p##geqp3_(&m, &n, a, &lda, jpvt, tau, work, &lwork, rwork, info);                        \
  }
HLO_GEQP3_COMPLEX(hlo_c64, float, c)
HLO_GEQP3_COMPLEX(hlo_c128, double, z)
#undef HLO_GEQP3_COMPLEX

// orgqr / ungqr(m, n, k, a, lda, tau, work, lwork, info)
#define HLO_ORGQR(T, p, name)                                                          \
  inline void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, \
                    int* info) {                                                       \
    p##name##_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                          \
  }
HLO_ORGQR(float, s, orgqr)
HLO_ORGQR(double, d, orgqr)
HLO_ORGQR(hlo_c64, c, ungqr)
HLO_ORGQR(hlo_c128, z, ungqr)
#undef HLO_ORGQR

// trsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
#define HLO_TRSM(T, p)                                                                   \
  inline void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha,   \
                   const T* a, int lda, T* b, int ldb) {                                 \
    p##trsm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1); \
  }
HLO_LAPACK_OVERLOADS(HLO_TRSM)
#undef HLO_TRSM

// syevd(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info)
#define HLO_SYEVD(T, p)                                                                    \
  inline void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, T* work, int lwork,   \
                    int* iwork, int liwork, int* info) {                                   \
    p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);     \
  }
HLO_SYEVD(float, s)
HLO_SYEVD(double, d)
#undef HLO_SYEVD

// heevd(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info)
#define HLO_HEEVD(T, R, p)                                                                 \
  inline void heevd(char jobz, char uplo, int n, T* a, int lda, R* w, T* work, int lwork,   \
                    R* rwork, int lrwork, int* iwork, int liwork, int* info) {             \
    p##heevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork,  \
              info, 1, 1);                                                                 \
  }
HLO_HEEVD(hlo_c64, float, c)
HLO_HEEVD(hlo_c128, double, z)
#undef HLO_HEEVD

// gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, [rwork,] iwork, info);
// the real forms ignore `rwork`.
#define HLO_GESDD_REAL(T, p)                                                               \
  inline void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt,     \
                    int ldvt, T* work, int lwork, T* /*rwork*/, int* iwork, int* info) {   \
    p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1); \
  }
HLO_GESDD_REAL(float, s)
HLO_GESDD_REAL(double, d)
#undef HLO_GESDD_REAL
#define HLO_GESDD_COMPLEX(T, R, p)                                                         \
  inline void gesdd(char jobz, int m, int n, T* a, int lda, R* s, T* u, int ldu, T* vt,     \
                    int ldvt, T* work, int lwork, R* rwork, int* iwork, int* info) {       \
    p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork,    \
              info, 1);                                                                    \
  }
HLO_GESDD_COMPLEX(hlo_c64, float, c)
HLO_GESDD_COMPLEX(hlo_c128, double, z)
#undef HLO_GESDD_COMPLEX

// gesvd(job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, [rwork,] info)
// with jobu = jobvt = job; the real forms ignore `rwork`.
#define HLO_GESVD_REAL(T, p)                                                               \
  inline void gesvd(char job, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt,      \
                    int ldvt, T* work, int lwork, T* /*rwork*/, int* info) {               \
    p##gesvd_(&job, &job, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, info, 1, 1); \
  }
HLO_GESVD_REAL(float, s)
HLO_GESVD_REAL(double, d)
#undef HLO_GESVD_REAL
#define HLO_GESVD_COMPLEX(T, R, p)                                                         \
  inline void gesvd(char job, int m, int n, T* a, int lda, R* s, T* u, int ldu, T* vt,      \
                    int ldvt, T* work, int lwork, R* rwork, int* info) {                   \
    p##gesvd_(&job, &job, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork,      \
              info, 1, 1);                                                                 \
  }
HLO_GESVD_COMPLEX(hlo_c64, float, c)
HLO_GESVD_COMPLEX(hlo_c128, double, z)
#undef HLO_GESVD_COMPLEX

// Real geev(jobvl, jobvr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork, info).
#define HLO_GEEV_REAL(T, p)                                                                \
  inline void geev(char jobvl, char jobvr, int n, T* a, int lda, T* wr, T* wi, T* vl,       \
                   int ldvl, T* vr, int ldvr, T* work, int lwork, int* info) {             \
    p##geev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, info, \
             1, 1);                                                                        \
  }
HLO_GEEV_REAL(float, s)
HLO_GEEV_REAL(double, d)
#undef HLO_GEEV_REAL
// Complex geev(jobvl, jobvr, n, a, lda, w, vl, ldvl, vr, ldvr, work, lwork, rwork, info).
#define HLO_GEEV_COMPLEX(T, R, p)                                                          \
  inline void geev(char jobvl, char jobvr, int n, T* a, int lda, T* w, T* vl, int ldvl,     \
                   T* vr, int ldvr, T* work, int lwork, R* rwork, int* info) {             \
    p##geev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork,     \
             info, 1, 1);                                                                  \
  }
HLO_GEEV_COMPLEX(hlo_c64, float, c)
HLO_GEEV_COMPLEX(hlo_c128, double, z)
#undef HLO_GEEV_COMPLEX

// gtsv(n, nrhs, dl, d, du, b, ldb, info)
#define HLO_GTSV(T, p)                                                                     \
  inline void gtsv(int n, int nrhs, T* dl, T* d, T* du, T* b, int ldb, int* info) {         \
    p##gtsv_(&n, &nrhs, dl, d, du, b, &ldb, info);                                          \
  }
HLO_LAPACK_OVERLOADS(HLO_GTSV)
#undef HLO_GTSV

// gehrd(n, ilo, ihi, a, lda, tau, work, lwork, info)
#define HLO_GEHRD(T, p)                                                                    \
  inline void gehrd(int n, int ilo, int ihi, T* a, int lda, T* tau, T* work, int lwork,     \
                    int* info) {                                                           \
    p##gehrd_(&n, &ilo, &ihi, a, &lda, tau, work, &lwork, info);                            \
  }
HLO_LAPACK_OVERLOADS(HLO_GEHRD)
#undef HLO_GEHRD

// sytrd / hetrd(uplo, n, a, lda, d, e, tau, work, lwork, info)
#define HLO_SYTRD(T, R, p, name)                                                           \
  inline void sytrd(char uplo, int n, T* a, int lda, R* d, R* e, T* tau, T* work,           \
                    int lwork, int* info) {                                                \
    p##name##_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, info, 1);                       \
  }
HLO_SYTRD(float, float, s, sytrd)
HLO_SYTRD(double, double, d, sytrd)
HLO_SYTRD(hlo_c64, float, c, hetrd)
HLO_SYTRD(hlo_c128, double, z, hetrd)
#undef HLO_SYTRD

// Real gees(jobvs, sort='N', n, a, lda, sdim, wr, wi, vs, ldvs, work, lwork, info).
#define HLO_GEES_REAL(T, p)                                                                \
  inline void gees(char jobvs, int n, T* a, int lda, int* sdim, T* wr, T* wi, T* vs,        \
                   int ldvs, T* work, int lwork, int* info) {                              \
    const char sort = 'N';                                                                 \
    p##gees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, wr, wi, vs, &ldvs, work, &lwork,    \
             nullptr, info, 1, 1);                                                         \
  }
HLO_GEES_REAL(float, s)
HLO_GEES_REAL(double, d)
#undef HLO_GEES_REAL
// Complex gees(jobvs, sort='N', n, a, lda, sdim, w, vs, ldvs, work, lwork, rwork, info).
#define HLO_GEES_COMPLEX(T, R, p)                                                          \
  inline void gees(char jobvs, int n, T* a, int lda, int* sdim, T* w, T* vs, int ldvs,      \
                   T* work, int lwork, R* rwork, int* info) {                              \
    const char sort = 'N';                                                                 \
    p##gees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, w, vs, &ldvs, work, &lwork, rwork,  \
             nullptr, info, 1, 1);                                                         \
  }
HLO_GEES_COMPLEX(hlo_c64, float, c)
HLO_GEES_COMPLEX(hlo_c128, double, z)
#undef HLO_GEES_COMPLEX

#undef HLO_LAPACK_OVERLOADS

}  // namespace hlo::cpu::lapack
