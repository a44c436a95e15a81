#include "physics/medium.hpp"

#include <algorithm>
#include <cmath>

#include "physics/attenuation.hpp"
#include "physics/model3d.hpp"

namespace ondes {

const Layer& layer_at(const Medium& m, double z) {
  const Layer* found = &m.layers.front();
  for (const Layer& l : m.layers)
    if (l.top <= z) found = &l;  // layers are sorted by top
  return *found;
}

Layer properties_at(const Medium& m, double x, double y, double z) {
  if (!m.model) return layer_at(m, z);
  Layer l = m.model->at(x, y, z);
  // The solver's rungs; Ondes3D's Day and Bradley takes each material's own (corner classes).
  if (m.model_q && !m.day_bradley.on()) l.qp = level_q(q_level(l.qp)), l.qs = level_q(q_level(l.qs));
  return l;
}


// The last layer whose top lies strictly above depth z (the first if none): Ondes3D's rule.
const Layer& layer_above(const Medium& m, double z) {
  const Layer* found = &m.layers.front();
  for (const Layer& l : m.layers)
    if (l.top < z) found = &l;
  return *found;
}

Layer cell_properties(const Medium& m, double z, double h) {
  if (m.layer_sampling == LayerSampling::Ondes3d) return layer_above(m, z);
  const double top = std::max(0.0, z - 0.5 * h), bottom = z + 0.5 * h;
  double rho = 0, inv_mu = 0, inv_m = 0, inv_qp = 0, inv_qs = 0;
  int parts = 0;
  const Layer* only = nullptr;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const Layer& l = m.layers[i];
    const double lo = std::max(top, l.top);
    const double hi = std::min(bottom, i + 1 < m.layers.size() ? m.layers[i + 1].top : bottom);
    if (hi <= lo) continue;
    const double w = (hi - lo) / (bottom - top);
    rho += w * l.rho;
    inv_mu += w / (l.rho * l.vs * l.vs);
    inv_m += w / (l.rho * l.vp * l.vp);
    if (l.qp > 0) inv_qp += w / l.qp;
    if (l.qs > 0) inv_qs += w / l.qs;
    ++parts;
    only = &l;
  }
  if (parts == 1) return *only;  // the cell lies in one layer: its values, exactly
  Layer out;
  out.top = top;
  out.rho = rho;
  out.vs = std::sqrt(1.0 / inv_mu / rho);
  out.vp = std::sqrt(1.0 / inv_m / rho);
  // Losses add: 1/Q averaged (an elastic layer adds none).
  out.qp = inv_qp > 0 ? 1.0 / inv_qp : 0;
  out.qs = inv_qs > 0 ? 1.0 / inv_qs : 0;
  return out;
}

QFits q_fits(const Medium& m) {
  const QScheme scheme = m.day_bradley.on()  ? QScheme::DayBradley
                         : m.q_coarse_grained ? QScheme::CoarseGrained
                                              : QScheme::EveryCell;
  return QFits(m.q_band[0], m.q_band[1], m.q_reference, scheme, m.day_bradley);
}

int memory_sets(const Medium& m) {
  if (!m.attenuating()) return 0;
  // Kristek and Moczo: its six ksil a cell (codelets/kristek_moczo.hpp), one pulsation each.
  return m.q_coarse_grained || m.day_bradley.on() || m.kristek_moczo.on() ? 1
                                                                            : mechanisms_for(m.q_band[0], m.q_band[1]);
}

double vp_max(const Medium& m) {
  QFits fits = q_fits(m);
  auto stiffest = [&](double q) {  // M_U / M_ref of the stiffest cell of quality q (coarse: of its cube)
    double u = fits.unrelaxed(q);
    if (m.q_coarse_grained && q > 0)
      for (int l = 0; l < kCubeMechanisms; ++l) u = std::max(u, fits.unrelaxed(q, l));
    return u;
  };
  // The lowest Q has the stiffest unrelaxed modulus.
  if (m.model) return m.model->vp_max * (m.model_q ? std::sqrt(stiffest(level_q(q_level(m.model->qp_min)))) : 1.0);
  double v = 0;
  for (const Layer& l : m.layers) v = std::max(v, l.vp * std::sqrt(stiffest(l.qp)));
  return v;
}

double vs_min(const Medium& m) {
  if (m.model) return m.model->vs_min;
  double v = 0;
  for (const Layer& l : m.layers) v = slower_wave(v, l.vp, l.vs);
  return v;
}

}  // namespace ondes
