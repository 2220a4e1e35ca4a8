#include "mpi_rma/control.hpp"

#include <csignal>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

namespace {
// Propagates a failed status (what gaspi/checks.hpp's HYGASPI_TRY does a layer up).
#define CONTROL_TRY(expr)                                                                                              \
  do {                                                                                                                 \
    if (const gaspi_return_t control_rc_ = (expr); control_rc_ != GASPI_SUCCESS)                                       \
      return control_rc_;                                                                                              \
  } while (0)
} // namespace

void Control::open_am_boxes() {
  // A failure is logged; the messages then wait in MPI, and their senders' sends complete as
  // MPI's buffering allows.
  (void)eager_.open(*env_, {EagerReceives::Tags{kTagAmRequestEager, kTagAmRequest},
                            EagerReceives::Tags{kTagAmReplyEager, kTagAmReply}});
}

bool Control::drain() {
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

bool Control::take_passive(Message &out) {
  drain();
  {
    std::lock_guard lock(mailbox_mutex_);
    if (!mailbox_.pop(out))
      return false;
  }
  handled(MpiRank{out.from}, Box::passive, out.data.size());
  return true;
}

void Control::handled(MpiRank rank, Box box, std::uint64_t size) {
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

void Control::complete_credit_sends() {
  std::erase_if(credit_sending_, [](std::unique_ptr<CreditSend> &c) {
    int done = 0;
    return HYGASPI_MPI(MPI_Test(&c->request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS || done != 0;
  });
  credit_sends_.store(credit_sending_.size(), std::memory_order_release);
}

bool Control::take_credits() {
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

int Control::incoming() {
  auto lock = env_->lock();
  int pending = 0;
  MPI_Status status;
  if (HYGASPI_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, env_->comm(), &pending, &status)) != GASPI_SUCCESS)
    return kAnyTag; // logged; the full step looks for itself
  if (pending == 0)
    return kNoMessage;
  return (status.MPI_TAG >= kTagAtomicRequest && status.MPI_TAG <= kTagKill) || status.MPI_TAG == kTagCredit ||
                 status.MPI_TAG == kTagDeviceRequest
             ? status.MPI_TAG
             : kAnyTag;
}

bool Control::progress(int tag) {
  if (tag == kAnyTag || tag == kTagKill)
    serve_kill();
  bool took = (tag == kAnyTag || tag == kTagPassive) && drain();
  if (tag == kAnyTag || tag == kTagCredit)
    took |= take_credits();
  if (credit_sends_.load(std::memory_order_acquire) != 0) {
    std::lock_guard guard(credit_mutex_);
    auto lock = env_->lock();
    complete_credit_sends();
  }
  std::lock_guard abandon(abandoned_mutex_);
  auto lock = env_->lock();
  std::erase_if(abandoned_, [](Abandoned &a) {
    int done = 0;
    // A failed test is logged, and the reply is dropped: MPI will not complete it any more.
    return HYGASPI_MPI(MPI_Test(&a.request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS || done != 0;
  });
  return took;
}

bool Control::take_atomic(AtomicCall &call) {
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

void Control::reply(const AtomicCall &call, gaspi_return_t rc, std::uint64_t old) {
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
gaspi_return_t Control::atomic(MpiRank rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline,
                               Step progress) {
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
        std::lock_guard abandon(abandoned_mutex_);
        abandoned_.push_back(std::move(p.flight));
      }
      pending_.erase(it);
    }
  }
  if (!flight) {
    flight.emplace(Pending{rank, request, Abandoned{MPI_REQUEST_NULL, std::make_unique<std::uint64_t[]>(2)}});
    auto lock = env_->lock();
    CONTROL_TRY(post_reply(rank, flight->flight.request, flight->flight.reply.get(), request.reply_tag));
    flight->request.reply_tag = request.reply_tag;
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Send(&request, sizeof request, MPI_BYTE, rank.value(), kTagAtomicRequest, env_->comm()));
        rc != GASPI_SUCCESS) {
      cancel(flight->flight.request);
      return rc;
    }
  }
  // The engine serves others before its first look: with GASPI_TEST that is the only step of the
  // call, and two ranks that retry atomics on each other must still serve each other.
  bool failed = false;
  auto replied = [&] { return test(flight->flight.request, failed); };
  const gaspi_return_t rc = wait_until(replied, deadline, wait_, progress, Nap{}, kAlwaysHealthy);
  if (rc == GASPI_TIMEOUT) {
    // Still in flight: the reply buffer stays alive with it, and the retry adopts it.
    std::lock_guard guard(pending_mutex_);
    pending_.insert_or_assign(self, std::move(*flight));
    return GASPI_TIMEOUT;
  }
  if (failed)
    return GASPI_ERROR; // MPI_Test said why; MPI will not complete the reply any more
  old = flight->flight.reply[1];
  return static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight->flight.reply[0]));
}

