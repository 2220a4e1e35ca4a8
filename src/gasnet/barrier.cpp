// Split-phase barriers with ids [G1 §3.5], as a dissemination over internal active messages: in
// round r node n sends what it knows to node (n + 2^r) mod N and folds in what node
// (n - 2^r) mod N sent. After ceil(log2 N) rounds every node knows every node's (id, flags), so
// every node's wait reaches the same verdict. The fold is idempotent (a node's notify may reach
// another along two paths): named ids that differ, or any MISMATCH flag, make the result a
// mismatch; anonymous notifies match anything.
//
// A node can be at most one barrier ahead of another (it cannot finish barrier p + 1 before every
// node notified it), so arrivals are kept by the parity of the barrier and the round.
#include <sched.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "bridge/engine.hpp"
#include "gasnet/internal.hpp"

using namespace hygaspi::gasnet;

namespace {

struct Value {
  bool named = false;
  std::int32_t id = 0;
  bool mismatch = false;
};

Value fold(Value a, const Value &b) {
  if (a.named && b.named && a.id != b.id)
    a.mismatch = true;
  a.mismatch |= b.mismatch;
  if (!a.named && b.named) {
    a.named = true;
    a.id = b.id;
  }
  return a;
}

constexpr unsigned kMaxRounds = 32;

struct Barrier {
  std::mutex machine; // the state below; tried by poll, so a nested poll skips it
  bool notified = false;
  bool done = false;
  int notify_id = 0;
  int notify_flags = 0;
  unsigned parity = 0;
  std::uint64_t episode = 0; // barriers completed: tells one barrier's tries from the next one's
  unsigned round = 0;
  Value value;
  Value last; // the result of the last completed barrier (gasnet_barrier_result)

  std::mutex arrivals_mutex;       // taken by the handler: never held while sending
  std::atomic<unsigned> unread{0}; // arrivals not folded in yet: a poll that finds none skips the machine
  struct Arrival {
    bool got = false;
    Value v;
  };
  std::array<std::array<Arrival, kMaxRounds>, 2> arrivals{};
};

Barrier &barrier() {
  static Barrier b;
  return b;
}

// Holds b.machine. A send made while holding it may poll (a full ring), and that poll must not
// try the machine again on this thread: barrier_progress skips it while t_holding is set.
HYG_FAST_TLS thread_local bool t_holding = false;

// gasnet_barrier_try's NOT_READY answers in a row, to this thread and for one barrier (its
// episode). A client loop `while (gasnet_barrier_try(..) == GASNET_ERR_NOT_READY) {}` is a wait the
// library cannot see: past the engine's spin phase each try yields the core, as the engine's own
// waits do, or on an oversubscribed machine it starves the ranks it waits for (measured, 1000
// barriers of 4 ranks on hygaspi-run: on 2 busy cores 6-31 s with a pure spin, 5-8 ms with the
// yield; pinned to one core 17.6 s against 9 ms; tests/gasnet/gn_barrier_try.c).
HYG_FAST_TLS thread_local std::uint64_t t_try_episode = ~std::uint64_t{0};
HYG_FAST_TLS thread_local std::int64_t t_not_ready = 0;
class MachineLock {
public:
  explicit MachineLock(Barrier &b) : lock_(b.machine) { t_holding = true; }
  ~MachineLock() { t_holding = false; }
  MachineLock(const MachineLock &) = delete;
  MachineLock &operator=(const MachineLock &) = delete;

private:
  std::lock_guard<std::mutex> lock_;
};

unsigned rounds(gasnet_node_t n) {
  unsigned r = 0;
  while ((1ull << r) < n)
    ++r;
  return r;
}

void send_round(Barrier &b) {
  const State &s = state();
  const gasnet_node_t to = static_cast<gasnet_node_t>((s.mynode + (1ull << b.round)) % s.nodes);
  const gasnet_handlerarg_t args[5] = {static_cast<gasnet_handlerarg_t>(b.parity),
                                       static_cast<gasnet_handlerarg_t>(b.round), b.value.named ? 1 : 0, b.value.id,
                                       b.value.mismatch ? 1 : 0};
  am_internal(to, kHandlerBarrier, args, 5);
}

// Folds in the arrivals of the current round and sends the next one, as far as it can. Caller
// holds b.machine.
bool advance(Barrier &b) {
  bool moved = false;
  const unsigned total = rounds(state().nodes);
  while (b.notified && !b.done) {
    if (b.round == total) {
      b.done = true;
      break;
    }
    Value v;
    {
      std::lock_guard lock(b.arrivals_mutex);
      Barrier::Arrival &a = b.arrivals[b.parity][b.round];
      if (!a.got)
        break;
      v = a.v;
      a = Barrier::Arrival{};
      b.unread.fetch_sub(1, std::memory_order_relaxed);
    }
    b.value = fold(b.value, v);
    ++b.round;
    moved = true;
    if (b.round < total)
      send_round(b);
  }
  return moved;
}

int finish(Barrier &b, int id, int flags) {
  int rc = GASNET_OK;
  if (b.value.mismatch || flags != b.notify_flags || (flags == 0 && id != b.notify_id))
    rc = GASNET_ERR_BARRIER_MISMATCH;
  b.last = b.value;
  b.notified = false;
  b.done = false;
  b.parity ^= 1u;
  ++b.episode;
  b.round = 0;
  return rc;
}

void check_flags(const char *call, int flags) {
  if ((flags & ~(GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | GASNET_BARRIERFLAG_UNNAMED)) != 0)
    fatal(call, "unknown flags 0x%x", static_cast<unsigned>(flags));
}

} // namespace

