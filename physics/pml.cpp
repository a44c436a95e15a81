#include "physics/pml.hpp"

#include "core/block_bounds.hpp"

#include <algorithm>
#include <cmath>

#include "physics/medium.hpp"
#include "physics/source.hpp"

namespace ondes {

PmlRegion PmlRegion::of(const Case& c) {
  return PmlRegion{{c.grid.nx, c.grid.ny, c.grid.nz}, c.boundaries.pml_width, c.boundaries.free_surface};
}

bool PmlRegion::reaches(const std::array<double, 3>& p, double h) const {
  for (int a = 0; a < 3; ++a)
    if (p[a] < lo(a) * h || p[a] > (hi(a) - 1) * h) return true;
  return false;
}

int64_t PmlRegion::cells_in(int x0, int nx, int y0, int ny, int nz) const {
  // Cells of [start, start + count) inside [lo, hi) of an axis.
  auto inside = [&](int axis, int start, int count) {
    return int64_t(std::max(0, std::min(start + count, hi(axis)) - std::max(start, lo(axis))));
  };
  return int64_t(nx) * ny * nz - inside(0, x0, nx) * inside(1, y0, ny) * inside(2, 0, nz);
}

std::vector<double> PmlRegion::slice_costs(int axis) const {
  // A slice holds `cells` cells; along each other axis b, the cells of its PML indices are damped
  // along b (cells / n[b] per index), and along `axis` all of them or none.
  auto pml_indices = [&](int a) { return double(lo(a) + n[a] - hi(a)); };
  const double cells = double(n[0]) * n[1] * n[2] / n[axis];
  double others = 0;
  for (int b = 0; b < 3; ++b)
    if (b != axis) others += cells / n[b] * pml_indices(b);
  std::vector<double> w(n[axis]);
  for (int i = 0; i < n[axis]; ++i)
    w[i] = cells + kDampedAxisCost * (others + (i < lo(axis) || i >= hi(axis) ? cells : 0.0));
  return w;
}

std::vector<int> block_cuts(const Case& c, int axis) {
  const int n = axis == 0 ? c.grid.nx : c.grid.ny, parts = axis == 0 ? c.run.nbx : c.run.nby;
  return block_bounds(n, parts, c.run.edge_strip,
                      c.run.balance == Balance::Pml ? PmlRegion::of(c).slice_costs(axis) : std::vector<double>{});
}

std::array<PmlAxis, 3> pml_axes(const Case& c) {
  double f = c.boundaries.pml_frequency;
  if (f <= 0)
    for (const Source& s : c.sources) f = std::max(f, stf_dominant_frequency(s.stf));
  const PmlRegion region = PmlRegion::of(c);
  std::array<PmlAxis, 3> axes;
  for (int a = 0; a < 3; ++a) {
    PmlAxis& p = axes[a];
    p.n = region.n[a];
    p.width = region.width;
    p.low = region.low_absorbing(a);
    p.high = true;
    p.h = c.grid.h;
    p.dt = c.time.dt;
    p.vp = vp_max(c.medium);
    p.reflection = c.boundaries.pml_reflection;
    p.frequency = f;
  }
  if (c.boundaries.pml_profile == PmlProfile::Ondes3d) {  // core/case.hpp's PmlProfile
    axes[0].low_inset = 1.0, axes[0].high_inset = 0.5;
    axes[1].low_inset = 0.5;
    axes[2].high_inset = 0.5;
    for (PmlAxis& p : axes) p.cut_below_one = true;
  }
  return axes;
}

double PmlAxis::depth(double x) const {
  double d = 0;
  if (low) d = std::max(d, width - low_inset - x);
  if (high) d = std::max(d, x - (n - width - 0.5 + high_inset));
  return std::min(d, static_cast<double>(width));
}

void PmlAxis::coefficients(double x, float* a, float* b) const {
  const double L = width * h;
  const double r = depth(x) / width;  // 0 at the inner edge, 1 at the outer wall
  const double d0 = -3.0 * vp * std::log(reflection) / (2.0 * L);
  const double d = d0 * r * r;
  const double alpha = M_PI * frequency * (1.0 - r);
  const double bb = std::exp(-(d + alpha) * dt);
  *b = static_cast<float>(bb);
  *a = (d + alpha) > 0 && !(cut_below_one && d < 1.0) ? static_cast<float>(d / (d + alpha) * (bb - 1.0)) : 0.0f;
}

}  // namespace ondes
