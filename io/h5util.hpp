// Small HDF5 helpers shared by the output and checkpoint files.
#pragma once
#include <hdf5.h>

#include <stdexcept>
#include <string>

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

inline void check(herr_t e, const std::string& what) {
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

inline void attr_string(hid_t obj, const char* name, const std::string& v) {
  Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, v.empty() ? 1 : v.size());
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  H5Tset_cset(type, H5T_CSET_UTF8);
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(H5Awrite(a, type, v.c_str()), name);
}

}  // namespace ondes::h5
