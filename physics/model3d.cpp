#include "physics/model3d.hpp"

#include <algorithm>
#include <cmath>

namespace ondes {
namespace {
// Lower sample and fraction along one axis, clamped to the model.
void locate(double x, double origin, double spacing, int n, int& i0, double& f) {
  const double u = std::clamp((x - origin) / spacing, 0.0, double(n - 1));
  i0 = std::min(static_cast<int>(std::floor(u)), std::max(n - 2, 0));
  f = n > 1 ? u - i0 : 0.0;
}
}  // namespace

void set_extremes(Model3D& m) {
  m.vp_max = 0, m.vs_min = 0;
  for (size_t q = 0; q < m.vp.size(); ++q) {
    m.vp_max = std::max(m.vp_max, double(m.vp[q]));
    m.vs_min = slower_wave(m.vs_min, m.vp[q], m.vs[q]);
  }
  if (m.attenuating()) {
    m.qp_min = 1.0 / *std::max_element(m.inv_qp.begin(), m.inv_qp.end());
    m.qs_min = 1.0 / *std::max_element(m.inv_qs.begin(), m.inv_qs.end());
  }
}

Layer Model3D::at(double x, double y, double z) const {
  int i, j, k;
  double fx, fy, fz;
  locate(x, origin[0], spacing[0], nx, i, fx);
  locate(y, origin[1], spacing[1], ny, j, fy);
  locate(z, origin[2], spacing[2], nz, k, fz);
  if (nearest) {  // the nearest sample: weight 1 on it
    auto snap = [](int& i, double& f, int n) {
      if (f >= 0.5 && i + 1 < n) ++i;
      f = 0;
    };
    snap(i, fx, nx), snap(j, fy, ny), snap(k, fz, nz);
  }
  const auto sample = [&](const std::vector<float>& a) {
    double v = 0;
    for (int dk = 0; dk < 2; ++dk)
      for (int dj = 0; dj < 2; ++dj)
        for (int di = 0; di < 2; ++di) {
          const double w = (di ? fx : 1 - fx) * (dj ? fy : 1 - fy) * (dk ? fz : 1 - fz);
          if (w == 0) continue;
          v += w * a[(size_t(k + dk) * ny + (j + dj)) * nx + (i + di)];
        }
    return v;
  };
  Layer l;
  l.vp = sample(vp);
  l.vs = sample(vs);
  l.rho = sample(rho);
  if (attenuating()) {
    l.qp = 1.0 / sample(inv_qp);
    l.qs = 1.0 / sample(inv_qs);
  }
  return l;
}

}  // namespace ondes
