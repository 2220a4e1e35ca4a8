// GASNet-EX collectives [GEX "Collectives"]: gex_Coll_BarrierNB, gex_Coll_BroadcastNB,
// gex_Coll_ReduceToOneNB and gex_Coll_ReduceToAllNB over any team, on the engine's hierarchical
// collectives (bridge/collectives/: node part in shm, node leaders over MPI).
//
// - Each team owns an engine group (Team::group, ex_team.cpp), in an engine slot beyond every
//   GASPI group id (limits::kGroupSlots), so a GASPI program's groups live beside it.
// - An initiation only queues a CollOp behind the team's earlier ones (and looks once): it never
//   waits for another rank, so a client may initiate several collectives, over one team or
//   several, before it synchronises any [GEX "Collective Call"]. gex_Event_Test and gex_Event_Wait
//   advance every team's queue in initiation order, one engine step (a GASPI_TEST look) at a time;
//   Wait loops in core/wait.hpp's wait_until with GASNet's poll as its progress, so handlers run
//   and ranks oversubscribed on few cores yield.
// - Barrier: the engine barrier of the team's group.
// - Reductions: the engine allreduce, in chunks of at most kSlotBytes (whole elements), with a
//   combine for every GEX_DT_* x GEX_OP_* pair and for GEX_OP_USER (the user's function writes its
//   right-hand operand: a copy of it). ReduceToOne is ReduceToAll with the result kept at the root.
//   GEX_OP_USER_NC must fold in team-rank order, which the engine's fold (by job rank, node by
//   node) is not: each chunk is gathered instead (below), and every rank folds it in team order.
// - Broadcast and gather: the engine has no broadcast step machine, and adding one (a shm
//   publication step and an MPI leader tree beside the allreduce's) was more than this change; so
//   both are an OR-allreduce of bytes: the root (broadcast) or each rank at its team rank's place
//   (gather) contributes its data, every other byte is zero. It moves the data through the same
//   reduce area and leader exchange as a reduction of that size would.
// - Bad input (root out of the team, a data type and operation that do not go together, a size
//   that does not match the data type) is fatal, naming the rank and the call. So are members that
//   issue different broadcasts or reductions at one place of the team's order, which a signature
//   before every chunk shows (below); the program is erroneous [GEX "Collectives"], and without
//   it the members would mix their data silently.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "bridge/engine.hpp"
#include "core/wait.hpp"
#include "gasnet/ex_coll.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

// The events of collectives in flight, under coll_lock (EventEntries; 0 in bits 48-63, where a
// thread's table keeps its tag).
EventEntries<CollOp *> &events() {
  static auto *e = new EventEntries<CollOp *>; // threads may still use it as the process exits
  return *e;
}

// Operations this thread released, kept for its next initiations (a few: a thread that once had
// many in flight frees the rest). Trivially constructed, so that a look at them costs no TLS
// wrapper call; the first spare a thread keeps registers the destructor that frees them at its exit.
constexpr unsigned kSpares = 8;
struct Spares {
  CollOp *ops[kSpares];
  unsigned count;
};
HYG_FAST_TLS thread_local Spares t_spares;
struct FreeSpares {
  ~FreeSpares() {
    for (unsigned i = 0; i < t_spares.count; ++i)
      delete t_spares.ops[i];
    t_spares.count = 0;
  }
};
thread_local FreeSpares t_free_spares;

void recycle(CollOp *op) {
  if (t_spares.count >= kSpares) {
    delete op;
    return;
  }
  if (t_spares.count == 0)
    static_cast<void>(&t_free_spares); // constructs it in this thread, once
  std::destroy_at(op);                 // cleared for its next use
  std::construct_at(op);
  t_spares.ops[t_spares.count++] = op;
}
std::atomic<std::uint32_t> g_busy_teams{0}; // busy().size(), which poll reads without coll_lock
std::vector<Team *> &busy() {               // teams with a non-empty queue; under coll_lock
  static auto *teams = new std::vector<Team *>;
  return *teams;
}

// ---- combining
template <class T> struct Wide { using type = T; };
template <class T>
requires std::is_integral_v<T>
struct Wide<T> {
  using type = std::make_unsigned_t<T>;
};

