// The StarPU plumbing every layer above shares: host memory StarPU can move, vector handles, and
// one way to report a StarPU call that failed.
#pragma once
#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ondes {

// Zero-filled floats in host memory allocated by StarPU (pinned when CUDA workers exist, so
// transfers to and from GPUs are asynchronous DMA); owned, movable. Free before StarPU shuts down.
class HostFloats {
 public:
  HostFloats() = default;
  explicit HostFloats(size_t n);
  ~HostFloats();
  HostFloats(HostFloats&& o) noexcept { swap(o); }
  HostFloats& operator=(HostFloats&& o) noexcept {
    swap(o);
    return *this;
  }
  HostFloats(const HostFloats&) = delete;
  HostFloats& operator=(const HostFloats&) = delete;
  float* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  void swap(HostFloats& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
  }
  float* p_ = nullptr;
  size_t n_ = 0;
};

// Zero-filled bytes from starpu_malloc; throws std::bad_alloc. Release with starpu_free.
void* starpu_zeroed(size_t bytes);

// A vector handle over `count` elements of main memory.
template <class T>
void register_vector(starpu_data_handle_t* h, T* data, size_t count) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), count, sizeof(T));
}
inline void register_vector(starpu_data_handle_t* h, const HostFloats& f) { register_vector(h, f.data(), f.size()); }
// The same over a vector's elements, left null when it is empty.
template <class T>
void register_if_any(starpu_data_handle_t* h, std::vector<T>& v) {
  if (!v.empty()) register_vector(h, v.data(), v.size());
}
// Unregisters (bringing the data back to main memory) a handle that is not null, and nulls it.
void unregister(starpu_data_handle_t& h);

// Read (or write) access to a handle's main-memory copy for the scope; a null handle is skipped.
struct Acquired {
  starpu_data_handle_t h;
  Acquired(starpu_data_handle_t handle, starpu_data_access_mode mode) : h(handle) {
    if (h) starpu_data_acquire(h, mode);
  }
  ~Acquired() {
    if (h) starpu_data_release(h);
  }
  Acquired(const Acquired&) = delete;
  Acquired& operator=(const Acquired&) = delete;
};

// Throws std::runtime_error "<what> failed (StarPU error <ret>)" unless ret is 0.
void check_starpu(int ret, const char* what);

}  // namespace ondes
