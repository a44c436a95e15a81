#include "partition/block_data.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include "codelets/material.hpp"
#include "codelets/source.hpp"
#include "core/pml_layout.hpp"
#include "physics/grid_setup.hpp"
#include "physics/pml.hpp"

namespace ondes {

namespace {
// Whether every plane the stencils read repeats with period `period` along x and y, bit for bit:
// its first `period` rows repeat along x, and every other row is the one `period` before it.
bool planes_repeat(const BlockShape& s, const float* mat, int period) {
  const int64_t n = s.cells(), sy = s.sy(), sz = s.sz();
  for (int c = 0; c < kMaterialComponents; ++c)
    for (int k = 0; k <= s.nz; ++k) {
      const float* plane = mat + c * n + (k + kGhost) * sz;
      for (int64_t r = 0; r < sz / sy; ++r) {
        const bool first = r < period;
        for (int64_t x = first ? period : 0; x < sy; ++x)
          if (std::memcmp(&plane[r * sy + x], &plane[first ? r * sy + x - period : (r - period) * sy + x],
                          sizeof(float)) != 0)
            return false;
      }
    }
  return true;
}
}  // namespace

bool uniform_planes(const BlockShape& s, const float* mat) { return planes_repeat(s, mat, 1); }
bool periodic_planes(const BlockShape& s, const float* mat) { return planes_repeat(s, mat, 2); }

namespace {

// A simulated run (StarPU's SimGrid mode) executes no codelet: nothing reads or writes a block's
// arrays. They take folded memory there (every few MiB of addresses the same physical pages,
// STARPU_MALLOC_SIMULATION_FOLDED) and stay unfilled, so that a simulated 4.3 G-cell grid sets up
// in seconds on a laptop; what the tasks' arguments and models read (shapes, PML cell counts and
// boxes, source points) is computed as in a real run.
#ifdef STARPU_SIMGRID
constexpr bool kSimulated = true;
constexpr int kFolded = STARPU_MALLOC_SIMULATION_FOLDED;
#else
constexpr bool kSimulated = false;
constexpr int kFolded = 0;
#endif
void* folded(size_t bytes) {
  void* p = nullptr;
  if (starpu_malloc_flags(&p, bytes, kFolded) != 0 || !p) throw std::bad_alloc();
  return p;
}

// The point classes a block's C-PML is planned with before its material is known (a simulated run,
// block_bytes): the count the material gives is not known before it is filled.
int64_t pml_point_classes_planned(const Case& c) { return c.medium.ondes3d_nodes() ? 64 : 0; }
// The same for the node classes of Ondes3D's geological nodes (core/layout.hpp kNodeClassFloats).
int64_t node_classes_planned(const Case& c) { return c.medium.ondes3d_nodes() ? 1024 : 0; }

// A simulated run needs the PML cells' count only (its models' footprints), not their list.
void alloc_pml(const Case& c, BlockData& b) {
  const BlockShape& s = b.info.shape;
  b.pml_box = pml_box(c, b.info.x0, b.info.y0, s);
  const std::vector<int64_t> cells = kSimulated ? std::vector<int64_t>{} : pml_cells(c, b.info.x0, b.info.y0, s);
  const int64_t count =
      kSimulated ? PmlRegion::of(c).cells_in(b.info.x0, s.nx, b.info.y0, s.ny, s.nz) : int64_t(cells.size());
  if (count == 0) return;
  PmlPointClasses points;
  if (c.medium.ondes3d_nodes() && !kSimulated) points = pml_point_classes(s, cells, b.material);
  const int64_t classes = kSimulated ? pml_point_classes_planned(c) : int64_t(points.vps.size());
  const PmlLayout l = PmlLayout::of(s, count, classes);
  b.pml = static_cast<char*>(kSimulated ? folded(l.bytes) : starpu_zeroed(l.bytes));
  b.pml_bytes = l.bytes;
  b.pml_cells = count;
  if (!kSimulated) b.pml_classes = fill_pml(c, b.info.x0, b.info.y0, s, cells, points, b.pml);
}

void alloc_boundary(BlockData& b, int dir) {
  b.velocity_out[dir] = HostFloats(boundary_floats(b.info.shape, dir));
  b.stress_out[dir] = HostFloats(boundary_floats(b.info.shape, dir));
}

}  // namespace

size_t block_bytes(const Case& c, const BlockInfo& b) {
  const BlockShape& s = b.shape;
  const int64_t classes = node_classes_planned(c);
  const int64_t material = classes ? s.node_material_floats(classes) : s.material_floats();
  size_t bytes = sizeof(float) * (s.cells() * (kVelocityComponents + kStressComponents) + material);
  if (c.medium.attenuating()) {
    const AnelasticShape q = anelastic_shape(c);
    bytes += AnelasticLayout::of(s, q).bytes;
  }
  for (int d = 0; d < kDirections; ++d)
    if (b.neighbour[d] >= 0) bytes += sizeof(float) * 2 * boundary_floats(s, d);
  const int64_t pml = PmlRegion::of(c).cells_in(b.x0, s.nx, b.y0, s.ny, s.nz);
  if (pml) bytes += PmlLayout::of(s, pml, pml_point_classes_planned(c)).bytes;
  return bytes;
}

namespace {

// f(i) for i in [0, n), on up to one thread a core (one under SimGrid: StarPU's calls there must come
// from SimGrid's actors, and nothing is filled); the first exception is rethrown.
template <class F>
void parallel_for(size_t n, F&& f) {
  const size_t threads = kSimulated ? 1 : std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) try {
        f(i);
      } catch (...) {
        std::lock_guard<std::mutex> g(error_mutex);
        if (!error) error = std::current_exception();
      }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// Zero-filled floats: pinned (starpu_malloc) where a CPU worker may compute the block or StarPU may
// move it often; else plain pages, which the GPU's copies at the start and the end read slower but
// which cost nothing to set up (pinning 207 GiB for inputs/node_4g.toml: minutes).
float* zeroed_floats(int64_t n, bool pinned) {
  if (kSimulated) return static_cast<float*>(folded(n * sizeof(float)));
  if (pinned) return static_cast<float*>(starpu_zeroed(n * sizeof(float)));
  void* p = nullptr;
  if (posix_memalign(&p, 64, n * sizeof(float)) != 0 || !p) throw std::bad_alloc();
  std::memset(p, 0, n * sizeof(float));
  return static_cast<float*>(p);
}

void free_floats(float* p, int64_t n, bool pinned) {
  if (!p) return;
  if (kSimulated) starpu_free_flags(p, n * sizeof(float), kFolded);
  else if (pinned) starpu_free(p);
  else std::free(p);
}

// With Ondes3D's geological nodes, the block's material buffer grown by its node classes, computed
// from its filled nodes (codelets/material.hpp cpu::node_classes).
void add_node_classes(BlockData& b) {
  const BlockShape& s = b.info.shape;
  const cpu::NodeClassTable t = cpu::node_classes(s, b.material);
  b.node_classes = int64_t(t.values.size()) / kNodeClassFloats;
  float* m = zeroed_floats(material_floats(b), b.pinned);
  std::memcpy(m, b.material, sizeof(float) * s.material_floats());
  std::memcpy(m + s.node_class_offset(), t.index.data(), sizeof(uint32_t) * t.index.size());
  std::memcpy(m + s.node_plane_offset(), t.planes.data(), sizeof(int32_t) * t.planes.size());
  std::memcpy(m + s.node_table_offset(), t.values.data(), sizeof(float) * t.values.size());
  free_floats(b.material, s.material_floats(), b.pinned);
  b.material = m;
}

// The rest of a local block once its material planes are filled (a simulated run's stay unfilled:
// its source points come from zeros, their count is what matters there).
void finish_local(const Case& c, BlockData& b) {
  const BlockShape& s = b.info.shape;
  if (!kSimulated) {
    fill_material_partners(c, s, b.material);
    // Ondes3D's nodes average across planes otherwise than a plane's factors do: never by plane.
    b.uniform_planes = !c.medium.ondes3d_nodes() && uniform_planes(s, b.material);
    b.parity_planes = !b.uniform_planes && !c.medium.ondes3d_nodes() && periodic_planes(s, b.material);
    if (b.uniform_planes) cpu::fill_plane_factors(s, b.material);
    if (b.parity_planes) cpu::fill_parity_factors(s, b.material);
    if (c.medium.ondes3d_nodes()) add_node_classes(b);
  }
  if (c.medium.attenuating()) {
    b.anelastic_shape = anelastic_shape(c);
    b.anelastic_shape.parity = (b.info.x0 & 1) | (b.info.y0 & 1) << 1;
    b.anelastic_shape.origin[0] += b.info.x0, b.anelastic_shape.origin[1] += b.info.y0;
    b.anelastic_shape.x0 = b.info.x0;
    b.anelastic_shape.block_seed = block_seed(b.info.x0, b.info.y0);
    b.anelastic_bytes = AnelasticLayout::of(s, b.anelastic_shape).bytes;
    b.anelastic = static_cast<char*>(kSimulated ? folded(b.anelastic_bytes) : starpu_zeroed(b.anelastic_bytes));
    if (!kSimulated) fill_anelastic(c, b.info.x0, b.info.y0, s, b.anelastic);
  }
  alloc_pml(c, b);
  b.sources = source_points(c, b.info.x0, b.info.y0, s, b.material);
  // The runs' still sums by the kernels' library, whose arithmetic is the update's (no contraction).
  for (SourceSet* set : {&b.sources.force, &b.sources.moment})
    set->runs = cpu::source_runs(set->points.data(), int64_t(set->points.size()), set->emitters.data(),
                                 int64_t(set->emitters.size()), set->samples.data());
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.info.neighbour[dir] >= 0) alloc_boundary(b, dir);
}

// The local blocks' arrays, set up on every core: allocated, their material filled by slabs of
// planes, then the rest block by block (the case is read only). Why: a thread a block left most
// cores idle on a large grid (docs/performance.md, Decisions: set-up on every core).
void build_local(const Case& c, const std::vector<BlockData*>& todo) {
  parallel_for(todo.size(), [&](size_t i) {
    BlockData& b = *todo[i];
    const BlockShape& s = b.info.shape;
    b.velocity = zeroed_floats(kVelocityComponents * s.cells(), b.pinned);
    b.stress = zeroed_floats(kStressComponents * s.cells(), b.pinned);
    if (kSimulated) b.node_classes = node_classes_planned(c);  // a real run's once its nodes are filled
    b.material = zeroed_floats(material_floats(b), b.pinned);
  });
  constexpr int kSlab = 8;  // planes
  std::vector<std::pair<BlockData*, int>> slabs;
  for (BlockData* b : todo)
    for (int k = -kGhost; k < b->info.shape.nz + kGhost; k += kSlab) slabs.emplace_back(b, k);
  if (kSimulated) slabs.clear();
  parallel_for(slabs.size(), [&](size_t i) {
    BlockData& b = *slabs[i].first;
    const int k = slabs[i].second;
    fill_material_planes(c, b.info.x0, b.info.y0, b.info.shape, b.material, k,
                         std::min(k + kSlab, b.info.shape.nz + kGhost));
  });
  parallel_for(todo.size(), [&](size_t i) { finish_local(c, *todo[i]); });
}

}  // namespace

