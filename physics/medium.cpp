#include "physics/medium.hpp"

#include <algorithm>

#include "physics/model3d.hpp"

namespace ondes {

const Layer& layer_at(const Medium& m, double z) {
  const Layer* found = &m.layers.front();
  for (const Layer& l : m.layers)
    if (l.top <= z) found = &l;  // layers are sorted by top
  return *found;
}

Layer properties_at(const Medium& m, double x, double y, double z) {
  return m.model ? m.model->at(x, y, z) : layer_at(m, z);
}

double vp_max(const Medium& m) {
  if (m.model) return m.model->vp_max;
  double v = 0;
  for (const Layer& l : m.layers) v = std::max(v, l.vp);
  return v;
}

double vs_min(const Medium& m) {
  if (m.model) return m.model->vs_min;
  double v = m.layers.front().vs;
  for (const Layer& l : m.layers) v = std::min(v, l.vs);
  return v;
}

}  // namespace ondes