template <class T> void apply(gex_OP_t op, T *acc, const T *other, std::size_t n) {
  // Integer sums and products wrap, as the unsigned type's do (signed overflow would be undefined).
  using W = typename Wide<T>::type;
  switch (op) {
  case GEX_OP_ADD:
    for (std::size_t i = 0; i < n; ++i)
      acc[i] = static_cast<T>(static_cast<W>(acc[i]) + static_cast<W>(other[i]));
    break;
  case GEX_OP_MULT:
    for (std::size_t i = 0; i < n; ++i)
      acc[i] = static_cast<T>(static_cast<W>(acc[i]) * static_cast<W>(other[i]));
    break;
  case GEX_OP_MIN:
    for (std::size_t i = 0; i < n; ++i)
      acc[i] = acc[i] < other[i] ? acc[i] : other[i];
    break;
  case GEX_OP_MAX:
    for (std::size_t i = 0; i < n; ++i)
      acc[i] = acc[i] > other[i] ? acc[i] : other[i];
    break;
  default:
    if constexpr (std::is_integral_v<T>) {
      for (std::size_t i = 0; i < n; ++i)
        acc[i] = op == GEX_OP_AND ? (acc[i] & other[i]) : op == GEX_OP_OR ? (acc[i] | other[i]) : (acc[i] ^ other[i]);
    }
    break;
  }
}

void or_bytes(char *acc, const char *other, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, acc + i, 8);
    std::memcpy(&b, other + i, 8);
    a |= b;
    std::memcpy(acc + i, &a, 8);
  }
  for (; i < n; ++i)
    acc[i] = static_cast<char>(acc[i] | other[i]);
}

constexpr gex_DT_t kBytes = 0; // Combiner::dt of broadcast and gather: OR of bytes

// acc = acc (op) other, acc holding the lower ranks' part (bridge/collectives Combine).
gaspi_return_t combine(void *ctx, void *acc, const void *other) {
  Combiner &c = *static_cast<Combiner *>(ctx);
  const std::size_t n = c.count;
  if (c.op == GEX_OP_USER) { // [GEX]: y[i] = x[i] (+) y[i], x the left operand: y is a copy of other
    const auto *o = static_cast<const char *>(other);
    c.scratch.assign(o, o + n * c.elem);
    c.user_op(acc, c.scratch.data(), n, c.user_cdata);
    std::memcpy(acc, c.scratch.data(), n * c.elem);
    return GASPI_SUCCESS;
  }
  switch (c.dt) {
  case kBytes:
    or_bytes(static_cast<char *>(acc), static_cast<const char *>(other), n);
    break;
  case GEX_DT_I32:
    apply(c.op, static_cast<std::int32_t *>(acc), static_cast<const std::int32_t *>(other), n);
    break;
  case GEX_DT_U32:
    apply(c.op, static_cast<std::uint32_t *>(acc), static_cast<const std::uint32_t *>(other), n);
    break;
  case GEX_DT_I64:
    apply(c.op, static_cast<std::int64_t *>(acc), static_cast<const std::int64_t *>(other), n);
    break;
  case GEX_DT_U64:
    apply(c.op, static_cast<std::uint64_t *>(acc), static_cast<const std::uint64_t *>(other), n);
    break;
  case GEX_DT_FLT:
    apply(c.op, static_cast<float *>(acc), static_cast<const float *>(other), n);
    break;
  case GEX_DT_DBL:
    apply(c.op, static_cast<double *>(acc), static_cast<const double *>(other), n);
    break;
  default:
    break;
  }
  return GASPI_SUCCESS;
}

// ---- signatures. A collective's signature mixes its kind, root, data type, operation, element
// size and byte count (never 0). A chunk travels behind it (kSignatureBytes); combining two chunks
// with different signatures leaves kSignatureMismatch, which every member then finds in its result.
constexpr std::uint64_t kSignatureMismatch = ~std::uint64_t{0};
constexpr unsigned kSignReduce = 1, kSignBroadcast = 2;
constexpr std::uint64_t kSignNoRoot = ~std::uint64_t{0}; // ReduceToAll

std::uint64_t sign(unsigned kind, std::uint64_t root, const Combiner &c, std::size_t total) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the fields
  for (const std::uint64_t v : {std::uint64_t{kind}, root, std::uint64_t{c.dt}, std::uint64_t{c.op},
                                std::uint64_t{c.elem}, std::uint64_t{total}})
    h = (h ^ v) * 0x100000001b3ull;
  return h == 0 || h == kSignatureMismatch ? 1 : h;
}

