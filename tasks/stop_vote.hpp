// Stopping a distributed run early, together: every rank must stop after the same iteration, or
// the ranks still running would wait for messages that never come. Ranks therefore never stop on
// their own; at the end of each window they vote (rank 0 collects every rank's view, combines it
// and sends the verdict back), and stop when the verdict says so.
#pragma once
#include <cstdint>

namespace ondes {

struct StopVote {
  int32_t signal = 0;            // a stop signal some rank received (the largest number), 0: none
  int32_t alarm_iteration = -1;  // the earliest watchdog alarm of any rank, -1: none
  int32_t alarm_block = -1;
  float alarm_peak = 0;
  int32_t next_window = 0;       // iterations until the next vote (rank 0's choice, in the verdict)

  bool stop() const { return signal != 0 || alarm_iteration >= 0; }
  // The two views combined: the largest signal, the earliest alarm.
  StopVote combined(const StopVote& other) const;
};

// Every rank calls it with its own view (next_window: rank 0's proposal); all get the verdict.
// Blocking: StarPU-MPI messages on the tag kStopVoteTag.
StopVote agree_on_stop(int rank, int ranks, const StopVote& mine);

}  // namespace ondes
