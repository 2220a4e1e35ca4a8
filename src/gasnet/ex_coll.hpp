// GASNet-EX teams and collectives, internal to ex_team.cpp and ex_coll.cpp (the design is at the
// top of ex_coll.cpp).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "bridge/engine_groups.hpp"
#include "gasnet/ex_internal.hpp"

namespace hygaspi::gasnet::ex {

// Bytes of one member's slot in a team's reduce area: the largest chunk one engine allreduce
// carries; longer collectives run chunk after chunk. Also the largest GEX_DT_USER element.
inline constexpr std::size_t kSlotBytes = 32 * 1024;
// Before each chunk of a broadcast or reduction travels its collective's signature (what was
// called, with which root, type, operation and size), so that members that issued different
// collectives in one place of the team's order learn it instead of mixing their data. The engine
// group's slots hold it beside a full chunk.
inline constexpr std::size_t kSignatureBytes = 16;

// Combines one chunk: acc = acc (op) other over `count` elements (bridge/collectives Combine).
struct Combiner {
  gex_DT_t dt = 0;
  gex_OP_t op = 0;
  std::size_t elem = 1;  // bytes per element
  std::size_t count = 0; // elements in the current chunk
  gex_Coll_ReduceFn_t user_op = nullptr;
  const void *user_cdata = nullptr;
  std::vector<char> scratch; // the right-hand operand for user_op, which writes into it
};

// One initiated collective of a team. A reduction-shaped one runs as engine allreduces of at most
// kSlotBytes each: `prepare(offset, bytes)` names the chunk's send and receive buffers, `finish`
// consumes its result.
struct CollOp {
  // User-provided, so that a recycled operation (std::construct_at) is not zero-filled first: the
  // members below initialise themselves, and signed_small is written before it is read.
  CollOp() noexcept {}
  const char *call = nullptr; // the initiating gex_ call, for messages
  bool barrier = false;
  ValueFold fold = nullptr; // a barrier that folds `value` (fold_barrier_op)
  std::uint64_t value = 0;
  std::size_t total = 0; // bytes this rank contributes, over every chunk
  std::size_t chunk = 0; // bytes per chunk (whole elements)
  std::size_t done = 0;  // bytes of the chunks completed
  bool in_chunk = false; // the current chunk's allreduce has started
  const void *send = nullptr;
  void *receive = nullptr;
  std::size_t bytes = 0; // of the current chunk's engine allreduce
  Combiner combiner;
  std::function<void(CollOp &, std::size_t offset, std::size_t bytes)> prepare, finish;
  std::vector<char> buffer, received, result; // what prepare and finish use
  std::uint64_t signature = 0;                // 0: none (gex_TM_Split's gather); else sign()
  // A chunk behind its signature: in `signed_small` up to kSignedSmall bytes (no allocation for a
  // small collective), else in the vectors.
  static constexpr std::size_t kSignedSmall = kSignatureBytes + 64;
  alignas(16) char signed_small[2][kSignedSmall];
  std::vector<char> signed_send, signed_receive;
  char *signed_out = nullptr, *signed_in = nullptr;
  std::atomic<bool> complete{false}; // set under coll_lock(); a waiter may look without it
  std::uint32_t slot = 0;            // its event's entry (start_coll)
};

struct Team {
  engine::Group *group = nullptr;      // the engine group, in a slot beyond GASPI's
  std::uint32_t slot = 0;              // engine group slot (limits::kMaxGroups + i)
  std::uint64_t splits = 0;            // gex_TM_Split calls over this team so far
  std::deque<CollOp *> pending;        // initiated, not complete: run in initiation order
  std::vector<gex_Rank_t> jobs_sorted; // the members' job ranks, ascending (the group's members)
};

// Guards every Team's queue and engine group, the slots and the events in flight.
std::mutex &coll_lock() noexcept;
// The team's engine group and queue; the primordial team's are made here at its first
// collective. The caller holds coll_lock().
Team &team_of(const char *call, gex_hyg_TM &tm);
// Makes `tm`'s Team: an engine group of its members under `tag` (the same on every member).
// The caller holds coll_lock().
void open_team(const char *call, gex_hyg_TM &tm, std::uint32_t tag);
// Withdraws the team's engine group and frees its slot. The caller holds coll_lock().
void close_team(gex_hyg_TM &tm);

// A cleared operation to fill and start: recycled from this thread's spares (an initiation
// allocates nothing in a steady state), or new.
CollOp *new_op();
// Queues `op` behind the team's earlier collectives and returns its event, or, when it moves
// nothing, frees it and returns GEX_EVENT_INVALID (complete).
gex_Event_t start_coll(const char *call, gex_hyg_TM &tm, CollOp *op);
// Waits until `op` (an event of start) is complete; release() then recycles it.
void wait_op(const char *call, CollOp *op);
void release(CollOp *op);

// A barrier that folds one 64-bit value of every member (engine::barrier_fold): `value` is this
// member's, and the op's `value` holds the fold of all once it is complete. GASNet-1's barrier is
// one (its ids and flags).
CollOp *fold_barrier_op(std::uint64_t value, ValueFold fold);
// One look: true once `op` (an event of start) is complete; release() then recycles it.
bool test_op(CollOp *op);
// The primordial team, made ready for collectives (a GASNet-1 client has no gex_Client_Init).
gex_hyg_TM &primordial_team();
// A barrier of the primordial team, waited for here (the library's own, inside collective calls).
void primordial_barrier(const char *call);
// GASNet's poll moves every team's initiated collectives on (a rank that initiated one and then
// waits in GASNET_BLOCKUNTIL, or computes and polls, must still do its part). True when one moved.
bool collectives_progress() noexcept;

// A gather over the team (every member's `bytes` at its team rank) as an OR-allreduce of zeros.
CollOp *gather_op(const char *call, gex_hyg_TM &tm, const void *mine, std::size_t bytes);

} // namespace hygaspi::gasnet::ex
