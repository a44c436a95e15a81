// The StarPU plumbing every layer above shares: host memory StarPU can move, vector handles, and
// one way to report a StarPU call that failed.
#pragma once
#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
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

// A set of StarPU workers as the bitmap starpu_task::workerids takes (STARPU_TASK_WORKERIDS);
// empty: any worker.
struct WorkerSet {
  std::vector<uint32_t> bits;
  void add(int worker) {
    if (bits.size() <= size_t(worker) / 32) bits.resize(worker / 32 + 1, 0);
    bits[worker / 32] |= 1u << (worker % 32);
  }
  unsigned len() const { return static_cast<unsigned>(bits.size()); }
  uint32_t* data() const { return bits.empty() ? nullptr : const_cast<uint32_t*>(bits.data()); }
};
// The empty set, for a task not held to any worker: StarPU keeps the bitmap's address, so never a
// temporary's.
inline const WorkerSet& any_workers() {
  static const WorkerSet none;
  return none;
}

// Zero-filled bytes from starpu_malloc; throws std::bad_alloc. Release with starpu_free.
void* starpu_zeroed(size_t bytes);

// A vector handle over `count` elements of main memory. StarPU counts a vector's elements in 32
// bits: more throws std::length_error (a larger count would wrap, and a GPU copy come out short).
template <class T>
void register_vector(starpu_data_handle_t* h, T* data, size_t count) {
  if (count > UINT32_MAX)
    throw std::length_error("a StarPU vector of " + std::to_string(count) + " elements (at most 2^32 - 1): use " +
                            "smaller blocks (run.blocks)");
  starpu_vector_data_register(h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), count, sizeof(T));
}
// The same over a byte buffer, counted in 4-byte words where its size allows (4 GiB more).
inline void register_bytes(starpu_data_handle_t* h, void* data, size_t bytes) {
  if (bytes % 4 == 0)
    register_vector(h, static_cast<uint32_t*>(data), bytes / 4);
  else
    register_vector(h, static_cast<char*>(data), bytes);
}
inline void register_vector(starpu_data_handle_t* h, const HostFloats& f) { register_vector(h, f.data(), f.size()); }
// The same over a vector's elements, left null when it is empty.
template <class T, class A>
void register_if_any(starpu_data_handle_t* h, std::vector<T, A>& v) {
  if (!v.empty()) register_vector(h, v.data(), v.size());
}

// A std::vector allocator of host memory allocated by StarPU (pinned where CUDA workers exist,
// and then, the address space being unified, readable and writable by kernels in place).
template <class T>
struct StarpuAllocator {
  using value_type = T;
  StarpuAllocator() = default;
  template <class U>
  StarpuAllocator(const StarpuAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = nullptr;
    if (starpu_malloc(&p, n * sizeof(T)) != 0 || !p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { starpu_free(p); }
  template <class U>
  bool operator==(const StarpuAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const StarpuAllocator<U>&) const { return false; }
};
using PinnedFloats = std::vector<float, StarpuAllocator<float>>;
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
