// The physical checks of a parsed case (declared in io/case/case_reader.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "core/pml_layout.hpp"
#include "io/case/case_reader.hpp"
#include "physics/grid_setup.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/pml.hpp"
#include "physics/source.hpp"
#include "physics/stability.hpp"

namespace ondes {

namespace {

void check_position(const Case& c, const std::array<double, 3>& p, const std::string& key) {
  static const char* axis[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    if (p[a] < 0 || p[a] > c.grid.extent(a))
      throw CaseError(fmt::format("{}: {}: {} = {} m is outside the grid [0, {}] m", c.path, key, axis[a],
                                  p[a], c.grid.extent(a)));
}

}  // namespace

// The model must cover every point it is sampled at (no silent extrapolation): the grid's, or
// Ondes3D's nodes, half a cell below them in y (Medium::ondes3d_nodes).
void check_model_covers(const Case& c) {
  const Model3D* m = c.medium.model.get();
  if (!m) return;
  const double tol = 1e-6 * c.grid.h;
  for (int a = 0; a < 3; ++a) {
    const double lo = a == 1 && c.medium.ondes3d_nodes() ? -0.5 * c.grid.h : 0.0, hi = lo + c.grid.extent(a);
    if (m->origin[a] > lo + tol || m->last(a) < hi - tol)
      throw CaseError(fmt::format("{}: medium.model {} covers {} in [{}, {}] m ({} samples every {} m) but the grid "
                                  "samples it in [{}, {}] m; extend the model or shrink the grid",
                                  c.path, m->path, "xyz"[a], m->origin[a], m->last(a), m->size(a), m->spacing[a], lo,
                                  hi));
  }
}

// A source or station in vacuum (air above a topography: vp = 0) records or radiates nothing.
void check_not_in_vacuum(const Case& c, const std::array<double, 3>& x, const std::string& key) {
  const Layer l = properties_at(c.medium, x[0], x[1], x[2]);
  if (l.vp == 0)
    throw CaseError(fmt::format("{}: {} at ({}, {}, {}) m lies in vacuum (vp = vs = 0: the air above the ground); "
                                "place it in the ground or the water",
                                c.path, key, x[0], x[1], x[2]));
}

namespace {

// The PML leaves room for an interior; sources and stations lie in the grid, not in vacuum; those
// in the PML are warnings.
void check_points(const Case& c, std::vector<std::string>& warnings) {
  const int w = c.boundaries.pml_width;
  const PmlRegion pml = PmlRegion::of(c);
  if (pml.hi(0) - pml.lo(0) < 4 || pml.hi(1) - pml.lo(1) < 4 || pml.hi(2) - pml.lo(2) < 4)
    throw CaseError(fmt::format("{}: boundaries.pml_width = {} leaves fewer than 4 interior cells in a "
                                "{} x {} x {} grid", c.path, w, c.grid.nx, c.grid.ny, c.grid.nz));
  std::vector<std::string> in_pml;  // the PML damps what they radiate or record: a warning, as docs/user-guide.md says
  auto warn_in_pml = [&](const char* what, const char* effect) {
    if (!in_pml.empty())
      warnings.push_back(fmt::format("{} {} lie inside the {}-cell PML, which {} (at least {} m from the absorbing "
                                     "faces to avoid it): {}{}",
                                     in_pml.size(), what, w, effect, w * c.grid.h, in_pml.front(),
                                     in_pml.size() > 1 ? fmt::format(" and {} more", in_pml.size() - 1) : ""));
    in_pml.clear();
  };
  for (size_t i = 0; i < c.sources.size(); ++i) {
    const std::string& label = c.sources[i].label;
    const std::string key = label.empty() ? fmt::format("sources[{}].position", i) : label + ": point source";
    check_position(c, c.sources[i].position, key);
    check_not_in_vacuum(c, c.sources[i].position, key);
    if (pml.reaches(c.sources[i].position, c.grid.h)) in_pml.push_back(key);
  }
  warn_in_pml("source point(s)", "absorbs part of what they radiate");
  for (size_t i = 0; i < c.stations.size(); ++i) {
    const std::string key = fmt::format("stations[{}].position ({})", i, c.stations[i].name);
    check_position(c, c.stations[i].position, key);
    check_not_in_vacuum(c, c.stations[i].position, key);
    if (pml.reaches(c.stations[i].position, c.grid.h)) in_pml.push_back(key);
  }
  warn_in_pml("station(s)", "damps what they record");
}

// The cuts some of Ondes3D's methods allow: xs, ys the blocks' cuts along x and y.
void check_cut_rules(const Case& c, const std::vector<int>& xs, const std::vector<int>& ys) {
  // codelets/surface.hpp: Ondes3D's surface reads the diagonal neighbour's column at a block's
  // corner, which no halo carries.
  if (c.boundaries.surface == SurfaceScheme::Ondes3d && xs.size() > 2 && ys.size() > 2)
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}]: with Ondes3D's free surface (boundaries.surface = "
                                "\"ondes3d\", every layered .prm) the blocks are cut along one axis only: "
                                "[1, N] or [N, 1]",
                                c.path, c.run.nbx, c.run.nby));
  // codelets/day_bradley.hpp: the cell Ondes3D's misplaced yz drive reaches is its driving column's
  // x neighbour, whose velocities above the surface a block computes for its own columns only.
  if (c.medium.day_bradley.yz_skew && !c.medium.day_bradley.yz_levels && xs.size() > 2)
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}]: with Ondes3D's Day and Bradley (medium.q_yz_skew, every "
                                "layered .prm with <taum>) the blocks are cut along y only: [1, N]",
                                c.path, c.run.nbx, c.run.nby));
  // codelets/kristek_moczo.hpp: a stress point takes its neighbours' memory, which no halo carries.
  if (c.medium.kristek_moczo.on() && (xs.size() > 2 || ys.size() > 2))
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}]: Ondes3D's Kristek and Moczo (every .prm with <wmin> "
                                "<wmax>) runs as one block, [1, 1], on one process: its memory is not exchanged "
                                "between blocks",
                                c.path, c.run.nbx, c.run.nby));
}

}  // namespace

