// The engine's passive messages (bridge/passive.hpp). Our readings of the spec (§9):
// - Completion (§9.2.1): a send returns GASPI_SUCCESS once the message is in the target's receive
//   ring, or held by the target's MPI, where no action of the sender can change it any more (as
//   GPI-2, whose send completes once the data is in the receiver's posted buffer). A send that
//   returns GASPI_TIMEOUT left nothing in the ring, and across nodes sent nothing (its MPI send
//   was cancelled, or it never got the credits to start).
// - Full ring (§9.2.1 says a full "passive communication queue" fails with GASPI_ERROR): our sends
//   complete before they return, so the sender side never queues requests. A full *receive* ring
//   means the receiver has not caught up ("as long as there is no matching receive, the send
//   cannot achieve any progress", §9.2.2), so the sender waits for space until its timeout.
// - Fairness (§9.1): blocked senders take tickets, and a freed slot goes to the oldest live one
//   (shm/passive_ring.hpp, "Fairness"); a timed-out or dead ticket holder stalls nobody.
// - A message longer than the receive's `size` (§9.2.2 requires the target to hold the largest
//   message; the user advice asks for matching sizes): treated like MPI_ERR_TRUNCATE. The first
//   `size` bytes land in the target, the message is consumed (so it cannot block the ring
//   forever), and the call returns GASPI_ERROR, naming sender and size in the log.
#include "bridge/passive.hpp"

#include <array>
#include <atomic>
#include <csignal>

#include "bridge/failures.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

