// The bodies of ondes3d's commands other than `run` (app/driver.cpp: run_case). Each prints to
// stdout and returns the process's exit status; a bad case or file throws CaseError.
#pragma once
#include <string>

#include "core/case.hpp"
#include "plan/run_plan.hpp"
#include "perfmodels/cost_model.hpp"

namespace ondes {

// `check`: the case's size, stability, memory and plan of blocks and ranks; with `restart`, whether
// that checkpoint continues this case and from which step (a checkpoint `run` would refuse throws).
int check_command(const Case& c, int ranks, int gpus = 0, const std::string& restart = "");

// `predict`: the cost model's time per iteration on the machine model at machine_path.
int predict_command(const Case& c, const WorkerConfig& w, const std::string& machine_path, bool csv);

// `compare`: per-station differences of two runs; 0 when bitwise equal or within tolerance.
int compare_command(const std::string& a, const std::string& b, double tolerance);

// `convert`: an Ondes3D parameter file as the equivalent TOML case, written only when complete.
int convert_command(const std::string& prm, const std::string& toml_path);

}  // namespace ondes
