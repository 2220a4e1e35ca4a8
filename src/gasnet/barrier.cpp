// Split-phase barriers with ids [G1 §3.5] on the engine's hierarchical collectives: a notify
// initiates a collective of the primordial GASNet-EX team (gasnet/ex_coll.hpp), a barrier that
// folds every node's (id, flags) as it goes (engine::barrier_fold), under a fold that every node
// applies alike, so every node's wait reaches the same verdict: named ids that differ, or any
// MISMATCH flag, make the result a mismatch; anonymous notifies match anything. The value travels
// in the barrier's own signals, so an id costs next to nothing over gex_Coll_BarrierNB. The
// barrier so takes its place among the team's other collectives (gex_Coll_*), in initiation
// order, and GASNet's poll moves it on.
#include <sched.h>

#include <atomic>
#include <cstdint>

#include "bridge/engine.hpp"
#include "gasnet/ex_coll.hpp"
#include "gasnet/internal.hpp"

using namespace hygaspi::gasnet;

namespace {

// One node's (id, flags) as the barrier folds it: the id in the high half, then a bit that says
// some notify named it, and a bit for a mismatch.
struct Value {
  bool named = false; // some notify carried an id
  std::int32_t id = 0;
  bool mismatch = false;
};
constexpr std::uint64_t kNamed = 1, kMismatch = 2;

std::uint64_t encode(const Value &v) noexcept {
  return (std::uint64_t{static_cast<std::uint32_t>(v.id)} << 32) | (v.named ? kNamed : 0) |
         (v.mismatch ? kMismatch : 0);
}
Value decode(std::uint64_t bits) noexcept {
  return Value{(bits & kNamed) != 0, static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 32)),
               (bits & kMismatch) != 0};
}

// Idempotent, commutative and associative, as engine::barrier_fold needs: folding a node in twice
// changes nothing, and two named ids that differ give a mismatch whatever the order (the id kept
// then is one of them; the verdict is the same).
std::uint64_t fold(std::uint64_t acc_bits, std::uint64_t other_bits) noexcept {
  Value a = decode(acc_bits);
  const Value b = decode(other_bits);
  if (a.named && b.named && a.id != b.id)
    a.mismatch = true;
  a.mismatch = a.mismatch || b.mismatch;
  if (b.named && (!a.named || b.id < a.id)) { // the smaller id, so that any order keeps the same one
    a.named = true;
    a.id = b.id;
  }
  return encode(a);
}

struct Barrier {
  // [G1 §3.5]: "The client must synchronize its own accesses to the barrier functions and ensure
  // that only one thread is ever inside a GASNet barrier function at a time". That thread owns the
  // state below; `inside` only catches a client that lets a second one in (Inside).
  std::atomic<bool> inside{false};
  bool notified = false;
  int notify_id = 0;
  int notify_flags = 0;
  std::uint64_t episode = 0; // barriers completed: tells one barrier's tries from the next one's
  Value result;              // the fold of all, once complete
  ex::CollOp *op = nullptr;  // in flight; null once complete, or on one node
  Value last;                // the result of the last completed barrier (gasnet_barrier_result)
};

Barrier &barrier() {
  static auto *b = new Barrier; // threads may still use it as the process exits
  return *b;
}

// gasnet_barrier_try's NOT_READY answers in a row, to this thread and for one barrier (its
// episode). A client loop `while (gasnet_barrier_try(..) == GASNET_ERR_NOT_READY) {}` is a wait the
// library cannot see: past the engine's spin phase each try yields the core, as the engine's own
// waits do, or on an oversubscribed machine it starves the ranks it waits for (measured, 1000
// barriers of 4 ranks on hygaspi-run: on 2 busy cores 6-31 s with a pure spin, 5-8 ms with the
// yield; pinned to one core 17.6 s against 9 ms; tests/gasnet/gn_barrier_try.c).
HYG_FAST_TLS thread_local std::uint64_t t_try_episode = ~std::uint64_t{0};
HYG_FAST_TLS thread_local std::int64_t t_not_ready = 0;

