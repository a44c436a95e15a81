// Reading a float dataset back, for tests that compare output files.
#pragma once
#include <hdf5.h>

#include <string>
#include <vector>

namespace ondes::test {

// The whole dataset as floats; empty when the file or dataset does not open.
inline std::vector<float> read_floats(const std::string& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {};
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  std::vector<float> v;
  if (d >= 0) {
    const hid_t sp = H5Dget_space(d);
    v.resize(H5Sget_simple_extent_npoints(sp));
    H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Sclose(sp);
    H5Dclose(d);
  }
  H5Fclose(f);
  return v;
}

// A text dataset under obj (io/results/h5util.hpp: text_dataset's scalar string or compressed_text's
// bytes), its bytes as they are stored; empty when absent.
inline std::string read_text(hid_t obj, const char* name) {
  if (H5Lexists(obj, name, H5P_DEFAULT) <= 0) return "";
  const hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
  const hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  std::string s(H5Tget_size(t) * H5Sget_simple_extent_npoints(sp), '\0');
  H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data());
  H5Sclose(sp);
  H5Tclose(t);
  H5Dclose(d);
  return s;
}

// An integer attribute of the output's /run group (complete, steps_completed, ...); -1 if absent.
inline int run_attribute(const std::string& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  int v = -1;
  const hid_t g = H5Gopen2(f, "run", H5P_DEFAULT);
  if (g >= 0) {
    const hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    if (a >= 0) {
      H5Aread(a, H5T_NATIVE_INT, &v);
      H5Aclose(a);
    }
    H5Gclose(g);
  }
  H5Fclose(f);
  return v;
}

}  // namespace ondes::test