gaspi_return_t Control::start_atomic(MpiRank rank, AtomicRequest request, Flight &flight) {
  auto lock = env_->lock();
  CONTROL_TRY(post_reply(rank, flight.request, flight.reply, request.reply_tag));
  if (const gaspi_return_t rc =
          HYGASPI_MPI(MPI_Send(&request, sizeof request, MPI_BYTE, rank.value(), kTagAtomicRequest, env_->comm()));
      rc != GASPI_SUCCESS) {
    cancel(flight.request);
    return rc;
  }
  return GASPI_SUCCESS;
}

gaspi_return_t Control::start_device(MpiRank rank, DeviceRequest request, const void *bytes, DeviceFlight &flight) {
  const std::uint64_t sent = device_message_bytes(request) - sizeof request;
  flight.got = request.staging == 0 && request.put == 0 ? request.size : 0;
  flight.reply = std::make_unique<std::uint64_t[]>(2 + (flight.got + 7) / 8);
  alignas(8) char message[sizeof request + kDeviceInline];
  auto lock = env_->lock();
  request.reply_tag = kTagReply + static_cast<std::int32_t>(next_reply_.fetch_add(1) % kReplyTags);
  std::memcpy(message, &request, sizeof request);
  if (sent != 0)
    std::memcpy(message + sizeof request, bytes, sent);
  CONTROL_TRY(HYGASPI_MPI(MPI_Irecv(flight.reply.get(), static_cast<int>(2 * sizeof(std::uint64_t) + flight.got),
                                    MPI_BYTE, rank.value(), request.reply_tag, env_->comm(), &flight.request)));
  // Short (kDeviceInline): the send completes without the target.
  if (const gaspi_return_t rc = HYGASPI_MPI(MPI_Send(message, static_cast<int>(sizeof request + sent), MPI_BYTE,
                                                     rank.value(), kTagDeviceRequest, env_->comm()));
      rc != GASPI_SUCCESS) {
    cancel(flight.request);
    return rc;
  }
  return GASPI_SUCCESS;
}

bool Control::test_device(DeviceFlight &flight, gaspi_return_t &rc, void *bytes) {
  bool failed = false;
  if (!test(flight.request, failed))
    return false;
  rc = failed ? GASPI_ERROR : static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight.reply[0]));
  if (rc == GASPI_SUCCESS && flight.got != 0)
    std::memcpy(bytes, flight.reply.get() + 2, flight.got);
  return true;
}

void Control::abandon_device(DeviceFlight &&flight) {
  // The reply buffer belongs to MPI until the reply is in.
  std::lock_guard abandon(abandoned_mutex_);
  abandoned_.push_back(Abandoned{flight.request, std::move(flight.reply)});
  flight.request = MPI_REQUEST_NULL;
}

gaspi_return_t Control::device_transfer(MpiRank rank, DeviceRequest request, void *bytes, Step progress, Step alive) {
  DeviceFlight flight;
  CONTROL_TRY(start_device(rank, request, bytes, flight));
  gaspi_return_t rc = GASPI_ERROR;
  auto replied = [&] { return test_device(flight, rc, bytes); };
  if (wait_until(replied, Deadline(GASPI_BLOCK), wait_, progress, Nap{}, alive) != GASPI_SUCCESS) {
    abandon_device(std::move(flight));
    return GASPI_ERROR;
  }
  return rc;
}

