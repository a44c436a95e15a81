#include "partition/handles.hpp"

#include <fmt/format.h>

#include <cstring>
#include <new>
#include <stdexcept>

namespace ondes {

void* starpu_zeroed(size_t bytes) {
  void* p = nullptr;
  if (starpu_malloc(&p, bytes) != 0 || !p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return p;
}

HostFloats::HostFloats(size_t n) : p_(static_cast<float*>(starpu_zeroed(n * sizeof(float)))), n_(n) {}
HostFloats::~HostFloats() {
  if (p_) starpu_free(p_);
}

void unregister(starpu_data_handle_t& h) {
  if (h) starpu_data_unregister(h);
  h = nullptr;
}

void check_starpu(int ret, const char* what) {
  if (ret != 0) throw std::runtime_error(fmt::format("{} failed (StarPU error {})", what, ret));
}

}  // namespace ondes
