#include "io/results/model_reader.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>

#include "core/case_error.hpp"
#include "io/results/h5util.hpp"

namespace ondes {
namespace {

using h5::Id;

// HDF5 prints its own error stack on failures we report ourselves; silence it in this scope.
struct QuietHdf5 {
  H5E_auto2_t func;
  void* data;
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func, data); }
};

std::array<double, 3> triple(hid_t file, const std::string& path, const char* name) {
  if (H5Aexists(file, name) <= 0)
    throw CaseError(fmt::format("{}: attribute '{}' (3 numbers, metres, x y z) is missing", path, name));
  Id a{H5Aopen(file, name, H5P_DEFAULT), H5Aclose};
  Id space{H5Aget_space(a), H5Sclose};
  if (H5Sget_simple_extent_npoints(space) != 3)
    throw CaseError(fmt::format("{}: attribute '{}' must hold 3 numbers (x y z)", path, name));
  std::array<double, 3> v{};
  if (H5Aread(a, H5T_NATIVE_DOUBLE, v.data()) < 0)
    throw CaseError(fmt::format("{}: attribute '{}' is not numeric", path, name));
  return v;
}

// zero_ok: 0 is allowed too (vp and vs of a categorical model's vacuum and water).
std::vector<float> field(hid_t file, const std::string& path, const char* name, hsize_t dims[3], bool zero_ok = false) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
    throw CaseError(fmt::format("{}: dataset '/{}' is missing (a model needs /vp, /vs and /rho)", path, name));
  Id ds{H5Dopen2(file, name, H5P_DEFAULT), H5Dclose};
  Id space{H5Dget_space(ds), H5Sclose};
  if (H5Sget_simple_extent_ndims(space) != 3)
    throw CaseError(fmt::format("{}: dataset '/{}' must be 3-D [nz][ny][nx]", path, name));
  hsize_t d[3];
  H5Sget_simple_extent_dims(space, d, nullptr);
  if (dims[0] == 0) std::copy(d, d + 3, dims);
  if (!std::equal(d, d + 3, dims))
    throw CaseError(fmt::format("{}: dataset '/{}' is {} x {} x {} but /vp is {} x {} x {} ([nz][ny][nx])", path,
                                name, d[0], d[1], d[2], dims[0], dims[1], dims[2]));
  std::vector<float> v(d[0] * d[1] * d[2]);
  if (H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    throw CaseError(fmt::format("{}: dataset '/{}' could not be read as numbers", path, name));
  for (size_t q = 0; q < v.size(); ++q)
    if (!std::isfinite(v[q]) || v[q] < 0 || (v[q] == 0 && !zero_ok))
      throw CaseError(fmt::format("{}: /{}[{}][{}][{}] = {} is not a positive number", path, name, q / (d[1] * d[2]),
                                  (q / d[2]) % d[1], q % d[2], v[q]));
  return v;
}

// The optional /qp and /qs (both or neither, each >= 1 at every sample), kept as 1/Q.
void read_quality(hid_t file, const std::string& path, const hsize_t (&dims)[3], Model3D& m) {
  const bool has_qp = H5Lexists(file, "qp", H5P_DEFAULT) > 0, has_qs = H5Lexists(file, "qs", H5P_DEFAULT) > 0;
  if (!has_qp && !has_qs) return;
  if (has_qp != has_qs)
    throw CaseError(fmt::format("{}: dataset '/{}' is missing (a model with attenuation needs both /qp and /qs)", path,
                                has_qp ? "qs" : "qp"));
  hsize_t qdims[3] = {dims[0], dims[1], dims[2]};
  for (const auto& [name, out] : {std::pair{"qp", &m.inv_qp}, std::pair{"qs", &m.inv_qs}}) {
    *out = field(file, path, name, qdims);
    for (size_t q = 0; q < out->size(); ++q) {
      const float v = (*out)[q];
      if (!(v >= 1) || !std::isfinite(v))
        throw CaseError(fmt::format("{}: at sample {} (z y x = {} {} {}), {} = {} is not a quality factor >= 1", path, q,
                                    q / (dims[1] * dims[2]), (q / dims[2]) % dims[1], q % dims[2], name, v));
      (*out)[q] = 1.0f / v;
    }
  }
}

}  // namespace