std::vector<BlockData> build_blocks(const Case& c, const Decomposition& d, const RankMap& map, int rank,
                                    const std::vector<bool>& pinned) {
  std::vector<BlockData> blocks(d.blocks.size());
  std::vector<BlockData*> local;
  for (size_t i = 0; i < blocks.size(); ++i) {
    BlockData& b = blocks[i];
    b.info = d.blocks[i];
    b.name = "x" + std::to_string(b.info.bx) + "y" + std::to_string(b.info.by);
    b.local = map.owner(b.info.id) == rank;
    b.pinned = pinned.empty() || pinned[i];
    if (b.local) {
      local.push_back(&b);
      continue;
    }
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (nb >= 0 && map.owner(nb) == rank) alloc_boundary(b, dir);
    }
  }
  build_local(c, local);
  return blocks;
}

namespace {
// The handles of a block's sources of one field kind, if it has any.
void register_sources(SourceHandles& h, SourceSet& set) {
  if (set.points.empty()) return;
  register_vector(&h.points, set.points.data(), set.points.size());
  register_vector(&h.emitters, set.emitters.data(), set.emitters.size());
  register_vector(&h.samples, set.samples.data(), set.samples.size());
  register_vector(&h.runs, set.runs.data(), set.runs.size());
  starpu_vector_data_register(&h.values, -1, 0, static_cast<uint32_t>(set.emitters.size()), sizeof(double));
}
}  // namespace

