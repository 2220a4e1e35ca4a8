#include "mpi_rma/messages.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

namespace {
// Propagates a failed status (what gaspi/checks.hpp's HYGASPI_TRY does a layer up).
#define MESSAGES_TRY(expr)                                                                                             \
  do {                                                                                                                 \
    if (const gaspi_return_t messages_rc_ = (expr); messages_rc_ != GASPI_SUCCESS)                                     \
      return messages_rc_;                                                                                             \
  } while (0)
} // namespace

void Messages::open_am_boxes() {
  // A failure is logged; the messages then wait in MPI, and their senders' sends complete as
  // MPI's buffering allows.
  (void)eager_.open(*env_, {EagerReceives::Tags{kTagAmRequestEager, kTagAmRequest},
                            EagerReceives::Tags{kTagAmReplyEager, kTagAmReply}});
}

bool Messages::drain() {
  // One drainer at a time: two threads that each match a message of the same sender could queue
  // them out of order.
  std::lock_guard box(mailbox_mutex_);
  bool took = false;
  for (;;) {
    auto lock = env_->lock();
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagPassive);
    if (!p.found)
      return took;
    Message m{p.source, std::vector<char>(static_cast<std::size_t>(p.bytes))};
    if (HYGASPI_MPI(MPI_Mrecv(m.data.data(), p.bytes, MPI_BYTE, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
      continue; // logged (a truncation too); nothing to deliver
    mailbox_.push(std::move(m));
    took = true;
  }
}

bool Messages::take_passive(Message &out) {
  drain();
  {
    std::lock_guard lock(mailbox_mutex_);
    if (!mailbox_.pop(out))
      return false;
  }
  handled(MpiRank{out.from}, Box::passive, out.data.size());
  return true;
}

void Messages::handled(MpiRank rank, Box box, std::uint64_t size) {
  const unsigned lane = static_cast<unsigned>(box);
  if (!credits_.valid(rank, lane))
    return;
  const std::uint64_t total = credits_.handled(rank, lane, Credits::cost(size));
  if (total == 0)
    return;
  auto send = std::make_unique<CreditSend>();
  send->payload[0] = lane;
  send->payload[1] = total;
  std::lock_guard guard(credit_mutex_);
  auto lock = env_->lock();
  complete_credit_sends();
  // A failure is logged; the sender then waits for the next report, or its peer's death.
  if (HYGASPI_MPI(MPI_Isend(send->payload, 2, MPI_UINT64_T, rank.value(), kTagCredit, env_->comm(), &send->request)) !=
      GASPI_SUCCESS)
    return;
  credit_sending_.push_back(std::move(send));
  credit_sends_.store(credit_sending_.size(), std::memory_order_release);
}

void Messages::complete_credit_sends() {
  std::erase_if(credit_sending_, [](std::unique_ptr<CreditSend> &c) {
    int done = 0;
    return HYGASPI_MPI(MPI_Test(&c->request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS || done != 0;
  });
  credit_sends_.store(credit_sending_.size(), std::memory_order_release);
}

bool Messages::take_credits() {
  bool took = false;
  for (;;) {
    auto lock = env_->lock();
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagCredit);
    if (!p.found)
      return took;
    std::uint64_t payload[2] = {0, 0};
    if (HYGASPI_MPI(MPI_Mrecv(payload, 2, MPI_UINT64_T, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS ||
        payload[0] >= Credits::kLanes || !credits_.valid(MpiRank{p.source}, static_cast<unsigned>(payload[0])))
      continue; // logged, or malformed: nothing to credit
    credits_.returned(MpiRank{p.source}, static_cast<unsigned>(payload[0]), payload[1]);
    took = true;
  }
}

gaspi_return_t Messages::send(MpiRank rank, Box box, const void *data, std::uint64_t size, const Deadline &deadline,
                              Step progress, Step alive, Step serve) {
  auto healthy = [&] { return !alive.active() || alive(); };
  // Credits first (credits.hpp): nothing is sent until the receiver has room for it, so a
  // GASPI_TIMEOUT here has sent nothing. The wait serves this rank's own lanes: the ranks whose
  // credits it waits for may be waiting for ours.
  const unsigned lane = static_cast<unsigned>(box);
  const std::uint64_t units = Credits::cost(size);
  if (!credits_.reserve(rank, lane, units)) {
    auto granted = [&] { return credits_.reserve(rank, lane, units); };
    if (const gaspi_return_t rc =
            wait_until(granted, deadline, wait_, serve.active() ? serve : progress, Nap{}, healthy);
        rc != GASPI_SUCCESS)
      return rc;
  }
  if (box != Box::passive && size > EagerReceives::kEagerBytes)
    return send_am_large(rank, box, data, size, progress, alive);
  MPI_Request send;
  bool failed = false;
  {
    auto lock = env_->lock();
    // Complete once the target's MPI holds it.
    const int tag = box == Box::passive ? kTagPassive : box == Box::am_request ? kTagAmRequestEager : kTagAmReplyEager;
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Isend(data, static_cast<int>(size), MPI_BYTE, rank.value(), tag, env_->comm(), &send));
        rc != GASPI_SUCCESS) {
      credits_.unreserve(rank, lane, units);
      return rc;
    }
    // An eager message is mostly delivered at once: one look under the same lock, before the wait,
    // which would first drive a whole progress step (a probe and the eager receives' test).
    int done = 0;
    if (HYGASPI_MPI(MPI_Test(&send, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
      return GASPI_ERROR; // logged; MPI holds the request no longer
    if (done != 0)
      return GASPI_SUCCESS;
  }
  auto delivered = [&] { return env_->test(send, failed); };
  if (const gaspi_return_t rc = wait_until(delivered, deadline, wait_, progress, Nap{}, healthy); rc != GASPI_TIMEOUT)
    return failed ? GASPI_ERROR : rc;
  auto lock = env_->lock();
  MPI_Status status;
  MESSAGES_TRY(HYGASPI_MPI(MPI_Cancel(&send)));
  MESSAGES_TRY(HYGASPI_MPI(MPI_Wait(&send, &status)));
  int cancelled = 0;
  MESSAGES_TRY(HYGASPI_MPI(MPI_Test_cancelled(&status, &cancelled)));
  if (!cancelled)
    return GASPI_SUCCESS;                // it was delivered
  credits_.unreserve(rank, lane, units); // never delivered, never reported
  return GASPI_TIMEOUT;
}

// The message on the lane's large tag, then an empty one on its eager tag that announces it (its
// place in the order: eager.hpp). Not cancellable once the announcement may have been matched, so
// it waits without a deadline, until the target takes the message in its progress step or is
// known dead (GASPI_ERROR: the caller reports the loss).
gaspi_return_t Messages::send_am_large(MpiRank rank, Box box, const void *data, std::uint64_t size, Step progress,
                                       Step alive) {
  const bool request = box == Box::am_request;
  std::array<MPI_Request, 2> sends{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  {
    auto lock = env_->lock();
    MESSAGES_TRY(HYGASPI_MPI(MPI_Isend(data, static_cast<int>(size), MPI_BYTE, rank.value(),
                                       request ? kTagAmRequest : kTagAmReply, env_->comm(), &sends[0])));
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Isend(nullptr, 0, MPI_BYTE, rank.value(), request ? kTagAmRequestEager : kTagAmReplyEager,
                                  env_->comm(), &sends[1]));
        rc != GASPI_SUCCESS) {
      // Nothing announces it: withdraw the message (the target never takes an unannounced one).
      (void)HYGASPI_MPI(MPI_Cancel(&sends[0]));
      (void)HYGASPI_MPI(MPI_Wait(&sends[0], MPI_STATUS_IGNORE));
      return rc;
    }
  }
  bool failed = false;
  auto delivered = [&] { return env_->test(sends[0], failed) && env_->test(sends[1], failed); };
  auto healthy = [&] { return !alive.active() || alive(); };
  const gaspi_return_t rc = wait_until(delivered, Deadline(GASPI_BLOCK), wait_, progress, Nap{}, healthy);
  return failed ? GASPI_ERROR : rc;
}

void Messages::complete_credits() {
  std::lock_guard guard(credit_mutex_);
  auto lock = env_->lock();
  complete_credit_sends();
}

void Messages::term() noexcept {
  {
    // Credit messages still in MPI's hands keep their buffers (a few bytes each, leaked): a send
    // to a peer that is gone may never complete, and nothing of this session is reported later.
    std::lock_guard guard(credit_mutex_);
    auto lock = env_->lock();
    complete_credit_sends();
    for (auto &c : credit_sending_) {
      (void)HYGASPI_MPI(MPI_Request_free(&c->request));
      (void)c.release();
    }
    credit_sending_.clear();
    credit_sends_.store(0, std::memory_order_release);
  }
  // The mailbox after the MPI lock, never inside it: drain() takes them in the other order.
  eager_.close();
  std::lock_guard box(mailbox_mutex_);
  mailbox_.clear(); // nothing of this MPI session is delivered after a later start
}

} // namespace hygaspi::mpi
