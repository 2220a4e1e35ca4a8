#include "mpi_rma/replies.hpp"

#include <utility>

#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

void Replies::init(Env &env) {
  env_ = &env;
  next_ = std::make_unique<std::atomic<std::uint32_t>[]>(static_cast<std::size_t>(env.size()) * kReplyKinds);
}

gaspi_return_t Replies::post(MpiRank rank, ReplyKind kind, MPI_Request &request, void *buffer, int count,
                             MPI_Datatype type, std::int32_t &tag) {
  const auto k = static_cast<unsigned>(kind);
  std::atomic<std::uint32_t> &next = next_[static_cast<std::size_t>(rank.value()) * kReplyKinds + k];
  tag = kTagReply + static_cast<std::int32_t>(k) * kTagsPerKind +
        static_cast<std::int32_t>(next.fetch_add(1, std::memory_order_relaxed) % kTagsPerKind);
  return HYGASPI_MPI(MPI_Irecv(buffer, count, type, rank.value(), tag, env_->comm(), &request));
}

void Replies::cancel(MPI_Request &receive) {
  (void)HYGASPI_MPI(MPI_Cancel(&receive));
  (void)HYGASPI_MPI(MPI_Request_free(&receive));
}

void Replies::abandon(Reply &&reply) {
  std::lock_guard lock(mutex_);
  abandoned_.push_back(std::move(reply));
  abandoned_count_.store(abandoned_.size(), std::memory_order_release);
}

void Replies::complete_abandoned() {
  std::lock_guard abandon(mutex_);
  if (abandoned_.empty())
    return;
  auto lock = env_->lock();
  std::erase_if(abandoned_, [](Reply &a) {
    int done = 0;
    // A failed test is logged, and the reply is dropped: MPI will not complete it any more.
    return HYGASPI_MPI(MPI_Test(&a.request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS || done != 0;
  });
  abandoned_count_.store(abandoned_.size(), std::memory_order_release);
}

void Replies::term() noexcept {
  std::vector<Reply> left;
  {
    std::lock_guard abandon(mutex_);
    left.swap(abandoned_);
    abandoned_count_.store(0, std::memory_order_release);
  }
  auto lock = env_->lock();
  for (auto &a : left) {
    // A receive is always cancellable; if its reply came first, the wait just completes it.
    (void)HYGASPI_MPI(MPI_Cancel(&a.request));
    (void)HYGASPI_MPI(MPI_Wait(&a.request, MPI_STATUS_IGNORE));
  }
}

} // namespace hygaspi::mpi
