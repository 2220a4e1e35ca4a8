#include "mpi_rma/remote_atomics.hpp"

#include <memory>
#include <optional>
#include <utility>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

bool RemoteAtomics::take(AtomicCall &call) {
  for (;;) {
    auto lock = env_->lock();
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagAtomicRequest);
    if (!p.found)
      return false;
    call = AtomicCall{};
    if (HYGASPI_MPI(MPI_Mrecv(&call.request, sizeof call.request, MPI_BYTE, &p.handle, MPI_STATUS_IGNORE)) !=
            GASPI_SUCCESS ||
        !valid_reply_tag(call.request.reply_tag))
      continue; // malformed (too long, or a tag no initiator posts): nobody to answer
    call.from = MpiRank{p.source};
    return true;
  }
}

void RemoteAtomics::reply(const AtomicCall &call, gaspi_return_t rc, std::uint64_t old) {
  const std::uint64_t reply[2] = {static_cast<std::uint64_t>(static_cast<std::int64_t>(rc)), old};
  auto lock = env_->lock();
  // A failure is logged; the initiator then waits until its deadline.
  (void)HYGASPI_MPI(MPI_Send(reply, 2, MPI_UINT64_T, call.from.value(), call.request.reply_tag, env_->comm()));
}

// Exactly once per successful return (docs/DESIGN.md "Atomicity"). A request that has reached the target
// cannot be recalled: MPI cannot cancel a matched send, and the target applies it as soon as it
// serves it. So a call that runs out of time does not drop its request, it keeps it in flight as
// the calling thread's pending atomic and returns GASPI_TIMEOUT. Spec §10.2.1/§10.2.2: "If the
// procedure returns with GASPI_TIMEOUT, the [...] request could not be completed during the given
// timeout [...]. A subsequent call of gaspi_atomic_fetch_add needs to be invoked in order to
// complete the operation." We read the subsequent call as the completion of the same operation
// (spec §3.11: "The procedure has to be invoked subsequently in order to fully complete the
// operation"), as a collective resumed after GASPI_TIMEOUT continues where it stopped:
// - the thread's next atomic to the same rank with the same op, segment, offset and operands
//   adopts the pending request: it sends nothing and waits for that request's reply (the retry
//   loop `while (fetch_add(..., GASPI_TEST) == GASPI_TIMEOUT)` adds once);
// - a next atomic with other arguments is a different operation: the caller gave up the pending
//   one. It is abandoned, not waited for, so one slow or dead target does not stall unrelated
//   atomics. Since it may already have been applied, it counts as applied once (its old value is
//   discarded, and a warning says so); MPI's non-overtaking order applies it before any later
//   request of this rank to the same target.
// Pending requests are per thread, not per rank: two threads that issue the same atomic are two
// operations (each adds), and a thread can only retry its own call. The map costs one lock per
// remote atomic, beside a round trip of microseconds.
gaspi_return_t RemoteAtomics::run(MpiRank rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline,
                                  Step progress, Step healthy) {
  const std::thread::id self = std::this_thread::get_id();
  std::optional<Pending> flight;
  {
    std::lock_guard guard(pending_mutex_);
    if (auto it = pending_.find(self); it != pending_.end()) {
      Pending &p = it->second;
      if (p.rank == rank && p.request.op == request.op && p.request.segment == request.segment &&
          p.request.offset == request.offset) {
        flight.emplace(std::move(p));
      } else {
        log::warn("an atomic on rank %d (segment %u, offset %lu) that returned GASPI_TIMEOUT was not retried; it "
                  "is applied at the target once, and its old value is discarded",
                  p.rank.value(), p.request.segment, static_cast<unsigned long>(p.request.offset));
        replies_->abandon(std::move(p.flight));
      }
      pending_.erase(it);
    }
  }
  if (!flight) {
    flight.emplace(Pending{rank, request, Replies::Reply{MPI_REQUEST_NULL, std::make_unique<std::uint64_t[]>(2)}});
    auto lock = env_->lock();
    if (const gaspi_return_t rc = replies_->post(rank, ReplyKind::atomic, flight->flight.request,
                                                 flight->flight.words.get(), 2, MPI_UINT64_T, request.reply_tag);
        rc != GASPI_SUCCESS)
      return rc;
    flight->request.reply_tag = request.reply_tag;
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Send(&request, sizeof request, MPI_BYTE, rank.value(), kTagAtomicRequest, env_->comm()));
        rc != GASPI_SUCCESS) {
      replies_->cancel(flight->flight.request);
      return rc;
    }
  }
  // The engine serves others before its first look: with GASPI_TEST that is the only step of the
  // call, and two ranks that retry atomics on each other must still serve each other.
  bool failed = false;
  auto replied = [&] { return replies_->test(flight->flight.request, failed); };
  const gaspi_return_t rc = wait_until(replied, deadline, wait_, progress, Nap{}, healthy);
  if (rc == GASPI_ERROR && !failed) {
    log::error("rank %d died, or gaspi_proc_term began here, before the atomic was answered", rank.value());
    replies_->abandon(std::move(flight->flight)); // a late reply lands in its buffer, kept until then
    return GASPI_ERROR;
  }
  if (rc == GASPI_TIMEOUT) {
    // Still in flight: the reply buffer stays alive with it, and the retry adopts it.
    std::lock_guard guard(pending_mutex_);
    pending_.insert_or_assign(self, std::move(*flight));
    return GASPI_TIMEOUT;
  }
  if (failed)
    return GASPI_ERROR; // MPI_Test said why; MPI will not complete the reply any more
  old = flight->flight.words[1];
  return static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight->flight.words[0]));
}

gaspi_return_t RemoteAtomics::start(MpiRank rank, AtomicRequest request, Flight &flight) {
  flight.reply.words = std::make_unique<std::uint64_t[]>(2);
  auto lock = env_->lock();
  if (const gaspi_return_t rc = replies_->post(rank, ReplyKind::atomic, flight.reply.request, flight.reply.words.get(),
                                               2, MPI_UINT64_T, request.reply_tag);
      rc != GASPI_SUCCESS)
    return rc;
  if (const gaspi_return_t rc =
          HYGASPI_MPI(MPI_Send(&request, sizeof request, MPI_BYTE, rank.value(), kTagAtomicRequest, env_->comm()));
      rc != GASPI_SUCCESS) {
    replies_->cancel(flight.reply.request);
    return rc;
  }
  return GASPI_SUCCESS;
}

bool RemoteAtomics::test(Flight &flight, gaspi_return_t &rc, std::uint64_t &old) {
  bool failed = false;
  if (!replies_->test(flight.reply.request, failed))
    return false;
  rc = failed ? GASPI_ERROR : static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight.reply.words[0]));
  old = flight.reply.words[1];
  return true;
}

void RemoteAtomics::abandon(Flight &&flight) {
  replies_->abandon(std::move(flight.reply)); // the reply buffer is MPI's until the reply is in
  flight.reply.request = MPI_REQUEST_NULL;
}

void RemoteAtomics::term() noexcept {
  std::lock_guard guard(pending_mutex_);
  for (auto &entry : pending_)
    replies_->abandon(std::move(entry.second.flight));
  pending_.clear();
}

} // namespace hygaspi::mpi