gaspi_return_t combine_signed(void *ctx, void *acc, const void *other) {
  CollOp &op = *static_cast<CollOp *>(ctx);
  std::uint64_t mine = 0, theirs = 0;
  std::memcpy(&mine, acc, sizeof mine);
  std::memcpy(&theirs, other, sizeof theirs);
  if (mine != theirs) {
    std::memcpy(acc, &kSignatureMismatch, sizeof kSignatureMismatch);
    return GASPI_SUCCESS; // the data no longer matters
  }
  return combine(&op.combiner, static_cast<char *>(acc) + kSignatureBytes,
                 static_cast<const char *>(other) + kSignatureBytes);
}

// Puts the prepared chunk behind its signature, once per chunk (the engine may read it on every look).
void sign_chunk(CollOp &op) {
  const std::size_t bytes = kSignatureBytes + op.bytes;
  if (bytes <= CollOp::kSignedSmall) {
    op.signed_out = op.signed_small[0];
    op.signed_in = op.signed_small[1];
  } else {
    if (op.signed_send.size() < bytes) {
      op.signed_send.resize(bytes);
      op.signed_receive.resize(bytes);
    }
    op.signed_out = op.signed_send.data();
    op.signed_in = op.signed_receive.data();
  }
  std::memcpy(op.signed_out, &op.signature, sizeof op.signature); // the rest of the header is not read
  if (op.bytes != 0)
    std::memcpy(op.signed_out + kSignatureBytes, op.send, op.bytes);
}

// One engine look at the current chunk, behind its signature when the operation has one.
gaspi_return_t allreduce_chunk(Team &t, CollOp &op, const Deadline &test) {
  if (op.signature == 0)
    return engine::allreduce(*t.group, op.send, op.receive, op.bytes, combine, &op.combiner, test);
  const gaspi_return_t rc =
      engine::allreduce(*t.group, op.signed_out, op.signed_in, kSignatureBytes + op.bytes, combine_signed, &op, test);
  if (rc != GASPI_SUCCESS)
    return rc;
  std::uint64_t found = 0;
  std::memcpy(&found, op.signed_in, sizeof found);
  if (found != op.signature)
    fatal(op.call,
          "the team's members did not all issue this collective here: every member must issue the same collectives, "
          "with the same root, type, operation and size, in the same order [GEX \"Collectives\"]");
  if (op.bytes != 0)
    std::memcpy(op.receive, op.signed_in + kSignatureBytes, op.bytes);
  return GASPI_SUCCESS;
}

// ---- running the queues
// One look at `op`: true once it is complete. An engine error is fatal (the engine logged why).
bool step(Team &t, CollOp &op) {
  const Deadline test(kTimeoutTest);
  if (op.barrier) {
    const gaspi_return_t rc =
        op.fold != nullptr ? engine::barrier_fold(*t.group, op.value, op.fold, test) : engine::barrier(*t.group, test);
    if (rc == GASPI_TIMEOUT)
      return false;
    if (rc != GASPI_SUCCESS)
      fatal(op.call, "the team's barrier failed (see the message above)");
    op.complete.store(true, std::memory_order_release);
    return true;
  }
  while (op.done < op.total) {
    const std::size_t bytes = std::min(op.chunk, op.total - op.done);
    if (!op.in_chunk) {
      op.prepare(op, op.done, bytes);
      if (op.signature != 0)
        sign_chunk(op);
      op.in_chunk = true;
    }
    const gaspi_return_t rc = allreduce_chunk(t, op, test);
    if (rc == GASPI_TIMEOUT)
      return false;
    if (rc != GASPI_SUCCESS)
      fatal(op.call, "the team's reduction failed (see the message above)");
    if (op.finish)
      op.finish(op, op.done, bytes);
    op.in_chunk = false;
    op.done += bytes;
  }
  op.complete.store(true, std::memory_order_release);
  return true;
}

// Advances each busy team's queue as far as it goes without waiting. Holds coll_lock().
void advance_all() {
  auto &teams = busy();
  for (std::size_t i = 0; i < teams.size();) {
    Team &t = *teams[i];
    while (!t.pending.empty() && step(t, *t.pending.front()))
      t.pending.pop_front();
    if (t.pending.empty()) {
      teams[i] = teams.back();
      teams.pop_back();
      g_busy_teams.store(static_cast<std::uint32_t>(teams.size()), std::memory_order_release);
    } else {
      ++i;
    }
  }
}

