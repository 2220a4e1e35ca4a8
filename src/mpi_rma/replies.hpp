// The replies of requests that their target answers (remote atomics, device transfers, kills). An
// initiator posts the receive of its reply on a fresh reply tag before it sends the request, so the
// answer can never arrive unmatched. MPI owns a posted receive's buffer until it completes: a reply
// whose wait ended early (a timeout, a dead target) is abandoned here, the progress step completes
// it when it comes, and term cancels what is left, so that nothing of one MPI session is matched
// after a later start.
//
// Reply tags wrap, so an abandoned receive can share its tag with a later request's to the same
// target. Each kind of request (ReplyKind) has its own range of tags and each target its own
// count: a target serves one kind's requests of one initiator in the order they came (MPI lets no
// message overtake an earlier one between the same pair; one thread at a time serves each kind,
// bridge/progress.cpp and device_rma.cpp) and answers each (an error status included), so the
// older answer completes the older receive, which MPI matches first. Only a target that never
// answers (it died) leaves a receive behind, and every later request to it fails on its health
// check. A shared count let an atomic abandoned at a slow target meet a device transfer's answer
// to that target (served first within a progress step) 8192 requests to anyone later.
#pragma once
#include <GASPI.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/ranks.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

// The kinds of requests with replies, each with its share of the reply tags.
enum class ReplyKind : unsigned { atomic = 0, device = 1, kill = 2 };
inline constexpr unsigned kReplyKinds = 3;

class Replies {
public:
  // A reply's receive and the buffer it lands in.
  struct Reply {
    MPI_Request request = MPI_REQUEST_NULL;
    std::unique_ptr<std::uint64_t[]> words;
  };

  void init(Env &env);
  // Posts the receive of a reply of `count` elements of `type` from `rank` into `buffer`, on the
  // next reply tag of `kind` for `rank` (set in `tag`). The caller holds the MPI lock.
  gaspi_return_t post(MpiRank rank, ReplyKind kind, MPI_Request &request, void *buffer, int count, MPI_Datatype type,
                      std::int32_t &tag);
  // One look at a reply's receive (Env::test).
  bool test(MPI_Request &request, bool &failed) { return env_->test(request, failed); }
  // Withdraws a posted receive whose request could not be sent. The caller holds the MPI lock.
  void cancel(MPI_Request &receive);
  // A reply whose wait ended before it came: drained by complete_abandoned(), cancelled at term.
  void abandon(Reply &&reply);
  [[nodiscard]] bool abandoned() const noexcept { return abandoned_count_.load(std::memory_order_acquire) != 0; }
  // Completes the abandoned replies that came (part of the progress step).
  void complete_abandoned();
  // Cancels every abandoned reply (gaspi_proc_term).
  void term() noexcept;

private:
  Env *env_ = nullptr;
  std::unique_ptr<std::atomic<std::uint32_t>[]> next_; // per target and kind
  // A power of two, so that a count that wraps at 2^32 goes on without a jump in its tags.
  static constexpr std::int32_t kTagsPerKind = 2048;
  static_assert(kTagsPerKind * kReplyKinds <= kReplyTags);
  std::mutex mutex_;
  std::vector<Reply> abandoned_;
  // abandoned_.size(), written under mutex_: every progress step reads it, and takes no lock.
  std::atomic<std::size_t> abandoned_count_{0};
};

} // namespace hygaspi::mpi
