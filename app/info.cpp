#include "app/info.hpp"

#include <fmt/format.h>
#include <hwloc.h>
#include <starpu.h>

#include "engine/simulation.hpp"

namespace ondes {

std::string starpu_version() {
  int major, minor, release;
  starpu_get_version(&major, &minor, &release);
  return fmt::format("{}.{}.{}", major, minor, release);
}

namespace {
std::string topology() {
  hwloc_topology_t t;
  hwloc_topology_init(&t);
  hwloc_topology_load(t);
  auto count = [&](hwloc_obj_type_t type) { return hwloc_get_nbobjs_by_type(t, type); };
  std::string s = fmt::format("hwloc {}: {} package(s), {} NUMA node(s), {} core(s), {} PU(s)", HWLOC_API_VERSION >> 16,
                              count(HWLOC_OBJ_PACKAGE), count(HWLOC_OBJ_NUMANODE), count(HWLOC_OBJ_CORE),
                              count(HWLOC_OBJ_PU));
  hwloc_topology_destroy(t);
  return s;
}
}  // namespace

std::string system_info() {
  std::string out = fmt::format("StarPU {}\n{}\n", starpu_version(), topology());
  Runtime rt("");
  out += fmt::format("workers: {} CPU, {} CUDA (scheduler {})\n", rt.cpu_workers(), rt.cuda_workers(), rt.scheduler());
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    char name[128];
    starpu_worker_get_name(static_cast<int>(w), name, sizeof(name));
    out += fmt::format("  worker {}: {}\n", w, name);
  }
  out += fmt::format("scheduling policies: {}\n", fmt::join(scheduler_names(), ", "));
  return out;
}

}  // namespace ondes