namespace {

// Each process owns kClaimLinesPerSender claim lines in every ring (shm/passive_ring.hpp), one per
// thread that sends at a time; a thread holds its line for the whole send, its wait for space
// included, since the line shows its ticket while it waits. A thread takes a free line from a
// process-local mask: one mask per target would need a table sized at init, so targets share 64
// masks by hash. A thread that finds every line of its mask taken waits (with the send's deadline)
// for one of its own process's senders to finish.
std::array<std::atomic<std::uint32_t>, 64> g_lines_in_use;

class ClaimLine {
public:
  explicit ClaimLine(NodeIndex target) noexcept : mask_(g_lines_in_use[target.value() % g_lines_in_use.size()]) {}
  ~ClaimLine() {
    if (held_)
      mask_.fetch_and(~(1u << bit_), std::memory_order_release);
  }
  ClaimLine(const ClaimLine &) = delete;
  ClaimLine &operator=(const ClaimLine &) = delete;
  // Takes a free line: false when every line stays taken until the deadline, or term began.
  [[nodiscard]] bool take(const Deadline &deadline) {
    constexpr std::uint32_t all = (1u << shm::kClaimLinesPerSender) - 1;
    auto taken = [&] {
      std::uint32_t used = mask_.load(std::memory_order_relaxed);
      for (std::uint32_t free = ~used & all; free != 0; free = ~used & all) {
        bit_ = static_cast<std::uint32_t>(__builtin_ctz(free));
        if (mask_.compare_exchange_weak(used, used | (1u << bit_), std::memory_order_acquire,
                                        std::memory_order_relaxed))
          return held_ = true;
      }
      return false;
    };
    // The holders are this process's other senders, blocked on a full ring, which ring nothing
    // when they let go: naps (Nap), straight away.
    return wait_until(taken, deadline, WaitPolicy{0, 0}, NoProgress{}, Nap{}, [] { return !rt().node.stopping(); }) ==
           GASPI_SUCCESS;
  }
  // This process's line number k in the ring.
  [[nodiscard]] std::uint32_t line() const noexcept {
    return rt().peers.self_node().value() * shm::kClaimLinesPerSender + bit_;
  }

private:
  std::atomic<std::uint32_t> &mask_;
  std::uint32_t bit_ = 0;
  bool held_ = false;
};

// Claims a slot, then (test hook) dies or publishes the message.
bool push(shm::PassiveRing &ring, std::uint32_t line, const char *src, std::uint32_t size) {
  std::uint64_t pos = 0;
  if (!shm::passive_claim(ring, line, pos))
    return false;
  // HYGASPI_TEST_DIE_IN_PASSIVE_SEND: a sender's death between claim and publication, on demand.
  if (__builtin_expect(rt().knobs.test_die_send == static_cast<std::int64_t>(rt().rank), 0))
    raise(SIGKILL);
  shm::passive_publish(ring, line, pos, rt().rank, src, size);
  return true;
}

// A sender that found the ring full, or other senders blocked on it, takes a ticket and counts
// itself in `space.waiters` for the whole of its wait, so every freed slot rings `space`. It looks
// (pushes) only when passive_may_claim lets it: a freed slot goes to the oldest live blocked
// sender (spec §9.1 fairness; shm/passive_ring.hpp). No wake is lost: a sender reads `seq` before
// it looks; a slot freed, or an older ticket withdrawn, after the look bumps `seq` after its
// seq_cst store (doorbell.hpp's Dekker pair), so futex_wait returns at once. The 10 ms re-check
// notices a dead target or an older ticket holder that died.
template <class Push>
gaspi_return_t wait_for_space(shm::PassiveRing &ring, std::uint32_t line, Push &&push, const Deadline &deadline,
                              NodeIndex target) {
  auto alive = [](std::uint32_t s) { return rt().node.alive(NodeIndex{s}); };
  auto pushed = [&] { return shm::passive_may_claim(ring, line, alive) && push(); };
  if (deadline.test_only())
    return pushed() ? GASPI_SUCCESS : GASPI_TIMEOUT;
  ring.space.waiters.fetch_add(1, std::memory_order_seq_cst);
  shm::passive_wait_begin(ring, line);
  auto healthy = [&] {
    rt().node.refresh_liveness();
    return rt().node.alive(target) && !rt().node.stopping();
  };
  // Straight to the futex (no spin, no yield): the receiver frees slots at its own pace.
  const gaspi_return_t rc =
      wait_until(pushed, deadline, WaitPolicy{0, 0}, NoProgress{}, shm::DoorbellSleep{ring.space}, healthy);
  shm::passive_wait_end(ring, line);
  ring.space.waiters.fetch_sub(1, std::memory_order_seq_cst);
  return rc;
}

gaspi_return_t send_on_node(NodeIndex target, std::uint32_t rank, const char *src, std::uint64_t size,
                            const Deadline &deadline) {
  shm::Node &node = rt().node;
  shm::PassiveRing *ring = node.passive_ring(target);
  if (ring == nullptr)
    return GASPI_ERROR; // passive_ring() said why
  if (size > ring->header.payload_max) {
    log::error("size %lu exceeds rank %u's passive_transfer_size_max %lu", static_cast<unsigned long>(size), rank,
               static_cast<unsigned long>(ring->header.payload_max));
    return GASPI_ERR_INV_COMMSIZE;
  }
  ClaimLine claim(target);
  if (!claim.take(deadline)) {
    if (!node.stopping())
      return GASPI_TIMEOUT; // nothing was claimed, so nothing was sent
    log::error("gaspi_proc_term was called while this call waited");
    return GASPI_ERROR;
  }
  auto push = [&] { return engine::push(*ring, claim.line(), src, static_cast<std::uint32_t>(size)); };
  // Fast path only when nobody is blocked: a newcomer must not take the slot that blocked
  // senders were woken for. Otherwise it takes a ticket behind them (see "Fairness" above).
  const bool queue_behind = ring->space.waiters.load(std::memory_order_seq_cst) != 0;
  if (queue_behind || !push()) {
    const gaspi_return_t w = wait_for_space(*ring, claim.line(), push, deadline, target);
    if (w == GASPI_TIMEOUT)
      return GASPI_TIMEOUT; // nothing was claimed, so nothing was sent
    if (w == GASPI_ERROR) {
      if (node.stopping())
        log::error("gaspi_proc_term was called while this call waited");
      else
        log::error("rank %u died while its passive receive ring was full", rank);
      return GASPI_ERROR;
    }
  }
  node.ring(target); // after the seq_cst publication in passive_publish (doorbell.hpp)
  return GASPI_SUCCESS;
}

} // namespace

