#include "perfmodels/models.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace ondes {

#ifdef STARPU_SIMGRID
// Simulated (SimGrid) runs: each task takes its footprint's measured mean from the calibrated model
// of the same symbol, plus the gap a task costs between kernels on the real machine (StarPU's
// scheduling and the launch: docs/performance.md, Decisions: task gap), which the measured means do not
// hold. StarPU 1.3's own regression fit degenerates on PML-heavy layouts (sweep.toml 4x4: a = 0,
// b = inf; the corner blocks, the smallest, take longest) and returns NaN in range: so the means,
// which make a simulated layout's block shapes need a real run (any GPU count). A block shape that
// never ran (a grid larger than any machine at hand) takes the time per cell of the largest block
// the history holds for the codelet and worker kind, times its cells: an extrapolation, linear in the
// cells, which a block large enough to fill the GPU makes good (its PML share, counted at the
// calibrated block's, makes it slightly pessimistic for larger grids); a small task without a size
// (records, samples, watch) the mean of its history.
namespace {
SimulatedOverheads g_overheads;
constexpr const char* kSimulatedSuffix = "_simulated";

// What the history holds for a worker kind: the microseconds per size unit (cells) of its largest
// entry, and the mean of all its entries (by samples); NaN without any.
struct HistoryFigures {
  double per_unit = NAN, mean = NAN;
};
HistoryFigures history_figures(starpu_perfmodel* model, starpu_perfmodel_arch* arch, unsigned nimpl) {
  const starpu_perfmodel_per_arch* pa = starpu_perfmodel_get_model_per_arch(model, arch, nimpl);
  HistoryFigures f;
  double size = 0, sum = 0, samples = 0;
  for (const starpu_perfmodel_history_list* l = pa ? pa->list : nullptr; l; l = l->next)
    if (const starpu_perfmodel_history_entry* e = l->entry; e && e->nsample > 0) {
      sum += e->mean * e->nsample;
      samples += e->nsample;
      if (double(e->size) > size) size = double(e->size), f.per_unit = e->mean / size;
    }
  if (samples > 0) f.mean = sum / samples;
  return f;
}

double simulated_cost(starpu_task* task, starpu_perfmodel_arch* arch, unsigned nimpl) {
  // StarPU's mutex, a SimGrid one here: loading a model may yield to another simulated actor, which
  // would then block the whole simulation on a system mutex (two simulated ranks did).
  static starpu_pthread_mutex_t mutex = STARPU_PTHREAD_MUTEX_INITIALIZER;
  static std::map<std::string, std::unique_ptr<starpu_perfmodel>> calibrated;
  starpu_perfmodel* own = task->cl->model;
  std::string symbol(own->symbol);
  symbol.resize(symbol.size() - std::strlen(kSimulatedSuffix));
  starpu_pthread_mutex_lock(&mutex);
  auto it = calibrated.find(symbol);
  if (it == calibrated.end()) {  // loaded once; a model that cannot be loaded stays null
    auto m = std::make_unique<starpu_perfmodel>();
    std::memset(m.get(), 0, sizeof(starpu_perfmodel));
    if (starpu_perfmodel_load_symbol(symbol.c_str(), m.get()) != 0) m.reset();  // SimGrid names the codelet
    it = calibrated.emplace(symbol, std::move(m)).first;
  }
  starpu_perfmodel* model = it->second.get();
  starpu_pthread_mutex_unlock(&mutex);
  if (!model) return NAN;
  double us = starpu_perfmodel_history_based_expected_perf(model, arch, starpu_task_footprint(own, task, arch, nimpl));
  // StarPU answers 0 ("can not work there"), or NaN, for a footprint it never measured: a block
  // update by the largest block's time per cell, a small task (records, samples) by its mean.
  if (!(us > 0)) {
    const HistoryFigures f = history_figures(model, arch, nimpl);
    us = own->size_base ? f.per_unit * own->size_base(task, nimpl) : f.mean;
  }
  // The launch latency, where the worker runs the task (StarPU asks this worker's current task's
  // length to simulate it: src/core/simgrid.c, _starpu_simgrid_submit_job), not where a scheduler
  // asks for an estimate: the worker's actor sleeps before it queues the task on its GPU.
  if (g_overheads.launch_latency_s > 0 && arch->ndevices > 0 && arch->devices[0].type == STARPU_CUDA_WORKER &&
      starpu_task_get_current() == task)
    starpu_sleep(static_cast<float>(g_overheads.launch_latency_s));
  return std::isnan(us) ? us : us + g_overheads.task_gap_s * 1e6;
}

starpu_perfmodel simulated_model(const char* symbol, uint32_t (*footprint)(starpu_task*),
                                 size_t (*size)(starpu_task*, unsigned) = nullptr) {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_PER_ARCH;
  m.arch_cost_function = simulated_cost;
  m.footprint = footprint;
  m.size_base = size;  // the extrapolation's cells
  m.symbol = (new std::string(std::string(symbol) + kSimulatedSuffix))->c_str();  // as long as the model
  return m;
}
}  // namespace
#endif

void set_simulated_overheads(const SimulatedOverheads& o) {
#ifdef STARPU_SIMGRID
  g_overheads = o;
#else
  (void)o;
#endif
}

starpu_perfmodel history_model(const char* symbol) {
#ifdef STARPU_SIMGRID
  return simulated_model(symbol, nullptr);
#else
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
  return m;
#endif
}

starpu_perfmodel regression_model(const char* symbol, uint32_t (*footprint)(starpu_task*),
                                  size_t (*size)(starpu_task*, unsigned)) {
#ifdef STARPU_SIMGRID
  return simulated_model(symbol, footprint, size);
#else
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_NL_REGRESSION_BASED;
  m.symbol = symbol;
  m.size_base = size;
  m.footprint = footprint;
  return m;
#endif
}

uint32_t footprint_of(std::initializer_list<int64_t> values) {
  uint32_t h = 0;
  for (int64_t v : values) {
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v), h);
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v >> 32), h);
  }
  return h;
}

}  // namespace ondes
