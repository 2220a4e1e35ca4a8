// Global atomics on a rank of another node, run at the target with the same CPU atomics that its
// node peers use (docs/DESIGN.md "Atomicity": CPU and MPI atomics do not compose, and osc/rdma's
// MPI_Compare_and_swap crashes here). The initiator sends a request and waits for the reply while
// it drives progress itself (the `progress` step its caller passes in), so two ranks that target
// each other cannot deadlock. The target's progress step (bridge/progress.hpp) pulls requests with
// take(), applies them to its segment with core/atomic_op.hpp, and answers with reply(): this
// layer knows no segments and calls nothing above it. With no asynchronous progress in MPI, a
// target serves requests whenever it is inside a wait of the library (or runs the progress thread).
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/atomic_op.hpp"
#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/replies.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

// The engine's atomic operation (core/atomic_op.hpp) on a word of `segment` at the target.
struct AtomicRequest {
  AtomicOp op;
  std::uint32_t segment;
  std::uint64_t offset;
  std::int32_t reply_tag;
  std::int32_t reserved;
};

// A request comes from another process, so the target checks all of it before it acts: a valid op
// on an aligned word of its width inside a segment of `segment_size` bytes (the segment id is
// checked by the lookup, serve_atomic in bridge/progress.cpp), and a reply tag that the initiator
// can have posted (valid_reply_tag, checked by take()). Fuzzed by tests/fuzz/fuzz_atomic_request.cpp.
[[nodiscard]] constexpr bool valid_atomic_request(const AtomicRequest &request, std::uint64_t segment_size) noexcept {
  if (!valid(request.op))
    return false;
  const std::uint64_t w = width(request.op.type);
  return segment_size >= w && request.offset % w == 0 && request.offset <= segment_size - w;
}

// An atomic request of another rank, taken from MPI by take(), answered by reply().
struct AtomicCall {
  AtomicRequest request;
  MpiRank from; // its initiator
};

class RemoteAtomics {
public:
  void init(Env &env, Replies &replies, const WaitPolicy &wait) noexcept {
    env_ = &env;
    replies_ = &replies;
    wait_ = wait;
  }
  // The target's side. take: one pending request (checked: a known reply tag; the caller checks
  // the word with valid_atomic_request, against the segment it finds); false when none is
  // pending. reply: answers `call` with rc and the word's old value.
  bool take(AtomicCall &call);
  void reply(const AtomicCall &call, gaspi_return_t rc, std::uint64_t old);
  // Runs `request` at `rank`. Exactly once per GASPI_SUCCESS: a call that returns GASPI_TIMEOUT
  // leaves its request in flight as this thread's pending atomic, and the thread's next call with
  // the same rank and request adopts it instead of sending another (see remote_atomics.cpp).
  // `progress` is the caller's progress step, driven while the reply is awaited; `healthy` false
  // (the target died, this rank terminates) gives the request up: GASPI_ERROR, and it may or may
  // not have been applied.
  gaspi_return_t run(MpiRank rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline, Step progress,
                     Step healthy);
  // The split phase, for a front end that keeps several in flight (GASNet-EX's gex_AD_OpNB/NBI):
  // start sends `request` to `rank` with a reply receive posted into `flight`'s buffer (on the heap:
  // the flight may move). test looks once (it drives no progress: the caller's wait does) and, when
  // the reply is in, sets rc and old. No timeout: the flight is the caller's until test returned
  // true or abandon took it.
  struct Flight {
    Replies::Reply reply; // the status and the old value
  };
  gaspi_return_t start(MpiRank rank, AtomicRequest request, Flight &flight);
  bool test(Flight &flight, gaspi_return_t &rc, std::uint64_t &old);
  // A flight given up before its reply came (its owner ended, or the target died): Replies
  // completes or cancels it.
  void abandon(Flight &&flight);
  // gaspi_proc_term: the pending atomics' replies are abandoned (and then cancelled by Replies).
  void term() noexcept;

private:
  // An atomic whose call returned GASPI_TIMEOUT, still in flight: its reply belongs to the retry.
  struct Pending {
    MpiRank rank;
    AtomicRequest request; // reply_tag included
    Replies::Reply flight;
  };
  Env *env_ = nullptr;
  Replies *replies_ = nullptr;
  WaitPolicy wait_;
  // At most one pending atomic per calling thread, keyed by thread (see remote_atomics.cpp for why).
  std::mutex pending_mutex_;
  std::unordered_map<std::thread::id, Pending> pending_;
};

} // namespace hygaspi::mpi
