#include "mpi_rma/control.hpp"

#include <csignal>
#include <memory>
#include <unistd.h>
#include <utility>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "mpi_rma/notices.hpp"

namespace hygaspi::mpi {

// A node peer's pid can be signalled; a rank of another node is asked to signal itself. The
// acknowledgement is a synchronous send: once it completes the killer has it, so the killer's
// GASPI_SUCCESS never depends on a message that the SIGKILL could have cut off.
void Control::serve_kill() {
  auto lock = env_->lock();
  Probed p = env_->probe(MPI_ANY_SOURCE, kTagKill);
  if (!p.found)
    return;
  std::int32_t reply_tag = 0;
  if (HYGASPI_MPI(MPI_Mrecv(&reply_tag, 1, MPI_INT32_T, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS ||
      !valid_reply_tag(reply_tag))
    return; // malformed: nobody to answer, and no reason to die
  log::debug("rank %d asked this rank to end", p.source);
  std::uint64_t reply[2] = {static_cast<std::uint64_t>(GASPI_SUCCESS), 0};
  if (HYGASPI_MPI(MPI_Ssend(reply, 2, MPI_UINT64_T, p.source, reply_tag, env_->comm())) != GASPI_SUCCESS)
    return;                    // the killer cannot learn of it: it times out, and may ask again
  ::kill(::getpid(), SIGKILL); // as a node peer's gaspi_proc_kill does
}

void Control::mark_dead(MpiRank rank) noexcept {
  dead_[static_cast<std::size_t>(rank.value())].store(true, std::memory_order_release);
}

void Control::tell_death(MpiRank dead, std::span<const MpiRank> to) {
  const std::int32_t &notice = keep_until_exit(static_cast<std::int32_t>(dead.value()));
  auto lock = env_->lock();
  send_notice(env_->comm(), kTagDeath, &notice, 1, MPI_INT32_T, to, MpiRank{env_->rank()});
}

bool Control::take_death_notices() {
  bool took = false;
  auto lock = env_->lock();
  for (;;) {
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagDeath);
    if (!p.found)
      return took;
    std::int32_t dead = -1; // a matched probe: no other thread can take this message
    if (HYGASPI_MPI(MPI_Mrecv(&dead, 1, MPI_INT32_T, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
      return took;
    took = true;
    if (dead < 0 || dead >= env_->size() || dead == env_->rank())
      continue; // malformed, or about this rank, which lives: nothing to learn
    if (!dead_[static_cast<std::size_t>(dead)].exchange(true, std::memory_order_acq_rel))
      log::warn("rank %d reports that rank %d died", p.source, dead);
  }
}

int Control::incoming() {
  auto lock = env_->lock();
  int pending = 0;
  MPI_Status status;
  if (HYGASPI_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, env_->comm(), &pending, &status)) != GASPI_SUCCESS)
    return kAnyTag; // logged; the full step looks for itself
  if (pending == 0)
    return kNoMessage;
  return (status.MPI_TAG >= kTagAtomicRequest && status.MPI_TAG <= kTagKill) || status.MPI_TAG == kTagCredit ||
                 status.MPI_TAG == kTagDeviceRequest || status.MPI_TAG == kTagDeath
             ? status.MPI_TAG
             : kAnyTag;
}

bool Control::progress(int tag) {
  if (tag == kAnyTag || tag == kTagKill)
    serve_kill();
  bool took = (tag == kAnyTag || tag == kTagDeath) && take_death_notices();
  took |= (tag == kAnyTag || tag == kTagPassive) && messages_.drain();
  if (tag == kAnyTag || tag == kTagCredit)
    took |= messages_.take_credits();
  if (messages_.credits_sending())
    messages_.complete_credits();
  replies_.complete_abandoned();
  return took;
}

gaspi_return_t Control::kill(MpiRank rank, const Deadline &deadline, Step progress) {
  Replies::Reply flight{MPI_REQUEST_NULL, std::make_unique<std::uint64_t[]>(2)};
  {
    auto lock = env_->lock();
    std::int32_t reply_tag = 0;
    if (const gaspi_return_t rc =
            replies_.post(rank, ReplyKind::kill, flight.request, flight.words.get(), 2, MPI_UINT64_T, reply_tag);
        rc != GASPI_SUCCESS)
      return rc;
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Send(&reply_tag, 1, MPI_INT32_T, rank.value(), kTagKill, env_->comm()));
        rc != GASPI_SUCCESS) {
      replies_.cancel(flight.request);
      return rc;
    }
  }
  bool failed = false;
  auto acknowledged = [&] { return replies_.test(flight.request, failed); };
  const gaspi_return_t rc = wait_until(acknowledged, deadline, wait_, progress, Nap{}, kAlwaysHealthy);
  if (rc == GASPI_TIMEOUT) {
    // The target has not taken it yet; it will when it next makes progress. Its acknowledgement
    // is drained like an abandoned atomic's reply.
    replies_.abandon(std::move(flight));
    return GASPI_TIMEOUT;
  }
  if (failed)
    return GASPI_ERROR;
  mark_dead(rank);
  return GASPI_SUCCESS;
}

void Control::term() noexcept {
  if (env_ == nullptr)
    return;
  atomics_.term(); // the pending atomics' replies join the abandoned ones
  replies_.term();
  messages_.term();
}

} // namespace hygaspi::mpi