// The blocks (edge strips and balanced cuts included) keep at least 4 cells in x and y, and a
// block's largest array fits StarPU's 32-bit element count.
void validate_blocks(const Case& c) {
  // Blocks keep 2-cell ghosts; a block narrower than 4 cells would be mostly ghost.
  constexpr int kMinBlock = 4;
  if (c.run.nbx < 1 || c.run.nby < 1 || c.grid.nx / c.run.nbx < kMinBlock || c.grid.ny / c.run.nby < kMinBlock)
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}] does not divide the {} x {} grid sensibly: each "
                                "block needs at least {} cells in x and y (at most [{}, {}])",
                                c.path, c.run.nbx, c.run.nby, c.grid.nx, c.grid.ny, kMinBlock,
                                c.grid.nx / kMinBlock, c.grid.ny / kMinBlock));
  // The cuts as the decomposition places them (partition/decomposition.hpp). Edge strips are blocks
  // too, and balanced cuts make the blocks at the faces narrower: every block and strip must keep
  // kMinBlock cells.
  const std::vector<int> xs = block_cuts(c, 0), ys = block_cuts(c, 1);
  check_cut_rules(c, xs, ys);
  auto widths = [](const std::vector<int>& b) {
    int least = b.back(), most = 0;
    for (size_t i = 1; i < b.size(); ++i) least = std::min(least, b[i] - b[i - 1]), most = std::max(most, b[i] - b[i - 1]);
    return std::pair{least, most};
  };
  const auto [least_x, most_x] = widths(xs);
  const auto [least_y, most_y] = widths(ys);
  if (const int least = std::min(least_x, least_y); least < kMinBlock) {
    if (const int w = c.run.edge_strip; w > 0)
      throw CaseError(fmt::format("{}: run.edge_strip = {} with run.blocks = [{}, {}] on the {} x {} grid leaves a block "
                                  "{} cells wide; every block and every strip needs at least {} cells: use a strip "
                                  "of {} cells or more, narrow enough to leave {} in each block, or fewer blocks",
                                  c.path, w, c.run.nbx, c.run.nby, c.grid.nx, c.grid.ny, std::max(least, 0),
                                  kMinBlock, kMinBlock, kMinBlock));
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}] with run.balance = \"{}\" on the {} x {} grid leaves a block "
                                "{} cells wide (blocks thick with PML are narrower); every block needs at least {} "
                                "cells: use fewer blocks or run.balance = \"even\"",
                                c.path, c.run.nbx, c.run.nby, name_of(c.run.balance), c.grid.nx, c.grid.ny, least, kMinBlock));
  }
  // StarPU counts a handle's elements in 32 bits: a block's largest array (the stress, or the
  // anelastic memory of an attenuating medium, in 4-byte words) must stay below 2^32 of them.
  {
    const int64_t bx = most_x, by = most_y;
    const int64_t cells = (bx + 2 * kGhost) * (by + 2 * kGhost) * (int64_t(c.grid.nz) + 2 * kGhost);
    const int64_t words = int64_t(kStressComponents) * std::max(1, anelastic_shape(c).mechanisms) * cells;
    if (words > int64_t(UINT32_MAX))
      throw CaseError(fmt::format("{}: run.blocks = [{}, {}]: a block's largest array would hold {} values, more than "
                                  "StarPU's 2^32 per handle; use at least {} times as many blocks",
                                  c.path, c.run.nbx, c.run.nby, words,
                                  static_cast<int64_t>(std::ceil(double(words) / double(UINT32_MAX)))));
  }
}

