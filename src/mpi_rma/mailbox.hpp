// The passive messages that the progress step took out of MPI, waiting for gaspi_passive_receive.
// Handed out round-robin over their senders, each sender's in its own order. spec §9.1: "The
// implementation should try to enforce fairness in communication that is, no sender should see
// its communication request delayed indefinitely." A send over MPI completes once MPI has buffered
// it, so a fast sender is not held back by the receiver: with one FIFO, messages came out in the
// order MPI matched them, and under load one sender's flood delayed the others' (mpi.mr_passive.n4
// beside a busy process: ranks 1 and 2 got 57 and 43 messages of a 3945-message window, rank 3
// got 1901). It holds at most what the senders' credits allow (credits.hpp): a message counts
// until gaspi_passive_receive takes it (or a purge drops it), and only then is its sender told.
#pragma once
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace hygaspi::mpi {

// A message taken from MPI.
struct Message {
  int from = -1;
  std::vector<char> data;
};

// Not thread-safe: Control guards it with its mailbox mutex.
class Mailbox {
public:
  void push(Message m) { queues_[m.from].push_back(std::move(m)); }

  // The oldest message of the first sender after the one served last (wrapping) that has one.
  bool pop(Message &out) {
    if (queues_.empty())
      return false;
    auto it = queues_.upper_bound(last_);
    if (it == queues_.end())
      it = queues_.begin();
    out = std::move(it->second.front());
    it->second.pop_front();
    last_ = it->first;
    if (it->second.empty())
      queues_.erase(it);
    return true;
  }

  void clear() noexcept {
    queues_.clear();
    last_ = -1;
  }

private:
  std::map<int, std::deque<Message>> queues_; // only senders with a message waiting
  int last_ = -1;
};

} // namespace hygaspi::mpi