bool Control::take_device(DeviceCall &call) {
  for (;;) {
    auto lock = env_->lock();
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagDeviceRequest);
    if (!p.found)
      return false;
    alignas(8) char message[sizeof(DeviceRequest) + kDeviceInline];
    call.request = DeviceRequest{};
    // A longer message fails the receive (truncated, logged); a shorter one fails the check.
    const auto bytes = static_cast<std::uint64_t>(std::max(p.bytes, 0));
    if (HYGASPI_MPI(MPI_Mrecv(message, sizeof message, MPI_BYTE, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS ||
        bytes < sizeof call.request)
      continue; // malformed: nobody to answer
    std::memcpy(&call.request, message, sizeof call.request);
    if (!valid_device_request(call.request, bytes))
      continue;
    std::memcpy(call.bytes, message + sizeof call.request, bytes - sizeof call.request);
    call.from = MpiRank{p.source};
    return true;
  }
}

void Control::reply_device(const DeviceCall &call, gaspi_return_t rc) {
  alignas(8) char reply[2 * sizeof(std::uint64_t) + kDeviceInline];
  const std::uint64_t words[2] = {static_cast<std::uint64_t>(static_cast<std::int64_t>(rc)), 0};
  std::memcpy(reply, words, sizeof words);
  const DeviceRequest &q = call.request;
  const std::uint64_t n = rc == GASPI_SUCCESS && q.staging == 0 && q.put == 0 ? q.size : 0;
  std::memcpy(reply + sizeof words, call.bytes, n);
  auto lock = env_->lock();
  // A failure is logged; the initiator then waits until it sees this rank dead.
  (void)HYGASPI_MPI(
      MPI_Send(reply, static_cast<int>(sizeof words + n), MPI_BYTE, call.from.value(), q.reply_tag, env_->comm()));
}

bool Control::test_atomic(Flight &flight, gaspi_return_t &rc, std::uint64_t &old) {
  bool failed = false;
  if (!test(flight.request, failed))
    return false;
  rc = failed ? GASPI_ERROR : static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight.reply[0]));
  old = flight.reply[1];
  return true;
}

