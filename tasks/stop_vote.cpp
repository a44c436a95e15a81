#include "tasks/stop_vote.hpp"

#include "tasks/messages.hpp"

namespace ondes {

StopVote StopVote::combined(const StopVote& other) const {
  StopVote v = *this;
  if (other.signal > v.signal) v.signal = other.signal;
  if (other.alarm_iteration >= 0 && (v.alarm_iteration < 0 || other.alarm_iteration < v.alarm_iteration)) {
    v.alarm_iteration = other.alarm_iteration;
    v.alarm_block = other.alarm_block;
    v.alarm_peak = other.alarm_peak;
  }
  return v;
}

StopVote agree_on_stop(int rank, int ranks, const StopVote& mine) {
  return combine_on_all(rank, ranks, mine, kStopVoteTag, [](const StopVote& a, const StopVote& b) { return a.combined(b); },
                        "a stop vote");
}

}  // namespace ondes
