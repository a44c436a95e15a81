#include "io/results/physics_fingerprint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <vector>

#include "physics/model3d.hpp"

namespace ondes {

namespace {

// FNV-1a over an array's bytes, from hash.
constexpr uint64_t kFnvBasis = 1469598103934665603ull;
template <class T>
uint64_t fnv1a(const std::vector<T>& a, uint64_t hash = kFnvBasis) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(a.data());
  for (const unsigned char* e = p + a.size() * sizeof(T); p != e; ++p) hash = (hash ^ *p) * 1099511628211ull;
  return hash;
}

}  // namespace

std::string physics_fingerprint(const Case& c) {
  std::string f = fmt::format("grid {} {} {} {}; dt {}; free_surface {} pml {} {} {};", c.grid.nx, c.grid.ny,
                              c.grid.nz, c.grid.h, c.time.dt, c.boundaries.free_surface, c.boundaries.pml_width,
                              c.boundaries.pml_reflection, c.boundaries.pml_frequency);
  if (c.boundaries.surface == SurfaceScheme::Ondes3d) f += " Ondes3D's surface;";
  if (c.boundaries.pml_profile == PmlProfile::Ondes3d) f += " Ondes3D's C-PML profile;";
  for (const Layer& l : c.medium.layers) f += fmt::format(" layer {} {} {} {};", l.top, l.vp, l.vs, l.rho);
  if (c.medium.layer_sampling == LayerSampling::Ondes3d) f += " layers sampled as Ondes3D;";
  if (c.medium.attenuating()) {
    f += fmt::format(" q band {} {} reference {}{}", c.medium.q_band[0], c.medium.q_band[1], c.medium.q_reference,
                     c.medium.q_coarse_grained ? " coarse-grained" : "");
    if (const DayBradley& d = c.medium.day_bradley; d.on())
      f += fmt::format(" Day and Bradley {} {} {} at {} {} {} skew {}", d.tau_min, d.tau_max, d.w0, d.origin[0],
                       d.origin[1], d.origin[2], d.yz_skew.value_or(0));
    if (const KristekMoczo& k = c.medium.kristek_moczo; k.on())
      f += fmt::format(" Kristek and Moczo {} {} at {} {} {}", k.w_min, k.w_max, k.origin[0], k.origin[1], k.origin[2]);
    for (const Layer& l : c.medium.layers) f += fmt::format(" {}/{}", l.qp, l.qs);
    f += ";";
  }
  if (c.medium.damped()) {
    f += fmt::format(" q0 at {} Hz", c.medium.q0_frequency);
    for (const Layer& l : c.medium.layers) f += fmt::format(" {}", l.q0);
    f += ";";
  }
  if (const Model3D* m = c.medium.model.get()) {
    uint64_t hash = kFnvBasis;  // over the samples: a changed model is another case
    for (const auto* a : {&m->vp, &m->vs, &m->rho, &m->inv_qp, &m->inv_qs}) hash = fnv1a(*a, hash);  // no Q: empty
    f += fmt::format(" model {}x{}x{} [{}] [{}] {:016x};", m->nx, m->ny, m->nz, fmt::join(m->origin, " "),
                     fmt::join(m->spacing, " "), hash);
  }
  for (const Source& s : c.sources) {
    f += fmt::format(" source {} [{}] [{}] [{}] stf {} {} {} {};", s.kind == SourceKind::Force ? "force" : "moment",
                     fmt::join(s.position, " "), fmt::join(s.force, " "), fmt::join(s.moment, " "),
                     static_cast<int>(s.stf.kind), s.stf.f0, s.stf.t0, s.stf.duration);
    if (s.stf.kind == StfKind::Sampled || s.stf.kind == StfKind::Held)  // a hash: a fault may have millions of samples
      f += fmt::format(" samples {} {} {:016x};", s.stf.step, s.stf.samples.size(), fnv1a(s.stf.samples));
  }
  for (const Station& s : c.stations) f += fmt::format(" station {} [{}];", s.name, fmt::join(s.position, " "));
  return f;
}

std::string physics_hash(const Case& c) {
  const std::string f = physics_fingerprint(c);
  return fmt::format("fnv1a64:{:016x}", fnv1a(std::vector<char>(f.begin(), f.end())));
}

}  // namespace ondes
