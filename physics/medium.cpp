#include "physics/medium.hpp"

#include <algorithm>

namespace ondes {

const Layer& layer_at(const Medium& m, double z) {
  const Layer* found = &m.layers.front();
  for (const Layer& l : m.layers)
    if (l.top <= z) found = &l;  // layers are sorted by top
  return *found;
}

double vp_max(const Medium& m) {
  double v = 0;
  for (const Layer& l : m.layers) v = std::max(v, l.vp);
  return v;
}

double vs_min(const Medium& m) {
  double v = m.layers.front().vs;
  for (const Layer& l : m.layers) v = std::min(v, l.vs);
  return v;
}

}  // namespace ondes
