#include "app/snapshots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include <starpu_mpi.h>

#include "partition/halo.hpp"
#include "tasks/codelets.hpp"

namespace ondes {

struct SnapshotRecorder::Part {
  size_t plane;
  PlaneArgs args;
  int x0, y0;  // the block's origin in the grid
  int owner;
  int64_t tag;  // of its messages to rank 0
  HostFloats buffer;
  starpu_data_handle_t handle = nullptr;
  starpu_data_handle_t velocity;  // null on rank 0 for another rank's block
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

void register_floats(starpu_data_handle_t* h, const HostFloats& f) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(f.data()), f.size(), sizeof(float));
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
      if (spec.index < origin || spec.index >= origin + n) continue;
      const int64_t tag = kSnapshotTagBase + index++;
      if (rank != 0 && owner != rank) continue;
      auto part = std::make_unique<Part>();
      part->plane = p;
      part->args = PlaneArgs{s, spec.axis, spec.index - origin};
      part->x0 = b.info.x0;
      part->y0 = b.info.y0;
      part->owner = owner;
      part->tag = tag;
      part->buffer = HostFloats(3 * plane_points(s, spec.axis));
      part->velocity = b.local ? b.h_velocity : nullptr;
      register_floats(&part->handle, part->buffer);
      parts_.push_back(std::move(part));
    }
    if (c.snapshots.pgv && b.local) {
      pgv_[b.info.id] = HostFloats(2 * size_t(s.nx) * s.ny);
      register_floats(&h_pgv_[b.info.id], pgv_[b.info.id]);
    }
    owner_.push_back(owner);
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
  if (rank_ == 0) {
    std::lock_guard<std::mutex> g(mutex_);
    Frame& f = frames_[it];
    for (const PlaneSpec& p : case_.snapshots.planes) {
      const PlaneExtent e = plane_extent(case_.grid, p);
      f.planes.emplace_back(3 * size_t(e.n1) * e.n2, 0.0f);
    }
    f.pending = static_cast<int>(parts_.size());
  }
  for (auto& part : parts_) {
    if (part->owner == rank_)
      check(starpu_task_insert(&codelets().plane, STARPU_R, part->velocity, STARPU_W, part->handle, STARPU_VALUE,
                               &part->args, sizeof(part->args), STARPU_EXECUTE_WHERE, where, 0),
            "extract_plane");
    if (rank_ == 0) {
      if (part->owner != 0)
        check(starpu_mpi_irecv_detached(part->handle, part->owner, part->tag, MPI_COMM_WORLD, nullptr, nullptr),
              "a snapshot receive");
      starpu_data_acquire_cb(part->handle, STARPU_R, &SnapshotRecorder::on_part, new Delivery{this, part.get(), it});
    } else {
      check(starpu_mpi_isend_detached(part->handle, 0, part->tag, MPI_COMM_WORLD, nullptr, nullptr), "a snapshot send");
    }
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
  }
}

// Rank 0 takes every block's peaks in block order, its own or received; the owners send theirs in
// the same order, so the blocking calls pair up.
std::vector<float> SnapshotRecorder::gather_pgv() {
  const Grid& g = case_.grid;
  const size_t area = size_t(g.nx) * g.ny;
  std::vector<float> map(rank_ == 0 ? 2 * area : 0, 0.0f);
  for (BlockData& b : blocks_) {
    const int owner = owner_[b.info.id];
    if (rank_ != 0) {
      if (owner == rank_)
        check(starpu_mpi_send(h_pgv_[b.info.id], 0, kPgvTagBase + b.info.id, MPI_COMM_WORLD), "sending the PGV");
      continue;
    }
    const BlockShape& s = b.info.shape;
    HostFloats remote;
    starpu_data_handle_t h = h_pgv_[b.info.id];
    if (owner != 0) {
      remote = HostFloats(2 * size_t(s.nx) * s.ny);
      register_floats(&h, remote);
      MPI_Status status;
      check(starpu_mpi_recv(h, owner, kPgvTagBase + b.info.id, MPI_COMM_WORLD, &status), "receiving the PGV");
    }
    starpu_data_acquire(h, STARPU_R);
    const float* src = owner != 0 ? remote.data() : pgv_[b.info.id].data();
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < s.ny; ++j)
        std::copy_n(src + (size_t(k) * s.ny + j) * s.nx, s.nx,
                    map.begin() + k * area + size_t(b.info.y0 + j) * g.nx + b.info.x0);
    starpu_data_release(h);
    if (owner != 0) starpu_data_unregister(h);
  }
  return map;
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
