#include "engine/snapshots.hpp"

#include <algorithm>

#include "io/ondes3d/ondes3d_surface_files.hpp"
#include "partition/halo.hpp"
#include "partition/handles.hpp"
#include "tasks/gather.hpp"

namespace ondes {

namespace {
struct Delivery {
  SnapshotRecorder* recorder;
  size_t part;
  int iteration;
};

// A block's PGV ([2][ny][nx] of the block) against the grid's map ([2][ny][nx] of the grid), row
// by row: f(offset in the map, offset in the block, row length).
template <class F>
void for_each_pgv_row(const Grid& g, const BlockInfo& b, F&& f) {
  const size_t area = size_t(g.nx) * g.ny;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < b.shape.ny; ++j)
      f(k * area + size_t(b.y0 + j) * g.nx + b.x0, (size_t(k) * b.shape.ny + j) * b.shape.nx, b.shape.nx);
}
}  // namespace

SnapshotRecorder::SnapshotRecorder(const Case& c, std::vector<BlockData>& blocks, const RankMap& map, int rank,
                                   const std::string& path)
    : case_(c), blocks_(blocks), rank_(rank), pgv_(blocks.size()), h_pgv_(blocks.size(), nullptr) {
  if (rank == 0) writer_ = std::make_unique<SnapshotWriter>(path, c);
  int64_t index = 0;  // of every part of every block, the same on every rank
  for (BlockData& b : blocks) {
    const BlockShape& s = b.info.shape;
    const int owner = map.owner(b.info.id);
    for (size_t p = 0; p < c.snapshots.planes.size(); ++p) {
      const PlaneSpec& spec = c.snapshots.planes[p];
      const int origin = spec.axis == 0 ? b.info.x0 : spec.axis == 1 ? b.info.y0 : 0;
      const int n = spec.axis == 0 ? s.nx : spec.axis == 1 ? s.ny : s.nz;
      if (spec.index < origin - (spec.axis == 2) || spec.index >= origin + n) continue;  // z = -1: above the surface
      const int64_t tag = kSnapshotTagBase + index++;
      all_.push_back({p, owner, b.info.x0, b.info.y0, s, nullptr});
      if (rank != 0 && owner != rank) continue;
      buffers_.emplace_back(3 * plane_points(s, spec.axis));
      PlanePart part;
      part.args = PlaneArgs{s, spec.axis, spec.index - origin, spec.displacement ? float(c.time.dt) : 0.0f};
      part.owner = owner;
      part.tag = tag;
      part.velocity = b.local ? b.h_velocity : nullptr;
      part.workers = b.local ? &b.place.workers : nullptr;
      register_vector(&part.buffer, buffers_.back());
      if (owner == rank) all_.back().buffer = part.buffer;
      planes_.push_back(part);
      places_.push_back({p, b.info.x0, b.info.y0});
    }
    if (c.snapshots.pgv && b.local) {
      pgv_[b.info.id] = HostFloats(2 * size_t(s.nx) * s.ny);
      register_vector(&h_pgv_[b.info.id], pgv_[b.info.id]);
    }
    owner_.push_back(owner);
  }
}

SnapshotRecorder::~SnapshotRecorder() {
  starpu_task_wait_for_all();
  for (PlanePart& p : planes_) unregister(p.buffer);
  for (auto& h : h_pgv_) unregister(h);
}

void SnapshotRecorder::deliver(int it) {
  if (rank_ != 0) return;
  {
    std::lock_guard<std::mutex> g(mutex_);
    Frame& f = frames_[it];
    for (const PlaneSpec& p : case_.snapshots.planes) {
      const PlaneExtent e = plane_extent(case_.grid, p);
      f.planes.emplace_back(3 * size_t(e.n1) * e.n2, 0.0f);
    }
    f.pending = static_cast<int>(planes_.size());
  }
  for (size_t q = 0; q < planes_.size(); ++q)
    starpu_data_acquire_cb(planes_[q].buffer, STARPU_R, &SnapshotRecorder::on_part, new Delivery{this, q, it});
}

// On a StarPU thread, once the block's plane is in main memory: into the frame's global plane.
namespace {
// Row b of component c of a part (shape s, at x0, y0) in its global plane: f(offset in the plane,
// offset in the part, row length).
template <class F>
void for_each_part_row(const Grid& g, const PlaneSpec& spec, const BlockShape& s, int x0, int y0, F&& f) {
  const PlaneExtent e = plane_extent(g, spec);
  const int n1 = plane_n1(s, spec.axis), n2 = plane_n2(s, spec.axis);
  const int off1 = spec.axis == 0 ? y0 : x0, off2 = spec.axis == 2 ? y0 : 0;
  const size_t local = size_t(n1) * n2, global = size_t(e.n1) * e.n2;
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < n2; ++b) f(c * global + size_t(off2 + b) * e.n1 + off1, c * local + size_t(b) * n1, n1);
}
}  // namespace