// Ends `op`'s event (synchronised). Holds coll_lock().
void forget(const CollOp *op) {
  events()[op->slot] = nullptr;
  events().end(op->slot);
}

CollOp *event_op(const char *call, gex_Event_t e) {
  const std::int64_t i = events().find(reinterpret_cast<std::uint64_t>(e));
  if (i < 0)
    fatal(call, "event %p is no collective's in flight (synchronised already?)", static_cast<void *>(e));
  return events()[static_cast<std::uint32_t>(i)];
}

// ---- entry checks
gex_hyg_TM &entry(const char *call, gex_TM_t tm, gex_Flags_t flags) {
  require_tm(call, tm);
  require_messaging(call);
  require_flags(call, flags, 0); // [GEX]: no flag is defined for collectives yet
  require_may_communicate(call);
  return *tm;
}

void require_root(const char *call, const gex_hyg_TM &tm, gex_Rank_t root) {
  if (root >= tm.size)
    fatal(call, "root %u is not in the team (%u ranks)", root, tm.size);
}

std::size_t dt_size(gex_DT_t dt) {
  switch (dt) {
  case GEX_DT_I32:
  case GEX_DT_U32:
  case GEX_DT_FLT:
    return 4;
  case GEX_DT_I64:
  case GEX_DT_U64:
  case GEX_DT_DBL:
    return 8;
  default:
    return 0;
  }
}
const char *op_name(gex_OP_t op) {
  switch (op) {
  case GEX_OP_ADD:
    return "GEX_OP_ADD";
  case GEX_OP_MULT:
    return "GEX_OP_MULT";
  case GEX_OP_MIN:
    return "GEX_OP_MIN";
  case GEX_OP_MAX:
    return "GEX_OP_MAX";
  case GEX_OP_AND:
    return "GEX_OP_AND";
  case GEX_OP_OR:
    return "GEX_OP_OR";
  case GEX_OP_XOR:
    return "GEX_OP_XOR";
  case GEX_OP_USER:
    return "GEX_OP_USER";
  case GEX_OP_USER_NC:
    return "GEX_OP_USER_NC";
  default:
    return nullptr; // not an operation of reductions [GEX "Collectives Part III"]
  }
}

// The checks every reduction shares; fills the combiner.
void check_reduction(const char *call, const gex_hyg_TM &tm, gex_DT_t dt, std::size_t dt_sz, std::size_t dt_cnt,
                     gex_OP_t op, gex_Coll_ReduceFn_t user_op, const void *user_cdata, Combiner &c) {
  const char *dn = dt_name(dt), *on = op_name(op);
  if (dn == nullptr)
    fatal(call, "dt %#x is not a GEX_DT_* data type", static_cast<unsigned>(dt));
  if (on == nullptr)
    fatal(call, "op %#x is not an operation of reductions (GEX_OP_ADD, MULT, MIN, MAX, AND, OR, XOR, USER, USER_NC)",
          static_cast<unsigned>(op));
  const bool user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
  if (dt == GEX_DT_USER && !user)
    fatal(call, "GEX_DT_USER needs GEX_OP_USER or GEX_OP_USER_NC, not %s", on);
  if ((op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR) && (dt == GEX_DT_FLT || dt == GEX_DT_DBL))
    fatal(call, "%s is for integer data types, not %s", on, dn);
  if (user && user_op == nullptr)
    fatal(call, "%s with a null user_op", on);
  if (dt != GEX_DT_USER && dt_sz != dt_size(dt))
    fatal(call, "dt_sz %zu is not the size of %s (%zu)", dt_sz, dn, dt_size(dt));
  if (dt_sz == 0 || dt_sz > kSlotBytes)
    fatal(call, "dt_sz %zu is outside 1..%zu", dt_sz, kSlotBytes);
  if (op == GEX_OP_USER_NC && dt_sz * tm.size > kSlotBytes)
    fatal(call, "GEX_OP_USER_NC folds whole elements of every rank at once: dt_sz %zu times %u ranks exceeds %zu bytes",
          dt_sz, tm.size, kSlotBytes);
  std::size_t total = 0;
  if (__builtin_mul_overflow(dt_sz, dt_cnt, &total))
    fatal(call, "dt_cnt %zu elements of %zu bytes overflow", dt_cnt, dt_sz);
  c.dt = dt;
  c.op = op;
  c.elem = dt_sz;
  c.user_op = user_op;
  c.user_cdata = user_cdata;
}

