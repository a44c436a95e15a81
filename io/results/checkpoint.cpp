#include "io/results/checkpoint.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "core/case_error.hpp"
#include "core/pml_layout.hpp"
#include "io/results/checkpoint_slabs.hpp"
#include "io/results/h5util.hpp"
#include "io/results/partial_file.hpp"
#include "io/results/physics_fingerprint.hpp"
#include "physics/grid_setup.hpp"

namespace ondes {
namespace {
using namespace h5;
using namespace checkpoint_slabs;

constexpr const char* kFormat = "ondes3d checkpoint";
constexpr int kVersion = 2;  // 2: the physics fingerprint hashed, the case text a dataset
constexpr int kPsi = PmlLayout::kPsi;

std::string read_string_attr(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return "";
  Id a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
  Id type{H5Aget_type(a), H5Tclose};
  std::string s(H5Tget_size(type), '\0');
  Id mem{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(mem, s.size());
  H5Tset_cset(mem, H5Tget_cset(type));
  H5Tset_strpad(mem, H5Tget_strpad(type));
  if (H5Aread(a, mem, s.data()) < 0) return "";
  return s.substr(0, s.find('\0'));
}

int read_int_attr(hid_t obj, const char* name, int fallback) {
  if (H5Aexists(obj, name) <= 0) return fallback;
  Id a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
  int v = fallback;
  return H5Aread(a, H5T_NATIVE_INT, &v) < 0 ? fallback : v;
}

// The anelastic memory variables of a cell (6 per mechanism; none for an elastic case).
int memory_components(const Case& c) { return kStressComponents * anelastic_shape(c).mechanisms; }

}  // namespace

// ---------------------------------------------------------------------------------------- writer

struct CheckpointWriter::Impl {
  PartialFile out;
  hid_t file = -1, velocity = -1, stress = -1, memory = -1, cells = -1, psi = -1, seis = -1, edge_x = -1, edge_y = -1;
  int memory_components = 0;
  hsize_t pml_written = 0, pml_total = 0, ny = 0, nx = 0;
  explicit Impl(const std::string& path) : out(path) {}

