#include "app/snapshots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tasks/codelets.hpp"

namespace ondes {

struct SnapshotRecorder::Part {
  size_t plane;
  PlaneArgs args;
  int x0, y0;  // the block's origin in the grid
  HostFloats buffer;
  starpu_data_handle_t handle = nullptr;
  starpu_data_handle_t velocity;
};

namespace {
struct Delivery {
  SnapshotRecorder* recorder;
  void* part;
  int iteration;
};

void check(int ret, const char* what) {
  if (ret != 0) throw std::runtime_error(fmt::format("submitting {} failed (StarPU error {})", what, ret));
}
}  // namespace

SnapshotRecorder::SnapshotRecorder(const Case& c, std::vector<BlockData>& blocks, const std::string& path)
    : case_(c), blocks_(blocks), writer_(path, c), pgv_(blocks.size()), h_pgv_(blocks.size(), nullptr) {
  for (BlockData& b : blocks) {
    if (!b.local) continue;
    const BlockShape& s = b.info.shape;
    for (size_t p = 0; p < c.snapshots.planes.size(); ++p) {
      const PlaneSpec& spec = c.snapshots.planes[p];
      const int origin = spec.axis == 0 ? b.info.x0 : spec.axis == 1 ? b.info.y0 : 0;
      const int n = spec.axis == 0 ? s.nx : spec.axis == 1 ? s.ny : s.nz;
      if (spec.index < origin || spec.index >= origin + n) continue;
      auto part = std::make_unique<Part>();
      part->plane = p;
      part->args = PlaneArgs{s, spec.axis, spec.index - origin};
      part->x0 = b.info.x0;
      part->y0 = b.info.y0;
      part->buffer = HostFloats(3 * plane_points(s, spec.axis));
      part->velocity = b.h_velocity;
      starpu_vector_data_register(&part->handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(part->buffer.data()),
                                  part->buffer.size(), sizeof(float));
      parts_.push_back(std::move(part));
    }
    if (c.snapshots.pgv) {
      pgv_[b.info.id] = HostFloats(2 * size_t(s.nx) * s.ny);
      starpu_vector_data_register(&h_pgv_[b.info.id], STARPU_MAIN_RAM,
                                  reinterpret_cast<uintptr_t>(pgv_[b.info.id].data()), pgv_[b.info.id].size(),
                                  sizeof(float));
    }
  }
}

SnapshotRecorder::~SnapshotRecorder() {
  starpu_task_wait_for_all();
  for (auto& p : parts_) starpu_data_unregister(p->handle);
  for (auto& h : h_pgv_)
    if (h) starpu_data_unregister(h);
}

int SnapshotRecorder::tasks_per_iteration() const {
  return static_cast<int>(std::count_if(h_pgv_.begin(), h_pgv_.end(), [](starpu_data_handle_t h) { return h; }));
}

void SnapshotRecorder::submit(int it, unsigned long long where) {
  for (BlockData& b : blocks_) {
    if (!h_pgv_[b.info.id]) continue;
    BlockShape s = b.info.shape;
    check(starpu_task_insert(&codelets().pgv, STARPU_R, b.h_velocity, STARPU_RW, h_pgv_[b.info.id], STARPU_VALUE, &s,
                             sizeof(s), STARPU_EXECUTE_WHERE, where, 0),
          "update_pgv");
  }
  if ((it + 1) % case_.snapshots.every != 0 || parts_.empty()) return;
  {
    std::lock_guard<std::mutex> g(mutex_);
    Frame& f = frames_[it];
    for (const PlaneSpec& p : case_.snapshots.planes) {
      const PlaneExtent e = plane_extent(case_.grid, p);
      f.planes.emplace_back(3 * size_t(e.n1) * e.n2, 0.0f);
    }
    f.pending = static_cast<int>(parts_.size());
  }
  for (auto& part : parts_) {
    check(starpu_task_insert(&codelets().plane, STARPU_R, part->velocity, STARPU_W, part->handle, STARPU_VALUE,
                             &part->args, sizeof(part->args), STARPU_EXECUTE_WHERE, where, 0),
          "extract_plane");
    starpu_data_acquire_cb(part->handle, STARPU_R, &SnapshotRecorder::on_part, new Delivery{this, part.get(), it});
  }
}

// On a StarPU thread, once the block's plane is in main memory: into the frame's global plane.
void SnapshotRecorder::on_part(void* arg) {
  std::unique_ptr<Delivery> d(static_cast<Delivery*>(arg));
  const Part& part = *static_cast<Part*>(d->part);
  SnapshotRecorder& r = *d->recorder;
  const PlaneSpec& spec = r.case_.snapshots.planes[part.plane];
  const PlaneExtent e = plane_extent(r.case_.grid, spec);
  const int n1 = plane_n1(part.args.shape, spec.axis), n2 = plane_n2(part.args.shape, spec.axis);
  const int off1 = spec.axis == 0 ? part.y0 : part.x0, off2 = spec.axis == 2 ? part.y0 : 0;
  const size_t local = size_t(n1) * n2, global = size_t(e.n1) * e.n2;
  std::lock_guard<std::mutex> g(r.mutex_);
  Frame& f = r.frames_.at(d->iteration);
  std::vector<float>& out = f.planes[part.plane];
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < n2; ++b)
      std::copy_n(part.buffer.data() + c * local + size_t(b) * n1, n1,
                  out.begin() + c * global + size_t(off2 + b) * e.n1 + off1);
  starpu_data_release(part.handle);
  --f.pending;
}

void SnapshotRecorder::flush() {
  for (;;) {
    std::map<int, Frame>::node_type done;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (frames_.empty() || frames_.begin()->second.pending > 0) return;
      done = frames_.extract(frames_.begin());
    }
    for (size_t p = 0; p < done.mapped().planes.size(); ++p) {
      // A plane no block of ours holds was never filled (cannot happen single-process).
      writer_.write_frame(p, done.key(), done.mapped().planes[p]);
    }
  }
}

void SnapshotRecorder::finish() {
  if (finished_) return;
  starpu_task_wait_for_all();
  flush();
  if (case_.snapshots.pgv) {
    const Grid& g = case_.grid;
    const size_t area = size_t(g.nx) * g.ny;
    std::vector<float> map(2 * area, 0.0f);
    for (BlockData& b : blocks_) {
      if (!h_pgv_[b.info.id]) continue;
      starpu_data_acquire(h_pgv_[b.info.id], STARPU_R);
      const BlockShape& s = b.info.shape;
      const float* src = pgv_[b.info.id].data();
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < s.ny; ++j)
          std::copy_n(src + (size_t(k) * s.ny + j) * s.nx, s.nx,
                      map.begin() + k * area + size_t(b.info.y0 + j) * g.nx + b.info.x0);
      starpu_data_release(h_pgv_[b.info.id]);
    }
    writer_.write_pgv(map);
  }
  writer_.close();
  finished_ = true;
}

}  // namespace ondes
