// `ondes3d race`: the speeds of several cases measured in one process, in turn. On a shared machine
// the memory bandwidth and clocks a run gets drift from one minute to the next by more than the
// differences sought (docs/lab.md, Races), so runs of two cases one after the other compare the
// machine's moments as much as the cases. Here every case is set up once, then each runs `steps` iterations
// in turn, round after round: what drifts, drifts for all of them alike.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// A case's rates, cell-updates/s, one a round.
struct RaceLane {
  std::string path;
  std::vector<double> rates;
};

// Needs a live Runtime, one process. Each case planned on it (its own blocks), its snapshots off (a
// race writes no file); a round of warm-up (page faults, the models' first calibrations), then
// `rounds` rounds of `steps` iterations of each case in turn. Throws CaseError where the cases do
// not fit in this machine's memory together.
std::vector<RaceLane> race(std::vector<Case> cases, int steps, int rounds);

// The command: the runtime started with the first case's scheduler, the race, and its table on
// standard output (a case's median rate over the rounds, their range, its time against the first
// case's median). Returns the exit status.
int race_command(const std::vector<Case>& cases, int steps, int rounds);

}  // namespace ondes