  void close() {
    for (hid_t* d : {&velocity, &stress, &memory, &cells, &psi, &seis, &edge_x, &edge_y})
      if (*d >= 0) H5Dclose(*d), *d = -1;
    if (file >= 0) H5Fclose(file), file = -1;
  }
};

CheckpointWriter::CheckpointWriter(const std::string& path, const Case& c, int iteration, int64_t pml_cells)
    : impl_(std::make_unique<Impl>(path)) {
  Impl& w = *impl_;
  w.pml_total = static_cast<hsize_t>(pml_cells);
  w.file = H5Fcreate(w.out.tmp().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (w.file < 0) throw std::runtime_error(fmt::format("{}: cannot create the checkpoint file", w.out.tmp()));
  {
    Id g{H5Gcreate2(w.file, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    attr_string(g, "format", kFormat);
    attr_int(g, "version", kVersion);
    attr_int(g, "iteration", iteration);
    attr_int(g, "steps", c.time.steps);
    attr_string(g, "physics", physics_hash(c));
    text_dataset(g, "case", c.text);
  }
  auto dataset = [&](const char* name, hid_t type, std::initializer_list<hsize_t> dims) {
    std::vector<hsize_t> d(dims);
    Id space{H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose};
    const hid_t ds = H5Dcreate2(w.file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ds < 0) throw std::runtime_error(fmt::format("{}: cannot create {}", w.out.tmp(), name));
    return ds;
  };
  Id fields{H5Gcreate2(w.file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  Id pml{H5Gcreate2(w.file, "pml", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  const hsize_t ny = c.grid.ny, nx = c.grid.nx;
  w.ny = ny, w.nx = nx;
  w.velocity = dataset("/fields/velocity", H5T_IEEE_F32LE, {kVelocityComponents, planes(c.grid), ny, nx});
  w.stress = dataset("/fields/stress", H5T_IEEE_F32LE, {kStressComponents, planes(c.grid), ny, nx});
  w.memory_components = memory_components(c);
  if (w.memory_components)
    w.memory = dataset("/fields/memory", H5T_IEEE_F32LE,
                       {static_cast<hsize_t>(w.memory_components), planes(c.grid), ny, nx});
  if (c.boundaries.surface == SurfaceScheme::Ondes3d) {
    w.edge_x = dataset("/fields/surface_edge_x", H5T_IEEE_F32LE, {kVelocityComponents, kGhost, ny});
    w.edge_y = dataset("/fields/surface_edge_y", H5T_IEEE_F32LE, {kVelocityComponents, kGhost, nx});
  }
  w.cells = dataset("/pml/cells", H5T_STD_I64LE, {w.pml_total});
  w.psi = dataset("/pml/psi", H5T_IEEE_F32LE, {w.pml_total, kPsi});
  w.seis = dataset("/seismograms", H5T_IEEE_F32LE, {c.stations.size(), 3, static_cast<hsize_t>(c.time.steps)});
}

CheckpointWriter::~CheckpointWriter() {
  impl_->close();  // the partial file goes with impl_ unless committed
}

void CheckpointWriter::write_fields(int x0, int y0, const BlockShape& s, const float* velocity, const float* stress,
                                    const float* memory) {
  if ((impl_->memory >= 0) != (memory != nullptr))
    throw std::logic_error("checkpoint: anelastic memory given for an elastic medium or missing");
  for (auto [ds, data, nc] : {std::tuple{impl_->velocity, velocity, kVelocityComponents},
                              std::tuple{impl_->stress, stress, kStressComponents},
                              std::tuple{impl_->memory, memory, impl_->memory_components}}) {
    if (!data) continue;
    BlockSlab b = block_slab(ds, nc, x0, y0, s);
    check(H5Dwrite(ds, H5T_NATIVE_FLOAT, b.mem_space, b.file_space, H5P_DEFAULT, data), "checkpoint fields");
  }
  if (impl_->edge_x >= 0 && hsize_t(x0 + s.nx) == impl_->nx) surface_edge(impl_->edge_x, s, y0, true, velocity, nullptr);
  if (impl_->edge_y >= 0 && hsize_t(y0 + s.ny) == impl_->ny) surface_edge(impl_->edge_y, s, x0, false, velocity, nullptr);
}

void CheckpointWriter::write_pml(const std::vector<int64_t>& global_cells, const float* psi) {
  Impl& w = *impl_;
  const hsize_t n = global_cells.size();
  if (n == 0) return;
  if (w.pml_written + n > w.pml_total) throw std::logic_error("checkpoint: more PML cells than announced");
  // Transpose the block's [18][count] into the file's [count][18].
  std::vector<float> rows(n * kPsi);
  for (hsize_t p = 0; p < n; ++p)
    for (int m = 0; m < kPsi; ++m) rows[p * kPsi + m] = psi[m * n + p];
  {
    Id fs{H5Dget_space(w.cells), H5Sclose};
    hsize_t start = w.pml_written, count = n;
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &count, nullptr), "pml selection");
    Id ms{H5Screate_simple(1, &count, nullptr), H5Sclose};
    check(H5Dwrite(w.cells, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, global_cells.data()), "pml cells");
  }
  {
    Id fs{H5Dget_space(w.psi), H5Sclose};
    hsize_t start[2] = {w.pml_written, 0}, count[2] = {n, kPsi};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr), "psi selection");
    Id ms{H5Screate_simple(2, count, nullptr), H5Sclose};
    check(H5Dwrite(w.psi, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, rows.data()), "pml memory");
  }
  w.pml_written += n;
}

void CheckpointWriter::write_seismograms(const std::vector<float>& seismograms) {
  if (!seismograms.empty())
    check(H5Dwrite(impl_->seis, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, seismograms.data()), "seismograms");
}

void CheckpointWriter::write_snapshots(const std::string& snapshot_file, const std::vector<float>& pgv) {
  Impl& w = *impl_;
  {
    Id g{H5Gopen2(w.file, "checkpoint", H5P_DEFAULT), H5Gclose};
    attr_string(g, "snapshots", snapshot_file);
  }
  if (pgv.empty()) return;
  const hsize_t dims[3] = {2, w.ny, w.nx};
  if (pgv.size() != 2 * w.ny * w.nx) throw std::logic_error("checkpoint: PGV map of the wrong size");
  Id space{H5Screate_simple(3, dims, nullptr), H5Sclose};
  Id ds{H5Dcreate2(w.file, "/pgv", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (ds < 0) throw std::runtime_error(fmt::format("{}: cannot create /pgv", w.out.tmp()));
  check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, pgv.data()), "pgv");
}

void CheckpointWriter::write_displacement(const std::string& group, const std::vector<float>& plane) {
  Impl& w = *impl_;
  if (H5Lexists(w.file, "displacement", H5P_DEFAULT) <= 0) {
    Id g{H5Gcreate2(w.file, "displacement", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  }
  const hsize_t dims[1] = {plane.size()};
  Id space{H5Screate_simple(1, dims, nullptr), H5Sclose};
  const std::string name = "/displacement/" + group;
  Id ds{H5Dcreate2(w.file, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (ds < 0) throw std::runtime_error(fmt::format("{}: cannot create {}", w.out.tmp(), name));
  check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, plane.data()), "displacement");
}

void CheckpointWriter::commit() {
  Impl& w = *impl_;
  if (w.pml_written != w.pml_total) throw std::logic_error("checkpoint: PML cells missing");
  check(H5Fflush(w.file, H5F_SCOPE_GLOBAL), "flush");
  w.close();
  w.out.commit();
}

// ---------------------------------------------------------------------------------------- reader

struct CheckpointReader::Impl {
  std::string path;
  hid_t file = -1, velocity = -1, stress = -1, memory = -1;
  int memory_components = 0;
  int iteration = 0, stations = 0, steps = 0;
  int written_steps = 0;       // the steps of the run that wrote it: the length of its traces
  hsize_t ny = 0, nx = 0;
  std::vector<int64_t> cells;  // sorted
  std::vector<float> psi;      // [cell][18], in `cells` order
  bool pml_loaded = false;
  ~Impl() {
    for (hid_t d : {velocity, stress, memory})
      if (d >= 0) H5Dclose(d);
    if (file >= 0) H5Fclose(file);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw CaseError(fmt::format("{}: {}", path, what));
  }
  hid_t open_dataset(const char* name, std::initializer_list<hsize_t> dims) const {
    const hid_t ds = H5Lexists(file, name, H5P_DEFAULT) > 0 ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
    if (ds < 0) fail(fmt::format("not an ondes3d checkpoint or damaged: {} is missing", name));
    Id space{H5Dget_space(ds), H5Sclose};
    std::vector<hsize_t> want(dims), got(want.size());
    if (H5Sget_simple_extent_ndims(space) != static_cast<int>(want.size()) ||
        H5Sget_simple_extent_dims(space, got.data(), nullptr) < 0 || got != want) {
      H5Dclose(ds);
      fail(fmt::format("{} has dimensions [{}], the case needs [{}]", name, fmt::join(got, " x "),
                       fmt::join(want, " x ")));
    }
    return ds;
  }
};

CheckpointReader::CheckpointReader(const std::string& path, const Case& c) : impl_(std::make_unique<Impl>()) {
  Impl& r = *impl_;
  r.path = path;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our messages instead of HDF5's error stacks
  if (H5Fis_hdf5(path.c_str()) <= 0) r.fail("cannot open: missing, unreadable or not an HDF5 file");
  r.file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (r.file < 0) r.fail("cannot open: damaged or truncated HDF5 file");
  if (H5Lexists(r.file, "checkpoint", H5P_DEFAULT) <= 0) r.fail("not an ondes3d checkpoint (no /checkpoint group)");
  {
    Id g{H5Gopen2(r.file, "checkpoint", H5P_DEFAULT), H5Gclose};
    if (read_string_attr(g, "format") != kFormat) r.fail("not an ondes3d checkpoint (format attribute)");
    const int version = read_int_attr(g, "version", -1);
    if (version != kVersion) r.fail(fmt::format("checkpoint format version {}, this program reads {}", version, kVersion));
    r.iteration = read_int_attr(g, "iteration", -1);
    r.written_steps = read_int_attr(g, "steps", -1);
    if (r.iteration < 0 || r.iteration > r.written_steps)
      r.fail(fmt::format("iteration {} is outside [0, {}]", r.iteration, r.written_steps));
    // The run may end at another step than the one that wrote the checkpoint (a run goes on
    // further, or stops sooner), as long as it has not passed it: nothing a step computes depends
    // on how many steps the run has (held source histories are accumulated step by step).
    if (c.time.steps < r.iteration)
      r.fail(fmt::format("holds the state after iteration {}, the case asks for {} steps (time.steps / --steps must be "
                         "at least {})",
                         r.iteration, c.time.steps, r.iteration));
    if (read_string_attr(g, "physics") != physics_hash(c))
      r.fail("made for a different case: grid, time step, boundaries, medium, sources or stations differ");
  }
  const hsize_t ny = c.grid.ny, nx = c.grid.nx;
  r.velocity = r.open_dataset("/fields/velocity", {kVelocityComponents, planes(c.grid), ny, nx});
  r.stress = r.open_dataset("/fields/stress", {kStressComponents, planes(c.grid), ny, nx});
  r.memory_components = memory_components(c);
  if (r.memory_components)
    r.memory = r.open_dataset("/fields/memory", {static_cast<hsize_t>(r.memory_components), planes(c.grid), ny, nx});
  r.stations = static_cast<int>(c.stations.size());
  r.steps = c.time.steps;
  r.ny = ny, r.nx = nx;
  if (H5Lexists(r.file, "pml", H5P_DEFAULT) <= 0) r.fail("not an ondes3d checkpoint or damaged: /pml is missing");
}

CheckpointReader::~CheckpointReader() = default;

// The PML memory, sorted by global cell, for lookups by any layout's blocks (read on first use).
void CheckpointReader::load_pml() {
  Impl& r = *impl_;
  r.pml_loaded = true;
  Id cells_ds{H5Lexists(r.file, "/pml/cells", H5P_DEFAULT) > 0 ? H5Dopen2(r.file, "/pml/cells", H5P_DEFAULT) : -1,
              H5Dclose};
  if (cells_ds < 0) r.fail("not an ondes3d checkpoint or damaged: /pml/cells is missing");
  Id cs{H5Dget_space(cells_ds), H5Sclose};
  const hsize_t n = H5Sget_simple_extent_npoints(cs);
  std::vector<int64_t> cells(n);
  if (n && H5Dread(cells_ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, cells.data()) < 0)
    r.fail("cannot read /pml/cells (damaged or truncated)");
  Id psi_ds{r.open_dataset("/pml/psi", {n, kPsi}), H5Dclose};
  std::vector<float> psi(n * kPsi);
  if (n && H5Dread(psi_ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, psi.data()) < 0)
    r.fail("cannot read /pml/psi (damaged or truncated)");
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cells[a] < cells[b]; });
  r.cells.resize(n);
  r.psi.resize(n * kPsi);
  for (size_t q = 0; q < n; ++q) {
    r.cells[q] = cells[order[q]];
    std::copy_n(psi.begin() + order[q] * kPsi, kPsi, r.psi.begin() + q * kPsi);
  }
}

int CheckpointReader::iteration() const { return impl_->iteration; }

void CheckpointReader::read_fields(int x0, int y0, const BlockShape& s, float* velocity, float* stress,
                                   float* memory) {
  for (auto [ds, data, nc] : {std::tuple{impl_->velocity, velocity, kVelocityComponents},
                              std::tuple{impl_->stress, stress, kStressComponents},
                              std::tuple{impl_->memory, memory, impl_->memory_components}}) {
    if (ds < 0 || !data) continue;
    BlockSlab b = block_slab(ds, nc, x0, y0, s);
    if (H5Dread(ds, H5T_NATIVE_FLOAT, b.mem_space, b.file_space, H5P_DEFAULT, data) < 0)
      impl_->fail("cannot read the fields (damaged or truncated)");
  }
}

void CheckpointReader::read_surface_ghosts(int x0, int y0, const BlockShape& s, float* velocity) {
  BlockSlab b = block_slab(impl_->velocity, kVelocityComponents, x0, y0, s, kGhost,
                            std::min<hsize_t>(hsize_t(s.nx) + 1, impl_->nx - hsize_t(x0)),
                            std::min<hsize_t>(hsize_t(s.ny) + 1, impl_->ny - hsize_t(y0)));
  if (H5Dread(impl_->velocity, H5T_NATIVE_FLOAT, b.mem_space, b.file_space, H5P_DEFAULT, velocity) < 0)
    impl_->fail("cannot read the fields (damaged or truncated)");
  // Checkpoints written before these datasets leave that state as the run starts it.
  for (const bool x_face : {true, false}) {
    const char* name = x_face ? "/fields/surface_edge_x" : "/fields/surface_edge_y";
    const bool on_face = x_face ? hsize_t(x0 + s.nx) == impl_->nx : hsize_t(y0 + s.ny) == impl_->ny;
    if (!on_face || H5Lexists(impl_->file, name, H5P_DEFAULT) <= 0) continue;
    Id ds{impl_->open_dataset(name, {kVelocityComponents, kGhost, x_face ? impl_->ny : impl_->nx}), H5Dclose};
    surface_edge(ds, s, x_face ? y0 : x0, x_face, nullptr, velocity);
  }
}

void CheckpointReader::read_pml(const std::vector<int64_t>& global_cells, float* psi) {
  if (!impl_->pml_loaded) load_pml();
  const Impl& r = *impl_;
  const size_t n = global_cells.size();
  for (size_t p = 0; p < n; ++p) {
    const auto it = std::lower_bound(r.cells.begin(), r.cells.end(), global_cells[p]);
    if (it == r.cells.end() || *it != global_cells[p])
      r.fail(fmt::format("PML cell {} has no memory variables (damaged, or another PML)", global_cells[p]));
    const size_t q = static_cast<size_t>(it - r.cells.begin());
    for (int m = 0; m < kPsi; ++m) psi[m * n + p] = r.psi[q * kPsi + m];
  }
}

std::string CheckpointReader::snapshot_file() const {
  Id g{H5Gopen2(impl_->file, "checkpoint", H5P_DEFAULT), H5Gclose};
  return read_string_attr(g, "snapshots");
}

bool CheckpointReader::has_pgv() const { return H5Lexists(impl_->file, "pgv", H5P_DEFAULT) > 0; }

std::vector<float> CheckpointReader::pgv() {
  const Impl& r = *impl_;
  if (!has_pgv()) return {};
  std::vector<float> out(2 * size_t(r.ny) * r.nx);
  Id ds{r.open_dataset("/pgv", {2, r.ny, r.nx}), H5Dclose};
  if (H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    r.fail("cannot read /pgv (damaged or truncated)");
  return out;
}

std::vector<float> CheckpointReader::displacement(const std::string& group, size_t floats) {
  const Impl& r = *impl_;
  const std::string name = "/displacement/" + group;
  if (H5Lexists(r.file, "displacement", H5P_DEFAULT) <= 0 || H5Lexists(r.file, name.c_str(), H5P_DEFAULT) <= 0) return {};
  std::vector<float> out(floats);
  Id ds{r.open_dataset(name.c_str(), {floats}), H5Dclose};
  if (H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    r.fail(fmt::format("cannot read {} (damaged or truncated)", name));
  return out;
}

std::vector<float> CheckpointReader::seismograms() {
  const Impl& r = *impl_;
  const size_t traces = static_cast<size_t>(r.stations) * 3;
  std::vector<float> written(traces * r.written_steps);
  Id ds{r.open_dataset("/seismograms", {static_cast<hsize_t>(r.stations), 3, static_cast<hsize_t>(r.written_steps)}),
        H5Dclose};
  if (!written.empty() && H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, written.data()) < 0)
    r.fail("cannot read /seismograms (damaged or truncated)");
  // Each trace's samples up to the checkpoint's iteration, in traces as long as this run's steps.
  std::vector<float> out(traces * r.steps, 0.0f);
  for (size_t t = 0; t < traces; ++t)
    std::copy_n(written.begin() + t * r.written_steps, r.iteration, out.begin() + t * r.steps);
  return out;
}

}  // namespace ondes