std::shared_ptr<const Model3D> read_model(const std::string& path) {
  QuietHdf5 quiet;
  Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (file < 0) throw CaseError(fmt::format("{}: cannot open the model (HDF5)", path));
  auto m = std::make_shared<Model3D>();
  m->path = path;
  m->origin = triple(file, path, "origin");
  m->spacing = triple(file, path, "spacing");
  for (int a = 0; a < 3; ++a)
    if (!(m->spacing[a] > 0) || !std::isfinite(m->origin[a]))
      throw CaseError(fmt::format("{}: spacing must be positive and origin finite ({} axis)", path, "xyz"[a]));
  // A categorical model (attribute `nearest` = 1: Ondes3D's geological ones, written by `convert`)
  // is sampled at the nearest sample and may hold water (vs = 0) and vacuum (vp = vs = 0).
  if (H5Aexists(file, "nearest") > 0) {
    Id a{H5Aopen(file, "nearest", H5P_DEFAULT), H5Aclose};
    int v = 0;
    if (H5Aread(a, H5T_NATIVE_INT, &v) < 0) throw CaseError(fmt::format("{}: attribute 'nearest' is not an integer", path));
    m->nearest = v != 0;
  }
  hsize_t dims[3] = {0, 0, 0};
  m->vp = field(file, path, "vp", dims, m->nearest);
  m->vs = field(file, path, "vs", dims, m->nearest);
  m->rho = field(file, path, "rho", dims);
  m->nz = static_cast<int>(dims[0]);
  m->ny = static_cast<int>(dims[1]);
  m->nx = static_cast<int>(dims[2]);
  for (size_t q = 0; q < m->vp.size(); ++q)
    if (m->vs[q] > 0 && m->vs[q] >= m->vp[q] / std::sqrt(2.0))  // water and vacuum have vs = 0
      throw CaseError(fmt::format("{}: at sample {} (z y x = {} {} {}), vs = {} is not below vp / sqrt(2) = {:.6g}", path,
                                  q, q / (dims[1] * dims[2]), (q / dims[2]) % dims[1], q % dims[2], m->vs[q],
                                  m->vp[q] / std::sqrt(2.0)));
  read_quality(file, path, dims, *m);
  set_extremes(*m);
  return m;
}

void write_model(const std::string& path, const Model3D& m) {
  Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file < 0) throw std::runtime_error(fmt::format("{}: cannot create the model file", path));
  if (m.nearest) {
    Id space{H5Screate(H5S_SCALAR), H5Sclose};
    Id a{H5Acreate2(file, "nearest", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    const int one = 1;
    h5::check(H5Awrite(a, H5T_NATIVE_INT, &one), "nearest");
  }
  for (const char* name : {"origin", "spacing"}) {
    const auto& v = std::string(name) == "origin" ? m.origin : m.spacing;
    hsize_t n[1] = {3};
    Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
    Id a{H5Acreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    h5::check(H5Awrite(a, H5T_NATIVE_DOUBLE, v.data()), name);
  }
  const hsize_t dims[3] = {hsize_t(m.nz), hsize_t(m.ny), hsize_t(m.nx)};
  std::vector<float> qp, qs;  // the files hold Q, the model 1/Q
  for (const auto& [inv, out] : {std::pair{&m.inv_qp, &qp}, std::pair{&m.inv_qs, &qs}})
    for (float v : *inv) out->push_back(1.0f / v);
  // Compressed by planes (shuffle + deflate, where the HDF5 library has deflate): a categorical model
  // (a converted Ondes3D geology: a few materials) shrinks to a small fraction; readers see floats.
  Id dcpl{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    const hsize_t chunk[3] = {1, dims[1], dims[2]};
    h5::check(H5Pset_chunk(dcpl, 3, chunk), "model chunks");
    h5::check(H5Pset_shuffle(dcpl), "model shuffle");
    h5::check(H5Pset_deflate(dcpl, 6), "model deflate");
  }
  for (const auto& [name, data] : {std::pair{"vp", &m.vp}, std::pair{"vs", &m.vs}, std::pair{"rho", &m.rho},
                                   std::pair{"qp", static_cast<const std::vector<float>*>(&qp)},
                                   std::pair{"qs", static_cast<const std::vector<float>*>(&qs)}}) {
    if (data->empty()) continue;
    Id space{H5Screate_simple(3, dims, nullptr), H5Sclose};
    Id ds{H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose};
    h5::check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data->data()), name);
  }
}

}  // namespace ondes