// A buffer of `bytes` at `p` (null: none) does not wrap around the address space; fatal otherwise.
void require_range(const char *call, const void *p, std::size_t bytes) {
  if (p != nullptr && bytes > UINTPTR_MAX - reinterpret_cast<std::uintptr_t>(p))
    fatal(call, "[%p, +%zu) wraps around the address space", p, bytes);
}

// A reduction of `src` into `out` (null: this rank keeps no result).
CollOp *reduce_op(const char *call, const gex_hyg_TM &tm, void *out, const void *src, std::size_t dt_cnt,
                  const Combiner &c, std::uint64_t root) {
  require_range(call, out, c.elem * dt_cnt); // the combiner's checks found no overflow in the product
  require_range(call, src, c.elem * dt_cnt);
  auto *op = new_op();
  op->call = call;
  op->combiner = c;
  op->total = c.elem * dt_cnt;
  op->signature = sign(kSignReduce, root, c, op->total);
  const auto *in = static_cast<const char *>(src);
  auto *dst = static_cast<char *>(out);
  if (c.op != GEX_OP_USER_NC) {
    op->chunk = kSlotBytes / c.elem * c.elem;
    if (dst == nullptr)
      op->buffer.resize(std::min(op->chunk, op->total));
    op->prepare = [in, dst](CollOp &o, std::size_t offset, std::size_t bytes) {
      o.send = in + offset;
      o.receive = dst != nullptr ? static_cast<void *>(dst + offset) : o.buffer.data();
      o.bytes = bytes;
      o.combiner.count = bytes / o.combiner.elem;
    };
    return op;
  }
  // USER_NC: gather each chunk of every rank at its team rank's place, then fold in team order.
  const std::size_t n = tm.size, me = tm.rank;
  op->chunk = kSlotBytes / (c.elem * n) * c.elem;
  op->combiner.dt = kBytes;
  op->combiner.op = GEX_OP_OR;
  op->prepare = [in, n, me](CollOp &o, std::size_t offset, std::size_t bytes) {
    o.buffer.assign(n * bytes, 0);
    std::memcpy(o.buffer.data() + me * bytes, in + offset, bytes);
    o.received.resize(n * bytes);
    o.send = o.buffer.data();
    o.receive = o.received.data();
    o.bytes = n * bytes;
    o.combiner.count = n * bytes;
  };
  op->finish = [dst, n, c](CollOp &o, std::size_t offset, std::size_t bytes) {
    if (dst == nullptr)
      return;
    char *acc = o.received.data(); // rank 0's part
    for (std::size_t r = 1; r < n; ++r) {
      char *right = o.received.data() + r * bytes;
      c.user_op(acc, right, bytes / c.elem, c.user_cdata); // right = acc (+) right
      acc = right;
    }
    std::memcpy(dst + offset, acc, bytes);
  };
  return op;
}

} // namespace