bool Control::test(MPI_Request &request, bool &failed) {
  int done = 0;
  auto lock = env_->lock();
  if (HYGASPI_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
    failed = true;
  return done != 0 || failed;
}

void Control::cancel(MPI_Request &receive) {
  (void)HYGASPI_MPI(MPI_Cancel(&receive));
  (void)HYGASPI_MPI(MPI_Request_free(&receive));
}

gaspi_return_t Control::post_reply(MpiRank rank, MPI_Request &receive, std::uint64_t *reply, std::int32_t &tag) {
  tag = kTagReply + static_cast<std::int32_t>(next_reply_.fetch_add(1) % kReplyTags);
  return HYGASPI_MPI(MPI_Irecv(reply, 2, MPI_UINT64_T, rank.value(), tag, env_->comm(), &receive));
}

gaspi_return_t Control::kill(MpiRank rank, const Deadline &deadline, Step progress) {
  Abandoned flight{MPI_REQUEST_NULL, std::make_unique<std::uint64_t[]>(2)};
  {
    auto lock = env_->lock();
    std::int32_t reply_tag = 0;
    CONTROL_TRY(post_reply(rank, flight.request, flight.reply.get(), reply_tag));
    if (const gaspi_return_t rc =
            HYGASPI_MPI(MPI_Send(&reply_tag, 1, MPI_INT32_T, rank.value(), kTagKill, env_->comm()));
        rc != GASPI_SUCCESS) {
      cancel(flight.request);
      return rc;
    }
  }
  bool failed = false;
  auto acknowledged = [&] { return test(flight.request, failed); };
  const gaspi_return_t rc = wait_until(acknowledged, deadline, wait_, progress, Nap{}, kAlwaysHealthy);
  if (rc == GASPI_TIMEOUT) {
    // The target has not taken it yet; it will when it next makes progress. Its acknowledgement
    // is drained like an abandoned atomic's reply.
    std::lock_guard abandon(abandoned_mutex_);
    abandoned_.push_back(std::move(flight));
    return GASPI_TIMEOUT;
  }
  return failed ? GASPI_ERROR : GASPI_SUCCESS;
}

void Control::term() noexcept {
  if (env_ == nullptr)
    return;
  std::vector<Abandoned> left;
  {
    std::lock_guard guard(pending_mutex_);
    for (auto &entry : pending_)
      left.push_back(std::move(entry.second.flight));
    pending_.clear();
  }
  {
    std::lock_guard abandon(abandoned_mutex_);
    for (auto &a : abandoned_)
      left.push_back(std::move(a));
    abandoned_.clear();
  }
  {
    auto lock = env_->lock();
    for (auto &a : left) {
      // A receive is always cancellable; if its reply came first, the wait just completes it.
      (void)HYGASPI_MPI(MPI_Cancel(&a.request));
      (void)HYGASPI_MPI(MPI_Wait(&a.request, MPI_STATUS_IGNORE));
    }
  }
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

gaspi_return_t Control::send(MpiRank rank, Box box, const void *data, std::uint64_t size, const Deadline &deadline,
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
  }
  bool failed = false;
  auto delivered = [&] { return test(send, failed); };
  // An eager message is mostly delivered at once: one look before the wait, which would first
  // drive a whole progress step (a probe and the eager receives' test) for nothing.
  if (delivered())
    return failed ? GASPI_ERROR : GASPI_SUCCESS;
  if (const gaspi_return_t rc = wait_until(delivered, deadline, wait_, progress, Nap{}, healthy); rc != GASPI_TIMEOUT)
    return failed ? GASPI_ERROR : rc;
  auto lock = env_->lock();
  MPI_Status status;
  CONTROL_TRY(HYGASPI_MPI(MPI_Cancel(&send)));
  CONTROL_TRY(HYGASPI_MPI(MPI_Wait(&send, &status)));
  int cancelled = 0;
  CONTROL_TRY(HYGASPI_MPI(MPI_Test_cancelled(&status, &cancelled)));
  if (!cancelled)
    return GASPI_SUCCESS;                // it was delivered
  credits_.unreserve(rank, lane, units); // never delivered, never reported
  return GASPI_TIMEOUT;
}

// The message on the lane's large tag, then an empty one on its eager tag that announces it (its
// place in the order: eager.hpp). Not cancellable once the announcement may have been matched, so
// it waits without a deadline, until the target takes the message in its progress step or is
// known dead (GASPI_ERROR: the caller reports the loss).
gaspi_return_t Control::send_am_large(MpiRank rank, Box box, const void *data, std::uint64_t size, Step progress,
                                      Step alive) {
  const bool request = box == Box::am_request;
  std::array<MPI_Request, 2> sends{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  {
    auto lock = env_->lock();
    CONTROL_TRY(HYGASPI_MPI(MPI_Isend(data, static_cast<int>(size), MPI_BYTE, rank.value(),
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
  auto delivered = [&] { return test(sends[0], failed) && test(sends[1], failed); };
  auto healthy = [&] { return !alive.active() || alive(); };
  const gaspi_return_t rc = wait_until(delivered, Deadline(GASPI_BLOCK), wait_, progress, Nap{}, healthy);
  return failed ? GASPI_ERROR : rc;
}

gaspi_return_t Control::passive_try_receive(void *data, std::uint64_t size, MpiRank &from) {
  Message m;
  if (!take_passive(m))
    return GASPI_TIMEOUT;
  from = MpiRank{m.from};
  const std::size_t keep = std::min<std::size_t>(m.data.size(), size);
  std::copy(m.data.begin(), m.data.begin() + static_cast<long>(keep), static_cast<char *>(data));
  if (m.data.size() > size) {
    // As on the shm path: the message is consumed, what fits is kept, the truncation reported.
    log::error("message of %zu bytes from rank %d is longer than size %lu", m.data.size(), from.value(),
               static_cast<unsigned long>(size));
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

void Control::passive_purge() {
  drain();
  // Discarded counts as handled: the senders get their credits back.
  Message m;
  for (;;) {
    {
      std::lock_guard box(mailbox_mutex_);
      if (!mailbox_.pop(m))
        return;
    }
    handled(MpiRank{m.from}, Box::passive, m.data.size());
  }
}

} // namespace hygaspi::mpi
