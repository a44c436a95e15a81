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
  if (ranks <= 1) return mine;
  if (rank != 0) {
    send_now(&mine, sizeof(mine), 0, kStopVoteTag, "sending a stop vote");
    StopVote verdict;
    receive_now(&verdict, sizeof(verdict), 0, kStopVoteTag + 1, "receiving the stop verdict");
    return verdict;
  }
  StopVote all = mine;
  for (int r = 1; r < ranks; ++r) {
    StopVote other;
    receive_now(&other, sizeof(other), r, kStopVoteTag, "receiving a stop vote");
    all = all.combined(other);
  }
  for (int r = 1; r < ranks; ++r) send_now(&all, sizeof(all), r, kStopVoteTag + 1, "sending the stop verdict");
  return all;
}

}  // namespace ondes
