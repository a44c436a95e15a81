// Checkpoint files: the whole state of a run between two iterations, in global (layout-independent)
// arrays, so a run can restart with another block layout or scheduler and give the same bits.
//   /checkpoint (attributes) format = "ondes3d checkpoint", version, iteration (done), steps,
//                            physics (fingerprint of the case's physics), case (its text)
//   /fields/velocity  float32 [3][nz+4][ny][nx]   the 2 ghost planes above and below each column
//   /fields/stress    float32 [6][nz+4][ny][nx]   are kept (the free-surface images live there)
//   /fields/memory    float32 [6 m][nz+4][ny][nx] anelastic memory variables of m mechanisms
//                                                 (attenuating media only)
//   /pml/cells        int64 [n]   global index (k * ny + j) * nx + i of each PML cell
//   /pml/psi          float32 [n][18]  its C-PML memory variables
//   /seismograms      float32 [station][3][steps]  recorded so far (zeros after `iteration`)
//   /pgv              float32 [2][ny][nx]  the peak ground velocity so far (horizontal, norm), with
//                                          [snapshots] pgv; /checkpoint's attribute `snapshots`
//                                          names the run's snapshot file (its frames so far)
//   /displacement/<plane> float32 [3 n2 n1]  a displacement snapshot plane's sums so far
//   /fields/surface_edge_x, _y float32 [3][ghost planes][ny or nx]  Ondes3D's surface state past the
//                                          grid's last column / row (codelets/surface.hpp)
// A run restarts from it with any number of steps from `iteration` on (a run goes on past the end
// of the one that wrote it), any block layout, scheduler or rank count.
// A checkpoint is written to FILE.partial and renamed over FILE when complete, so FILE is always
// either the previous checkpoint or the new one, whole.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/anelastic_layout.hpp"
#include "core/case.hpp"
#include "io/results/physics_fingerprint.hpp"

namespace ondes {

class CheckpointWriter {
 public:
  CheckpointWriter(const std::string& path, const Case& c, int iteration, int64_t pml_cells);
  ~CheckpointWriter();  // removes the partial file unless committed
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // A block's arrays (padded layout, every component) into the global arrays; memory: the
  // anelastic memory variables (AnelasticLayout), null for an elastic medium.
  void write_fields(int x0, int y0, const BlockShape& s, const float* velocity, const float* stress,
                    const float* memory);
  // A block's PML cells (global indices) and memory variables (block layout: [18][count]).
  void write_pml(const std::vector<int64_t>& global_cells, const float* psi);
  void write_seismograms(const std::vector<float>& seismograms);
  // The run's snapshot file and its peak ground velocity map so far ([2][ny][nx]; empty: none).
  void write_snapshots(const std::string& snapshot_file, const std::vector<float>& pgv);
  // A displacement plane's sums so far ([3][n2][n1]) as /displacement/<group> (its plane_group).
  void write_displacement(const std::string& group, const std::vector<float>& plane);
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class CheckpointReader {
 public:
  // Opens and checks the file against the case (format, grid, physics; steps from its iteration
  // on); throws CaseError naming the file and what is wrong.
  CheckpointReader(const std::string& path, const Case& c);
  ~CheckpointReader();
  int iteration() const;
  void read_fields(int x0, int y0, const BlockShape& s, float* velocity, float* stress, float* memory);
  void read_pml(const std::vector<int64_t>& global_cells, float* psi);
  // Ondes3D's surface (codelets/surface.hpp): the velocity's two planes above the surface of the
  // row and column past the block's (i = nx, j = ny, where inside the grid), which hold the previous
  // step's surface values of the neighbours' columns.
  void read_surface_ghosts(int x0, int y0, const BlockShape& s, float* velocity);
  // [station][3][the case's steps]: the samples up to iteration(), zeros after.
  std::vector<float> seismograms();
  // The snapshot file of the run that wrote it ("" if none was named) and its PGV map so far
  // ([2][ny][nx]; empty where the checkpoint holds none, as those written before 2026-11-27 #7).
  std::string snapshot_file() const;
  bool has_pgv() const;
  std::vector<float> pgv();
  // A displacement plane's sums (write_displacement), `floats` of them; empty where it holds none.
  std::vector<float> displacement(const std::string& group, size_t floats);

 private:
  void load_pml();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ondes