void register_handles(std::vector<BlockData>& blocks) {
  for (BlockData& b : blocks) {
    const int64_t n = b.info.shape.cells();
    if (b.velocity) register_vector(&b.h_velocity, b.velocity, kVelocityComponents * n);
    if (b.stress) register_vector(&b.h_stress, b.stress, kStressComponents * n);
    if (b.material) register_vector(&b.h_material, b.material, material_floats(b));
    if (b.pml) register_bytes(&b.h_pml, b.pml, b.pml_bytes);
    if (b.anelastic) register_bytes(&b.h_anelastic, b.anelastic, b.anelastic_bytes);
    if (b.local) register_vector(&b.h_peak, &b.peak, 1);
    register_sources(b.h_force, b.sources.force);
    register_sources(b.h_moment, b.sources.moment);
    for (int dir = 0; dir < kDirections; ++dir)
      if (!b.velocity_out[dir].empty()) {
        register_vector(&b.h_velocity_out[dir], b.velocity_out[dir]);
        register_vector(&b.h_stress_out[dir], b.stress_out[dir]);
      }
  }
}

std::vector<int64_t> global_pml_cells(const BlockInfo& b, const char* pml, int64_t count, const Grid& g) {
  const BlockShape& s = b.shape;
  const int64_t* local = reinterpret_cast<const int64_t*>(pml);
  std::vector<int64_t> out(count);
  for (int64_t p = 0; p < count; ++p) {
    const int64_t q = local[p];
    const int i = static_cast<int>(q % s.sy()) - kGhost;
    const int j = static_cast<int>((q / s.sy()) % (s.ny + 2 * kGhost)) - kGhost;
    const int k = static_cast<int>(q / s.sz()) - kGhost;
    out[p] = (static_cast<int64_t>(k) * g.ny + (b.y0 + j)) * g.nx + (b.x0 + i);
  }
  return out;
}

