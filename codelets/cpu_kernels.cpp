#include "codelets/cpu_kernels.hpp"

#include <algorithm>
#include <initializer_list>

#include "codelets/stencil.hpp"

namespace ondes::cpu {

namespace {

// One x row of interior cells. The component arrays never overlap, hence ivdep; the z-plane kind
// is a template parameter so the row has no branch and vectorises.
void velocity_row(float* v, const Fields6& f, const float* mat, int64_t row, int nx, int64_t n, int64_t sy,
                  int64_t sz, float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i) add_velocity(v, n, mat, i, velocity_diffs(f, i, sy, sz), scale);
}

template <int Plane>
void stress_row(float* s, const Fields3& f, const float* mat, int64_t row, int nx, int64_t n, int64_t sy, int64_t sz,
                float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i) add_stress(s, n, mat, i, stress_diffs(f, i, sy, sz, Plane), scale, Plane);
}

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const Fields6 f = stress_fields(s, n);
  const float scale = p.dt_h;
  for (int k = 0; k < sh.nz; ++k)
    for (int j = 0; j < sh.ny; ++j) velocity_row(v, f, mat, sh.idx(0, j, k), sh.nx, n, sy, sz, scale);
  if (!pml) return;
  for (int64_t q = 0; q < count; ++q) {
    const int64_t i = pml_cell(pml, q);
    Diffs d = velocity_diffs(f, i, sy, sz);
    pml_memory(sh, pml, count, q, 0, kVelocityPlaces, d, p.inv_h);
    add_velocity(v, n, mat, i, d, p.dt);
  }
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const Fields3 f = velocity_fields(v, n);
  const float scale = p.dt_h;
  for (int k = 0; k < sh.nz; ++k) {
    const int plane = z_plane(k, p.free_surface);
    for (int j = 0; j < sh.ny; ++j) {
      const int64_t row = sh.idx(0, j, k);
      if (plane == kSurface)
        stress_row<kSurface>(s, f, mat, row, sh.nx, n, sy, sz, scale);
      else if (plane == kBelowSurface)
        stress_row<kBelowSurface>(s, f, mat, row, sh.nx, n, sy, sz, scale);
      else
        stress_row<kInterior>(s, f, mat, row, sh.nx, n, sy, sz, scale);
    }
  }
  if (pml) {
    for (int64_t q = 0; q < count; ++q) {
      const int64_t i = pml_cell(pml, q);
      int ci, cj, ck;
      unpack_index(sh, i, &ci, &cj, &ck);
      const int plane = z_plane(ck, p.free_surface);
      Diffs d = stress_diffs(f, i, sy, sz, plane);
      pml_memory(sh, pml, count, q, 9, kStressPlaces, d, p.inv_h);
      add_stress(s, n, mat, i, d, p.dt, plane);
    }
  }
  if (p.free_surface)
    for (int j = 0; j < sh.ny; ++j)
      for (int i = 0; i < sh.nx; ++i) image_free_surface_column(sh, s, i, j);
}

void save_box(const BlockShape& sh, int ncomp, const Box& b, const float* field, float* buffer) {
  const int64_t n = sh.cells();
  for (int c = 0; c < ncomp; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int jj = 0; jj < b.nj; ++jj) {
        const float* src = field + c * n + sh.idx(b.i0, b.j0 + jj, k);
        float* dst = buffer + buffer_index(b, sh.nz, c, k, jj, 0);
        for (int ii = 0; ii < b.ni; ++ii) dst[ii] = src[ii];
      }
}

void load_box(const BlockShape& sh, int ncomp, const Box& b, const float* buffer, float* field) {
  const int64_t n = sh.cells();
  for (int c = 0; c < ncomp; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int jj = 0; jj < b.nj; ++jj) {
        const float* src = buffer + buffer_index(b, sh.nz, c, k, jj, 0);
        float* dst = field + c * n + sh.idx(b.i0, b.j0 + jj, k);
        for (int ii = 0; ii < b.ni; ++ii) dst[ii] = src[ii];
      }
}

void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, double t) {
  for (int64_t q = 0, end = 0; q < count; q = end) {
    const double sum = source_run(points, q, count, cells, t, &end);
    field[source_target(points[q], cells)] += static_cast<float>(sum);
  }
}

void extract_plane(const PlaneArgs& p, const float* v, float* plane) {
  const int64_t n = plane_points(p.shape, p.axis);
  for (int64_t q = 0; q < n; ++q) extract_plane_point(p, v, q, plane);
}

void update_pgv(const BlockShape& s, const float* v, float* pgv) {
  for (int j = 0; j < s.ny; ++j)
    for (int i = 0; i < s.nx; ++i) update_pgv_point(s, v, i, j, pgv);
}

void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps,
            float* traces) {
  for (int64_t q = 0; q < count; ++q)
    for (int c = 0; c < 3; ++c) traces[(q * 3 + c) * nsteps + step] = station_velocity(st[q], c, blocks);
}

void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples) {
  for (int64_t p = 0; p < count; ++p)
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 8; ++q) sample_corner(st[p], c, q, slot, v, cells, samples + p * kSampleFloats);
}

float velocity_peak(const BlockShape& sh, const float* v) {
  const int64_t n = sh.cells();
  float peak = 0;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int j = 0; j < sh.ny; ++j) {
        const float* row = v + c * n + sh.idx(0, j, k);
        for (int i = 0; i < sh.nx; ++i) peak = std::max(peak, watchdog_magnitude(row[i]));
      }
  return peak;
}

double energy(const BlockShape& sh, const float* v, const float* s, const float* mat, int i0, int i1, int j0,
              int j1, int k0, int k1, double h) {
  const int64_t n = sh.cells();
  double e = 0;
  for (int k = k0; k < k1; ++k)
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) {
        const int64_t q = sh.idx(i, j, k);
        double kin = 0;
        for (int c = 0; c < 3; ++c) kin += double(v[c * n + q]) * v[c * n + q] / mat[c * n + q];
        // Strain energy of an isotropic solid: (1/4mu)(s:s - lam/(3lam+2mu) tr(s)^2).
        const double lam = mat[LAM * n + q], mu = mat[MU * n + q];
        const double xx = s[SXX * n + q], yy = s[SYY * n + q], zz = s[SZZ * n + q];
        const double xy = s[SXY * n + q], xz = s[SXZ * n + q], yz = s[SYZ * n + q];
        const double tr = xx + yy + zz;
        const double ss = xx * xx + yy * yy + zz * zz + 2 * (xy * xy + xz * xz + yz * yz);
        e += 0.5 * kin + (ss - lam / (3 * lam + 2 * mu) * tr * tr) / (4 * mu);
      }
  return e * h * h * h;
}

}  // namespace ondes::cpu