namespace {

// Ondes3D's C-PML on layers keeps the x and y profiles of each layer's vp (core/layout.hpp
// PmlLayout::kVpClasses of them).
void check_pml_classes(const Case& c) {
  if (c.boundaries.pml_profile != PmlProfile::Ondes3d || c.medium.model) return;
  std::vector<double> vps;
  for (const Layer& l : c.medium.layers)
    if (std::find(vps.begin(), vps.end(), l.vp) == vps.end()) vps.push_back(l.vp);
  if (vps.size() > size_t(PmlLayout::kVpClasses))
    throw CaseError(fmt::format("{}: boundaries.pml_profile = \"ondes3d\" takes each layer's vp, at most {} distinct "
                                "ones; the medium has {}: use pml_profile = \"standard\" (the largest vp throughout)",
                                c.path, PmlLayout::kVpClasses, vps.size()));
}

}  // namespace

std::vector<std::string> validate_case(const Case& c) {
  std::vector<std::string> warnings;
  check_model_covers(c);
  const double limit = cfl_limit(c.grid.h, vp_max(c.medium));
  const std::string beyond = fmt::format("time.dt = {} s exceeds the CFL limit {:.6g} s (h = {} m, vp_max = {} m/s)",
                                         c.time.dt, limit, c.grid.h, vp_max(c.medium));
  if (c.time.dt > limit && !c.time.beyond_cfl) throw CaseError(fmt::format("{}: {}", c.path, beyond));
  if (c.time.dt > limit)  // time.beyond_cfl: Ondes3D's files
    warnings.push_back(beyond + ", as Ondes3D allows (time.beyond_cfl): the fastest cells may grow; the watchdog "
                                "(run.watchdog_every) stops a run that blows up");
  // codelets/kristek_moczo.hpp: its memory's decay (2 - wl dt) / (2 + wl dt) turns negative at wl dt = 2.
  if (const KristekMoczo& k = c.medium.kristek_moczo; k.on() && k.w_max * c.time.dt >= 2)
    throw CaseError(fmt::format("{}: Kristek and Moczo's wmax {} rad/s times time.dt {} s is {:.3g}: it needs "
                                "wmax dt < 2", c.path, k.w_max, c.time.dt, k.w_max * c.time.dt));
  check_points(c, warnings);
  if (!c.run.choose_blocks) validate_blocks(c);  // else the plan's choice (plan/run_plan.cpp)
  check_pml_classes(c);
  const double ppw = points_per_wavelength(c);
  if (ppw < 5)
    warnings.push_back(fmt::format("only {:.2f} points per shortest S wavelength (vs_min / f_max / h); "
                                   "at least 5 are needed for accurate waveforms", ppw));
  return warnings;
}

}  // namespace ondes
