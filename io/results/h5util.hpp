// Small HDF5 helpers shared by the output and checkpoint files.
#pragma once
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ondes::h5 {

// Closes an HDF5 identifier at scope exit.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

inline void check(int64_t e, const std::string& what) {
  if (e < 0) throw std::runtime_error("HDF5: " + what + " failed");
}

inline void attr_double(hid_t obj, const char* name, double v) {
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(H5Awrite(a, H5T_NATIVE_DOUBLE, &v), name);
}

inline void attr_int(hid_t obj, const char* name, int v) {
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(H5Awrite(a, H5T_NATIVE_INT, &v), name);
}

// A fixed-size UTF-8 string type holding v (returned as a prvalue: Id closes on destruction).
inline Id string_type(const std::string& v, H5T_str_t pad) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, v.empty() ? 1 : v.size());
  H5Tset_strpad(type, pad);
  H5Tset_cset(type, H5T_CSET_UTF8);
  return Id{type, H5Tclose};
}

inline void attr_string(hid_t obj, const char* name, const std::string& v) {
  Id type = string_type(v, H5T_STR_NULLTERM);
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(H5Awrite(a, type, v.c_str()), name);
}

// A text of any length as a scalar string dataset (UTF-8): attributes stop at 64 KiB, and a case
// with hundreds of stations or a fault's sources goes past that.
inline void text_dataset(hid_t obj, const char* name, const std::string& v) {
  Id type = string_type(v, H5T_STR_NULLPAD);
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id ds{H5Dcreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  check(ds, name);
  check(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.empty() ? "" : v.data()), name);
}

// A text of any size as a one-dimensional byte dataset (UTF-8), chunked and deflated: an Ondes3D
// history file of 16,000 points is 350 MB of text that gzip takes to 1.4 MB. Read it back as the
// dataset's bytes (h5py: bytes(f[name][()]).decode()).
inline void compressed_text(hid_t obj, const char* name, const std::string& v) {
  const hsize_t n[1] = {v.size()}, chunk[1] = {std::min<hsize_t>(std::max<hsize_t>(v.size(), 1), 1 << 20)};
  Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
  Id plist{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  check(H5Pset_chunk(plist, 1, chunk), name);
  check(H5Pset_deflate(plist, 6), name);
  Id ds{H5Dcreate2(obj, name, H5T_STD_U8LE, space, H5P_DEFAULT, plist, H5P_DEFAULT), H5Dclose};
  check(ds, name);
  if (!v.empty()) check(H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), name);
}

// One-dimensional datasets: a table's columns, each its own dataset of one length.
inline void column(hid_t group, const char* name, const std::vector<double>& v) {
  hsize_t n[1] = {v.size()};
  Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
  Id ds{H5Dcreate2(group, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (!v.empty()) check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), name);
}

inline void column(hid_t group, const char* name, const std::vector<int64_t>& v) {
  hsize_t n[1] = {v.size()};
  Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
  Id ds{H5Dcreate2(group, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (!v.empty()) check(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), name);
}

inline void column(hid_t group, const char* name, const std::vector<std::string>& v) {
  std::vector<const char*> p;
  for (const std::string& s : v) p.push_back(s.c_str());
  Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hsize_t n[1] = {v.size()};
  Id space{H5Screate_simple(1, n, nullptr), H5Sclose};
  Id ds{H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (!v.empty()) check(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()), name);
}

}  // namespace ondes::h5