std::map<size_t, std::vector<float>> SnapshotRecorder::displacement_planes() {
  starpu_task_wait_for_all();
  std::map<size_t, std::vector<float>> out;
  std::vector<GatherItem> items;
  std::vector<size_t> parts;
  for (size_t q = 0; q < all_.size(); ++q) {
    const AnyPart& a = all_[q];
    const PlaneSpec& spec = case_.snapshots.planes[a.plane];
    if (!spec.displacement) continue;
    if (rank_ == 0 && !out.count(a.plane)) {
      const PlaneExtent e = plane_extent(case_.grid, spec);
      out[a.plane].assign(3 * size_t(e.n1) * e.n2, 0.0f);
    }
    items.push_back({a.owner, a.buffer, 3 * size_t(plane_points(a.shape, spec.axis)), kSnapshotGatherTagBase + int64_t(q)});
    parts.push_back(q);
  }
  gather_to_root(rank_, items, [&](size_t i, const float* src) {
    const AnyPart& a = all_[parts[i]];
    for_each_part_row(case_.grid, case_.snapshots.planes[a.plane], a.shape, a.x0, a.y0,
                      [&](size_t in_plane, size_t in_part, int n) { std::copy_n(src + in_part, n, out[a.plane].begin() + in_plane); });
  });
  return out;
}

void SnapshotRecorder::restore_displacement(const std::map<size_t, std::vector<float>>& planes) {
  for (const AnyPart& a : all_) {
    if (!a.buffer || !case_.snapshots.planes[a.plane].displacement) continue;
    const std::vector<float>& plane = planes.at(a.plane);
    Acquired acquired(a.buffer, STARPU_W);
    float* dst = static_cast<float*>(starpu_data_get_local_ptr(a.buffer));
    for_each_part_row(case_.grid, case_.snapshots.planes[a.plane], a.shape, a.x0, a.y0,
                      [&](size_t in_plane, size_t in_part, int n) { std::copy_n(plane.begin() + in_plane, n, dst + in_part); });
  }
}

void SnapshotRecorder::on_part(void* arg) {
  std::unique_ptr<Delivery> d(static_cast<Delivery*>(arg));
  SnapshotRecorder& r = *d->recorder;
  const PlanePart& part = r.planes_[d->part];
  const Place& at = r.places_[d->part];
  const float* buffer = r.buffers_[d->part].data();
  std::lock_guard<std::mutex> g(r.mutex_);
  Frame& f = r.frames_.at(d->iteration);
  std::vector<float>& out = f.planes[at.plane];
  for_each_part_row(r.case_.grid, r.case_.snapshots.planes[at.plane], part.args.shape, at.x0, at.y0,
                    [&](size_t in_plane, size_t in_part, int n) { std::copy_n(buffer + in_part, n, out.begin() + in_plane); });
  starpu_data_release(part.buffer);
  --f.pending;
  r.delivered_.notify_all();
}

void SnapshotRecorder::flush() {
  if (!writer_) return;
  for (;;) {
    std::map<int, Frame>::node_type done;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (frames_.empty() || frames_.begin()->second.pending > 0) return;
      done = frames_.extract(frames_.begin());
    }
    for (size_t p = 0; p < done.mapped().planes.size(); ++p) writer_->write_frame(p, done.key(), done.mapped().planes[p]);
    write_ondes3d_surfaces(case_, done.key(), done.mapped().planes);
  }
}

std::vector<float> SnapshotRecorder::gather_pgv() {
  const Grid& g = case_.grid;
  const size_t area = size_t(g.nx) * g.ny;
  std::vector<float> map(rank_ == 0 ? 2 * area : 0, 0.0f);
  std::vector<GatherItem> items;
  for (const BlockData& b : blocks_)
    items.push_back({owner_[b.info.id], h_pgv_[b.info.id], 2 * size_t(b.info.shape.nx) * b.info.shape.ny,
                     kPgvTagBase + b.info.id});
  gather_to_root(rank_, items, [&](size_t i, const float* src) {
    for_each_pgv_row(g, blocks_[i].info, [&](size_t in_map, size_t in_block, int n) {
      std::copy_n(src + in_block, n, map.begin() + in_map);
    });
  });
  return map;
}

std::vector<float> SnapshotRecorder::pgv_map() {
  starpu_task_wait_for_all();
  return gather_pgv();
}

void SnapshotRecorder::restore_pgv(const std::vector<float>& map) {
  for (const BlockData& b : blocks_) {
    if (!h_pgv_[b.info.id]) continue;
    Acquired a(h_pgv_[b.info.id], STARPU_W);
    float* dst = pgv_[b.info.id].data();
    for_each_pgv_row(case_.grid, b.info, [&](size_t in_map, size_t in_block, int n) {
      std::copy_n(map.begin() + in_map, n, dst + in_block);
    });
  }
}

void SnapshotRecorder::carry_frames(const EarlierFrames& earlier) {
  if (writer_) writer_->carry_frames(earlier);
}

void SnapshotRecorder::finish() {
  if (finished_) return;
  starpu_task_wait_for_all();
  {
    // The last parts may still be on their way: acquire callbacks and MPI receives are not tasks.
    std::unique_lock<std::mutex> lock(mutex_);
    delivered_.wait(lock, [&] {
      return std::all_of(frames_.begin(), frames_.end(), [](const auto& f) { return f.second.pending == 0; });
    });
  }
  flush();
  if (case_.snapshots.pgv) {
    const std::vector<float> map = gather_pgv();
    if (writer_) writer_->write_pgv(map);
  }
  if (writer_) writer_->close();
  finished_ = true;
}

}  // namespace ondes