namespace hygaspi::gasnet::ex {

std::mutex &coll_lock() noexcept {
  static auto *m = new std::mutex; // threads may still use it as the process exits
  return *m;
}

CollOp *new_op() { return t_spares.count != 0 ? t_spares.ops[--t_spares.count] : new CollOp; }

gex_Event_t start_coll(const char *call, gex_hyg_TM &tm, CollOp *op) {
  op->call = call;
  if (!op->barrier && op->total == 0) {
    recycle(op);
    return GEX_EVENT_INVALID;
  }
  std::lock_guard lock(coll_lock());
  op->slot = events().reserve(call);
  events()[op->slot] = op;
  const std::uint64_t event = events().start(op->slot);
  Team &t = team_of(call, tm);
  if (t.pending.empty()) {
    busy().push_back(&t);
    g_busy_teams.store(static_cast<std::uint32_t>(busy().size()), std::memory_order_release);
  }
  t.pending.push_back(op);
  advance_all(); // one look: this call waits for no other rank
  return reinterpret_cast<gex_Event_t>(event);
}

void wait_op(const char *call, CollOp *op) {
  require_may_communicate(call);
  if (op->complete.load(std::memory_order_acquire))
    return; // nothing to wait for: no look at the lanes either, as a completed event's test
  // Every look polls: a rank in a collective serves the active messages of ranks that are not in it
  // yet (wait_until alone would poll every kSpinsPerProgress looks while it spins, which made an
  // AM round trip to a rank in gasnet_barrier 8x the raw flag round trip). What a look served is
  // reported by the next progress step, so that the wait stays hot while messages come. The
  // collective itself moves at every kCollectiveEvery-th look: across nodes its step costs MPI calls
  // of its own, and an AM that arrives meanwhile waits for the loop to come round.
  constexpr unsigned kCollectiveEvery = 4;
  bool served = false;
  auto ready = [op, &served, looks = 0u]() mutable {
    if (op->complete.load(std::memory_order_acquire))
      return true;    // the progress step's poll completed it: no second look at the lanes
    served |= poll(); // its collectives step may complete op
    if (op->complete.load(std::memory_order_acquire))
      return true;
    if (looks++ % kCollectiveEvery != 0)
      return false;
    std::lock_guard lock(coll_lock());
    advance_all();
    return op->complete.load(std::memory_order_relaxed);
  };
  // Handlers run, MPI moves, a remote gasnet_exit is followed.
  auto progress = [&served] {
    const bool earlier = std::exchange(served, false);
    return poll() || earlier; // poll() first: it must run whatever the looks served
  };
  (void)wait_until(ready, Deadline(kTimeoutBlock), engine::wait_policy(), progress, engine::DoorbellSleep{},
                   kAlwaysHealthy);
}

void release(CollOp *op) {
  {
    std::lock_guard lock(coll_lock());
    forget(op);
  }
  recycle(op);
}

void primordial_barrier(const char *call) {
  auto *op = new_op();
  op->barrier = true;
  (void)start_coll(call, primordial_team(), op);
  wait_op(call, op);
  release(op);
}

CollOp *fold_barrier_op(std::uint64_t value, ValueFold fold) {
  auto *op = new_op();
  op->barrier = true;
  op->fold = fold;
  op->value = value;
  return op;
}

bool test_op(CollOp *op) {
  std::lock_guard lock(coll_lock());
  advance_all();
  return op->complete.load(std::memory_order_relaxed);
}

gex_hyg_TM &primordial_team() {
  gex_TM_t tm = nullptr;
  gasnet_QueryGexObjects(nullptr, nullptr, &tm, nullptr); // the client objects exist from here on
  return *tm;
}

bool collectives_progress() noexcept {
  if (g_busy_teams.load(std::memory_order_acquire) == 0)
    return false;
  std::unique_lock lock(coll_lock(), std::try_to_lock); // a poll inside a collective's step skips
  if (!lock.owns_lock())
    return false;
  const std::uint32_t before = g_busy_teams.load(std::memory_order_relaxed);
  advance_all();
  return g_busy_teams.load(std::memory_order_relaxed) != before;
}

CollOp *gather_op(const char *call, gex_hyg_TM &tm, const void *mine, std::size_t bytes) {
  const std::size_t n = tm.size, me = tm.rank;
  if (n > kSlotBytes)
    fatal(call, "a team of %zu ranks is more than this gather carries (%zu)", n, kSlotBytes);
  auto *op = new_op();
  op->call = call;
  op->total = bytes;
  op->chunk = kSlotBytes / n;
  op->combiner.dt = kBytes;
  op->combiner.op = GEX_OP_OR;
  op->combiner.elem = 1;
  op->result.resize(n * bytes);
  const auto *in = static_cast<const char *>(mine);
  op->prepare = [in, n, me](CollOp &o, std::size_t offset, std::size_t b) {
    o.buffer.assign(n * b, 0);
    std::memcpy(o.buffer.data() + me * b, in + offset, b);
    o.received.resize(n * b);
    o.send = o.buffer.data();
    o.receive = o.received.data();
    o.bytes = n * b;
    o.combiner.count = n * b;
  };
  op->finish = [n, bytes](CollOp &o, std::size_t offset, std::size_t b) {
    for (std::size_t r = 0; r < n; ++r)
      std::memcpy(o.result.data() + r * bytes + offset, o.received.data() + r * b, b);
  };
  return op;
}

bool coll_test(const char *call, gex_Event_t e, bool block) {
  CollOp *op = nullptr;
  {
    std::lock_guard lock(coll_lock());
    op = event_op(call, e);
    // Complete already (a barrier that every other member had reached when this rank initiated it,
    // or an earlier look): consumed without a look at the lanes, as a wait with nothing to wait for.
    if (op->complete) {
      forget(op);
      recycle(op);
      return true;
    }
  }
  if (block) {
    wait_op(call, op);
  } else {
    // A client loop `while (gex_Event_Test(e) != GASNET_OK) {}` is a wait the library cannot see:
    // past the engine's spin phase each NOT_READY answer about one event yields the core, as
    // gasnet_barrier_try does (barrier.cpp), or ranks oversubscribed on few cores starve the ones
    // they wait for.
    HYG_FAST_TLS thread_local const CollOp *t_tested = nullptr;
    HYG_FAST_TLS thread_local std::int64_t t_not_ready = 0;
    require_may_communicate(call);
    (void)poll();
    bool done = false;
    {
      std::lock_guard lock(coll_lock());
      advance_all();
      done = op->complete;
    }
    if (!done) {
      t_not_ready = t_tested == op ? t_not_ready + 1 : 1;
      t_tested = op;
      if (t_not_ready > engine::wait_policy().spin)
        sched_yield();
      return false;
    }
  }
  release(op);
  return true;
}

} // namespace hygaspi::gasnet::ex

