// Node: failures of node peers (death detection, waits after a death, acknowledged deaths:
// docs/DESIGN.md "Failures") and waiters interrupted by gaspi_proc_term in another thread.
#include "shm/node.hpp"

namespace hygaspi::shm {

void Node::refresh_liveness() noexcept {
  if (job_block_ != nullptr && !solo_)
    watch_.poll(*job_block_, rank_, nranks_);
}

void Node::set_stopping(bool stopping) noexcept {
  stopping_.store(stopping, std::memory_order_seq_cst);
  if (stopping && !peers_.empty() && peers_[rank_].block != nullptr)
    futex_wake_all(my_block().bell);
}

std::uint32_t Node::deaths() const noexcept {
  std::uint32_t n = 0;
  for (std::uint32_t r = 0; r < nranks_; ++r)
    n += alive(NodeIndex{r}) ? 0 : 1;
  return n;
}

bool Node::claim_death_telling(NodeIndex rank) noexcept {
  if (alive(rank) || ends_job(rank)) // a GASNet rank that ended the job: its exit notices say so
    return false;
  std::uint32_t untold = 0;
  return job_block_->slot(rank.value()).death_told.compare_exchange_strong(untold, 1, std::memory_order_acq_rel);
}

bool Node::peer_may_send() const noexcept {
  for (const NodeIndex peer : others_) {
    const auto s = static_cast<RankState>(job_block_->slot(peer.value()).state.load(std::memory_order_acquire));
    if (s != RankState::dead && s != RankState::terminated)
      return true;
  }
  return false;
}

} // namespace hygaspi::shm