// The calling thread inside the barrier functions, for the call's length. A second thread inside at
// once is fatal: the client broke [G1 §3.5], and the two would race on the barrier's state.
class Inside {
public:
  Inside(const char *call, Barrier &b) noexcept : b_(b) {
    if (b.inside.exchange(true, std::memory_order_acquire))
      fatal(call, "another thread is inside a GASNet barrier function [G1 section 3.5]");
  }
  ~Inside() { b_.inside.store(false, std::memory_order_release); }
  Inside(const Inside &) = delete;
  Inside &operator=(const Inside &) = delete;

private:
  Barrier &b_;
};

// The verdict of a completed barrier; the barrier is over.
int finish(Barrier &b, int id, int flags) {
  if (b.op != nullptr) {
    b.result = decode(b.op->value);
    ex::release(b.op);
    b.op = nullptr;
  }
  int rc = GASNET_OK;
  if (b.result.mismatch || flags != b.notify_flags || (flags == 0 && id != b.notify_id))
    rc = GASNET_ERR_BARRIER_MISMATCH;
  b.last = b.result;
  b.notified = false;
  ++b.episode;
  return rc;
}

void check_flags(const char *call, int flags) {
  if ((flags & ~(GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | GASNET_BARRIERFLAG_UNNAMED)) != 0)
    fatal(call, "unknown flags 0x%x", static_cast<unsigned>(flags));
}

// The entry checks of the barrier calls.
Barrier &enter(const char *call, int flags) {
  require_attached(call);
  require_may_communicate(call);
  check_flags(call, flags);
  return barrier();
}

// The barrier's op, checked to be notified; null when it completed already (one node).
ex::CollOp *notified_op(const char *call, Barrier &b, const char *section) {
  if (!b.notified)
    fatal(call, "no gasnet_barrier_notify before it [G1 section %s]", section);
  return b.op;
}

} // namespace

extern "C" {

void gasnet_barrier_notify(int id, int flags) {
  const char *call = "gasnet_barrier_notify";
  Barrier &b = enter(call, flags);
  const Inside inside(call, b);
  if (b.notified)
    fatal(call, "a second notify without a wait [G1 section 3.5.1]");
  b.notified = true;
  b.notify_id = id;
  b.notify_flags = flags;
  const bool anonymous = (flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED)) != 0;
  b.result = Value{!anonymous, anonymous ? 0 : id, (flags & GASNET_BARRIERFLAG_MISMATCH) != 0};
  if (state().nodes == 1)
    return;
  b.op = ex::fold_barrier_op(encode(b.result), fold);
  (void)ex::start_coll(call, ex::primordial_team(), b.op); // a barrier op is never freed by start_coll
}

int gasnet_barrier_try(int id, int flags) {
  const char *call = "gasnet_barrier_try";
  Barrier &b = enter(call, flags);
  const Inside inside(call, b);
  poll();
  ex::CollOp *op = notified_op(call, b, "3.5.3");
  if (op == nullptr || ex::test_op(op))
    return finish(b, id, flags);
  t_not_ready = t_try_episode == b.episode ? t_not_ready + 1 : 1;
  t_try_episode = b.episode;
  if (t_not_ready > hygaspi::engine::wait_policy().spin)
    sched_yield();
  return GASNET_ERR_NOT_READY;
}

int gasnet_barrier_wait(int id, int flags) {
  const char *call = "gasnet_barrier_wait";
  Barrier &b = enter(call, flags);
  const Inside inside(call, b);
  if (ex::CollOp *op = notified_op(call, b, "3.5.2"); op != nullptr)
    ex::wait_op(call, op);
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
  const Inside inside("gasnet_barrier_result", b);
  if (id != nullptr)
    *id = b.last.id;
  return b.last.named ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
}

} // extern "C"
