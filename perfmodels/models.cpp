#include "perfmodels/models.hpp"

#include <cstring>

namespace ondes {
namespace {

void history_model(starpu_perfmodel& m, const char* symbol) {
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
}

}  // namespace

PerfModels& perf_models() {
  static PerfModels models = [] {
    PerfModels p;
    history_model(p.velocity, "ondes3d_compute_velocity");
    history_model(p.stress, "ondes3d_compute_stress");
    history_model(p.save_boundary, "ondes3d_save_boundary");
    history_model(p.update_source, "ondes3d_update_source");
    history_model(p.record, "ondes3d_record_seismograms");
    history_model(p.sample, "ondes3d_sample_stations");
    history_model(p.watch, "ondes3d_watch_velocity");
    return p;
  }();
  return models;
}

}  // namespace ondes
