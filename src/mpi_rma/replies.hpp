// The replies of requests that their target answers (remote atomics, device transfers, kills). An
// initiator posts the receive of its reply on a fresh reply tag before it sends the request, so the
// answer can never arrive unmatched. MPI owns a posted receive's buffer until it completes: a reply
// whose wait ended early (a timeout, a dead target) is abandoned here, the progress step completes
// it when it comes, and term cancels what is left, so that nothing of one MPI session is matched
// after a later start.
//
// Reply tags wrap after kReplyTags requests, so an abandoned receive can share its tag with a
// later request's to the same target. That is safe: a target answers every request it takes
// (an error status included) in the order it took them, and MPI neither lets a message overtake
// an earlier one between the same pair nor matches a receive posted later first, so the older
// answer completes the older receive. Only a target that never answers (it died) leaves a receive
// behind, and then every later request to it fails on its health check anyway.
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

class Replies {
public:
  // A reply's receive and the buffer it lands in.
  struct Reply {
    MPI_Request request = MPI_REQUEST_NULL;
    std::unique_ptr<std::uint64_t[]> words;
  };

  void init(Env &env) noexcept { env_ = &env; }
  // Posts the receive of a reply of `count` elements of `type` from `rank` into `buffer`, on a fresh
  // reply tag (set in `tag`). The caller holds the MPI lock.
  gaspi_return_t post(MpiRank rank, MPI_Request &request, void *buffer, int count, MPI_Datatype type,
                      std::int32_t &tag);
  // One look at a reply's receive (Env::test).
  bool test(MPI_Request &request, bool &failed) { return env_->test(request, failed); }
  // Withdraws a posted receive whose request could not be sent. The caller holds the MPI lock.
  void cancel(MPI_Request &receive);
  // A reply whose wait ended before it came: drained by complete_abandoned(), cancelled at term.
  void abandon(Reply &&reply);
  [[nodiscard]] bool abandoned() {
    std::lock_guard lock(mutex_);
    return !abandoned_.empty();
  }
  // Completes the abandoned replies that came (part of the progress step).
  void complete_abandoned();
  // Cancels every abandoned reply (gaspi_proc_term).
  void term() noexcept;

private:
  Env *env_ = nullptr;
  std::atomic<std::uint32_t> next_{0};
  std::mutex mutex_;
  std::vector<Reply> abandoned_;
};

} // namespace hygaspi::mpi