extern "C" {

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags) {
  const char *call = "gex_Coll_BarrierNB";
  gex_hyg_TM &t = entry(call, tm, flags);
  auto *op = new_op();
  op->barrier = true;
  return start_coll(call, t, op);
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                                 gex_Flags_t flags) {
  const char *call = "gex_Coll_BroadcastNB";
  gex_hyg_TM &t = entry(call, tm, flags);
  require_root(call, t, root);
  const bool is_root = t.rank == root;
  if (nbytes > 0 && (dst == nullptr || (is_root && src == nullptr)))
    fatal(call, "a null %s for %zu bytes", dst == nullptr ? "dst" : "src", nbytes);
  require_range(call, dst, nbytes);
  if (is_root)
    require_range(call, src, nbytes);
  auto *op = new_op();
  op->total = nbytes;
  op->chunk = kSlotBytes;
  op->combiner.dt = kBytes;
  op->combiner.op = GEX_OP_OR;
  op->signature = sign(kSignBroadcast, root, op->combiner, nbytes);
  if (!is_root)
    op->buffer.assign(std::min(nbytes, kSlotBytes), 0); // the zeros every other rank contributes
  const auto *in = static_cast<const char *>(src);
  auto *out = static_cast<char *>(dst);
  op->prepare = [in, out, is_root](CollOp &o, std::size_t offset, std::size_t bytes) {
    o.send = is_root ? static_cast<const void *>(in + offset) : o.buffer.data();
    o.receive = out + offset;
    o.bytes = bytes;
    o.combiner.count = bytes;
  };
  return start_coll(call, t, op);
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                   size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
  const char *call = "gex_Coll_ReduceToOneNB";
  gex_hyg_TM &t = entry(call, tm, flags);
  require_root(call, t, root);
  Combiner c;
  check_reduction(call, t, dt, dt_sz, dt_cnt, op, user_op, user_cdata, c);
  const bool is_root = t.rank == root;
  if (dt_cnt > 0 && (src == nullptr || (is_root && dst == nullptr)))
    fatal(call, "a null %s for %zu elements", src == nullptr ? "src" : "dst", dt_cnt);
  return start_coll(call, t, reduce_op(call, t, is_root ? dst : nullptr, src, dt_cnt, c, root));
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                                   gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags) {
  const char *call = "gex_Coll_ReduceToAllNB";
  gex_hyg_TM &t = entry(call, tm, flags);
  Combiner c;
  check_reduction(call, t, dt, dt_sz, dt_cnt, op, user_op, user_cdata, c);
  if (dt_cnt > 0 && (src == nullptr || dst == nullptr))
    fatal(call, "a null %s for %zu elements", src == nullptr ? "src" : "dst", dt_cnt);
  return start_coll(call, t, reduce_op(call, t, dst, src, dt_cnt, c, kSignNoRoot));
}

} // extern "C"