namespace hygaspi::gasnet {

void barrier_handler(const Token &token, const gasnet_handlerarg_t *args, int nargs) {
  if (nargs != 5 || (args[0] & ~1) != 0 || static_cast<std::uint32_t>(args[1]) >= kMaxRounds)
    fatal("gasnet_AMPoll", "a malformed barrier message from node %u", token.source);
  Barrier &b = barrier();
  std::lock_guard lock(b.arrivals_mutex);
  Barrier::Arrival &a = b.arrivals[static_cast<unsigned>(args[0])][static_cast<unsigned>(args[1])];
  if (a.got)
    fatal("gasnet_AMPoll", "node %u sent round %d of a barrier twice", token.source, args[1]);
  a.got = true;
  a.v = Value{args[2] != 0, args[3], args[4] != 0};
  b.unread.fetch_add(1, std::memory_order_release);
}

bool barrier_progress() {
  Barrier &b = barrier();
  if (t_holding || b.unread.load(std::memory_order_acquire) == 0)
    return false;
  std::unique_lock lock(b.machine, std::try_to_lock);
  if (!lock.owns_lock())
    return false;
  t_holding = true;
  const bool moved = advance(b);
  t_holding = false;
  return moved;
}

} // namespace hygaspi::gasnet

namespace {
// The entry checks of the barrier calls.
Barrier &enter(const char *call, int flags) {
  require_attached(call);
  require_may_communicate(call);
  check_flags(call, flags);
  return barrier();
}
} // namespace

extern "C" {

void gasnet_barrier_notify(int id, int flags) {
  Barrier &b = enter("gasnet_barrier_notify", flags);
  MachineLock lock(b);
  if (b.notified)
    fatal("gasnet_barrier_notify", "a second notify without a wait [G1 section 3.5.1]");
  b.notified = true;
  b.notify_id = id;
  b.notify_flags = flags;
  const bool anonymous = (flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED)) != 0;
  b.value = Value{!anonymous, anonymous ? 0 : id, (flags & GASNET_BARRIERFLAG_MISMATCH) != 0};
  b.round = 0;
  if (state().nodes == 1)
    b.done = true;
  else
    send_round(b);
}

int gasnet_barrier_try(int id, int flags) {
  Barrier &b = enter("gasnet_barrier_try", flags);
  poll();
  {
    MachineLock lock(b);
    if (!b.notified)
      fatal("gasnet_barrier_try", "no gasnet_barrier_notify before it [G1 section 3.5.3]");
    advance(b);
    if (b.done)
      return finish(b, id, flags);
    t_not_ready = t_try_episode == b.episode ? t_not_ready + 1 : 1;
    t_try_episode = b.episode;
  }
  if (t_not_ready > hygaspi::engine::wait_policy().spin)
    sched_yield(); // outside the machine lock: another thread of this node may move the barrier meanwhile
  return GASNET_ERR_NOT_READY;
}

int gasnet_barrier_wait(int id, int flags) {
  Barrier &b = enter("gasnet_barrier_wait", flags);
  {
    MachineLock lock(b);
    if (!b.notified)
      fatal("gasnet_barrier_wait", "no gasnet_barrier_notify before it [G1 section 3.5.2]");
  }
  block_until([&] {
    MachineLock lock(b);
    advance(b);
    return b.done;
  });
  MachineLock lock(b);
  return finish(b, id, flags);
}

int gasnet_barrier(int id, int flags) {
  gasnet_barrier_notify(id, flags);
  return gasnet_barrier_wait(id, flags);
}

// GASNet 1.x: the id of the last completed barrier; returns GASNET_BARRIERFLAG_ANONYMOUS when every
// node's notify was anonymous (no id), else 0.
int gasnet_barrier_result(int *id) {
  require_attached("gasnet_barrier_result");
  Barrier &b = barrier();
  MachineLock lock(b);
  if (id != nullptr)
    *id = b.last.id;
  return b.last.named ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
}

} // extern "C"