void release_blocks(std::vector<BlockData>& blocks) {
  for (BlockData& b : blocks) {
    for (starpu_data_handle_t* h : {&b.h_velocity, &b.h_stress, &b.h_material, &b.h_pml, &b.h_anelastic,
                                    &b.h_force.points, &b.h_force.emitters, &b.h_force.samples, &b.h_force.values,
                                    &b.h_moment.points, &b.h_moment.emitters, &b.h_moment.samples,
                                    &b.h_moment.values, &b.h_force.runs, &b.h_moment.runs, &b.h_peak})
      unregister(*h);
    for (int dir = 0; dir < kDirections; ++dir) {
      for (starpu_data_handle_t* h : {&b.h_velocity_out[dir], &b.h_stress_out[dir], &b.routes.h_velocity_token[dir],
                                      &b.routes.h_stress_token[dir]})
        unregister(*h);
    }
    // Each array as it was allocated: folded (simulated), pinned (starpu_malloc) or plain pages.
    struct Array {
      void* p;
      size_t bytes;
      bool pinned;
    };
    const int64_t n = b.info.shape.cells();
    const Array arrays[] = {{b.velocity, sizeof(float) * kVelocityComponents * n, b.pinned},
                            {b.stress, sizeof(float) * kStressComponents * n, b.pinned},
                            {b.material, sizeof(float) * material_floats(b), b.pinned},
                            {b.pml, b.pml_bytes, true},
                            {b.anelastic, b.anelastic_bytes, true}};
    for (const Array& a : arrays) {
      if (!a.p) continue;
      if (kSimulated) starpu_free_flags(a.p, a.bytes, kFolded);
      else if (a.pinned) starpu_free(a.p);
      else std::free(a.p);
    }
    b.velocity = b.stress = b.material = nullptr;
    b.anelastic = nullptr;
    b.pml = nullptr;
    b.velocity_out = {};
    b.stress_out = {};
  }
}

}  // namespace ondes