gaspi_return_t passive_send(GlobalRank to, const char *src, std::uint64_t size, gaspi_timeout_t timeout) {
  const Peer &peer = rt().peers[to];
  if (!peer.on_node()) // another node: an MPI message, delivered once matched
    return rt().control.messages().passive_send(peer.mpi, src, size, Deadline(timeout), progress());
  return send_on_node(peer.node, to.value(), src, size, Deadline(timeout));
}

gaspi_return_t passive_receive(char *dst, std::uint64_t size, std::uint32_t &from, gaspi_timeout_t timeout) {
  shm::Node &node = rt().node;
  shm::PassiveRing &ring = node.my_passive_ring();
  shm::PassiveMessage msg;
  // The pop is the readiness test, so a receive that times out has taken nothing (docs/DESIGN.md
  // "Readings of the spec"). Senders ring our doorbell after they publish.
  gaspi_return_t from_mpi = GASPI_TIMEOUT;
  auto take_mpi = [&] {
    MpiRank sender{};
    from_mpi = rt().control.messages().passive_try_receive(dst, size, sender);
    if (from_mpi == GASPI_TIMEOUT)
      return false;
    msg.sender = rt().peers.global(sender).value();
    msg.size = static_cast<std::uint32_t>(size); // a longer one returned GASPI_ERROR (truncated)
    return true;
  };
  // spec §9.1: "no sender should see its communication request delayed indefinitely". With both
  // sources busy, the ring first every time starved the other nodes' senders (measured across two
  // hosts: 24 messages against 866 for a node-local sender thread), so successive receives take
  // turns at which source they look at first.
  static std::atomic<std::uint32_t> turn{0};
  const bool remote = rt().rma.active();
  const bool mpi_first = remote && (turn.fetch_add(1, std::memory_order_relaxed) & 1) != 0;
  auto take = [&] {
    if (mpi_first && take_mpi())
      return true;
    if (shm::passive_try_pop(ring, dst, size, msg))
      return true;
    return remote && !mpi_first && take_mpi();
  };
  // A slot whose sender died between claim and publication is skipped (shm/passive_ring.hpp): once
  // here, for GASPI_TEST callers, and at every slow-path look of the wait.
  auto skip_dead = [&] {
    while (shm::passive_skip_dead_claim(ring, [&](std::uint32_t s) { return node.alive(NodeIndex{s}); }))
      log::warn("skipped a receive slot that a sender claimed and never filled before it died");
  };
  skip_dead();
  HYGASPI_TRY(await_any_partner(take, timeout, true, skip_dead));
  if (from_mpi == GASPI_ERROR)
    return GASPI_ERROR; // truncated; messages.cpp said so
  from = msg.sender;
  if (msg.size > size) {
    log::error("message of %u bytes from rank %u is longer than size %lu: truncated, the rest is discarded", msg.size,
               msg.sender, static_cast<unsigned long>(size));
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

void passive_purge() noexcept {
  shm::Node &node = rt().node;
  node.refresh_liveness();
  acknowledge_deaths();
  shm::PassiveRing &ring = node.my_passive_ring();
  shm::PassiveMessage msg;
  std::uint64_t discarded = 0;
  auto alive = [&](std::uint32_t s) { return node.alive(NodeIndex{s}); };
  while (shm::passive_try_pop(ring, nullptr, 0, msg) || shm::passive_skip_dead_claim(ring, alive))
    ++discarded;
  if (rt().rma.active())
    rt().control.messages().passive_purge();
  log::debug("discarded %lu pending passive messages", static_cast<unsigned long>(discarded));
}

} // namespace hygaspi::engine
