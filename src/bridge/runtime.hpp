// Process-wide state behind the C entry points, and the argument checks they share. The bridge is
// the only layer that knows the transports; today every peer is node-local (shm), and the MPI
// transport will be routed here per peer.
#pragma once
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <PGASPI.h>

#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <vector>

#include "core/config.hpp"
#include "core/groups.hpp"
#include "core/knobs.hpp"
#include "core/log.hpp"
#include "core/queues.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/leaders.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/rma.hpp"
#include "shm/node.hpp"
#include "shm/node_group.hpp"
#include "shm/node_reduce.hpp"

// Each gaspi_X is a weak alias of pgaspi_X (spec §14.2), so a tool library can define gaspi_X,
// do its work and call pgaspi_X.
#define HYGASPI_ALIAS(name) extern "C" decltype(p##name) name __attribute__((weak, alias("p" #name)));

#if defined(HYGASPI_NO_ARG_CHECKS)
#define HYGASPI_CHECKS_ON 0
#else
#define HYGASPI_CHECKS_ON 1
#endif

namespace hygaspi {

// How this rank reaches the members of a committed group: node-local members through shm, the
// other nodes through their leaders (the lowest member of each node) over MPI.
struct GroupRoute {
  shm::NodeGroup node;               // the members on my node (node-local indices), slots, tag
  std::vector<int> leaders;          // global rank of each node's leader, ascending
  std::int32_t my_leader_index = -1; // my position in leaders, -1 if I lead no node
  int barrier_phase = 0;             // 0 node arrive, 1 leaders, 2 node release
  mpi::LeaderBarrier leader_barrier;
  mpi::LeaderReduce leader_reduce;
};

struct Runtime {
  std::mutex lifecycle; // serialises init and term
  std::atomic<bool> initialized{false};
  std::atomic<std::uint32_t> in_flight{0};  // blocking calls under way (InFlight); term waits for them
  bool finalized_by_mpi = false;            // MPI_Finalize ran the teardown; the next gaspi_proc_term succeeds
  gaspi_config_t config = default_config(); // proposed before init, granted after
  Knobs knobs;
  std::uint32_t rank = 0;
  std::uint32_t nranks = 1;
  std::chrono::steady_clock::time_point start{};
  shm::Node node;
  shm::NodeReduce reduce;
  mpi::Env mpi; // inactive under hygaspi-run and for a standalone process
  mpi::Rma rma;
  mpi::Control control;
  shm::ShmObject bootstrap_job; // MPI jobs: the job block the node leader created
  // Locality: node-local index of every global rank (-1: another node), and the reverse.
  std::vector<std::int32_t> local_of;
  std::vector<std::uint32_t> global_of;
  std::array<std::atomic<bool>, limits::kMaxQueues> queue_uses_mpi{}; // gaspi_wait must flush
  std::array<GroupRoute, limits::kMaxGroups> routes;

  // Ranks of other nodes that this rank knows to be dead (it killed them: gaspi_proc_kill).
  std::vector<std::atomic<bool>> known_dead;

  // `r` is a global rank everywhere in the bridge; shm::Node takes node-local indices, so every
  // call into it goes through local(). (The issue "One engine with typed peers" makes the two
  // rank spaces distinct types.)
  [[nodiscard]] bool on_node(std::uint32_t r) const noexcept { return local_of[r] >= 0; }
  [[nodiscard]] std::uint32_t local(std::uint32_t r) const noexcept { return static_cast<std::uint32_t>(local_of[r]); }
  // What this rank knows of global rank r's life: a node peer's state is in the job block; of a
  // rank on another node it knows only what it has seen itself.
  [[nodiscard]] bool alive(std::uint32_t r) const noexcept {
    return on_node(r) ? node.alive(local(r)) : !known_dead[r].load(std::memory_order_acquire);
  }
  QueueTable queues;
  GroupTable groups;
  std::mutex segments; // serialises segment creation and deletion
};

extern Runtime g_runtime;
inline Runtime &rt() noexcept { return g_runtime; }

// Takes a per-group or per-queue lock for a blocking call. GASPI_TEST only tries: another thread
// in the same call means "not done yet", so the caller returns GASPI_TIMEOUT.
template <class Mutex> [[nodiscard]] bool lock_for(std::unique_lock<Mutex> &lock, gaspi_timeout_t timeout) {
  if (timeout == GASPI_TEST)
    return lock.try_lock();
  lock.lock();
  return true;
}

// Runs an entry point's body; a stray exception becomes GASPI_ERROR plus a message.
template <class Body> gaspi_return_t guarded(const char *fn, Body &&body) noexcept {
  try {
    return body();
  } catch (const std::exception &e) {
    log::error(fn, "internal error: %s", e.what());
  } catch (...) {
    log::error(fn, "internal error");
  }
  return GASPI_ERROR;
}

#define HYGASPI_TRY(expr)                                                                                              \
  do {                                                                                                                 \
    gaspi_return_t hygaspi_rc_ = (expr);                                                                               \
    if (hygaspi_rc_ != GASPI_SUCCESS)                                                                                  \
      return hygaspi_rc_;                                                                                              \
  } while (0)

// Rejects a call when `cond` is false: logs once with the rank and returns `code`.
#define HYGASPI_CHECK(cond, code, fn, ...)                                                                             \
  do {                                                                                                                 \
    if (HYGASPI_CHECKS_ON && __builtin_expect(!(cond), 0)) {                                                           \
      ::hygaspi::log::error(fn, __VA_ARGS__);                                                                          \
      return code;                                                                                                     \
    }                                                                                                                  \
  } while (0)

// A call that may block counts itself for its whole duration, so that gaspi_proc_term in another
// thread can wake it and wait until it has left before unmapping what it uses (issue 9 item 2).
// Use it instead of check::init: `InFlight call(fn); HYGASPI_TRY(call.status());`. The count and
// `initialized` form a Dekker pair with term (seq_cst on both sides): either the call sees
// `initialized` false and touches nothing, or term sees the count and waits.
class InFlight {
public:
  explicit InFlight(const char *fn) noexcept {
    rt().in_flight.fetch_add(1, std::memory_order_seq_cst);
    if (__builtin_expect(!rt().initialized.load(std::memory_order_seq_cst), 0)) {
      log::error(fn, "called before gaspi_proc_init or after gaspi_proc_term");
      status_ = GASPI_ERR_NOINIT;
    }
  }
  ~InFlight() { rt().in_flight.fetch_sub(1, std::memory_order_seq_cst); }
  InFlight(const InFlight &) = delete;
  InFlight &operator=(const InFlight &) = delete;
  [[nodiscard]] gaspi_return_t status() const noexcept { return status_; }

private:
  gaspi_return_t status_ = GASPI_SUCCESS;
};

namespace check {

inline gaspi_return_t init(const char *fn) noexcept {
  if (__builtin_expect(!rt().initialized.load(std::memory_order_acquire), 0)) {
    log::error(fn, "called before gaspi_proc_init or after gaspi_proc_term");
    return GASPI_ERR_NOINIT;
  }
  return GASPI_SUCCESS;
}

inline gaspi_return_t rank(const char *fn, std::uint32_t r) noexcept {
  HYGASPI_CHECK(r < rt().nranks, GASPI_ERR_INV_RANK, fn, "rank %u out of range (job has %u ranks)", r, rt().nranks);
  HYGASPI_CHECK(rt().alive(r), GASPI_ERROR, fn, "rank %u is dead", r);
  return GASPI_SUCCESS;
}

inline gaspi_return_t queue(const char *fn, std::uint32_t q) noexcept {
  HYGASPI_CHECK(rt().queues.exists(q), GASPI_ERR_INV_QUEUE, fn, "queue %u does not exist", q);
  return GASPI_SUCCESS;
}

// Size 0 is a valid no-op transfer (as GPI-2): it takes its queue entries, and a notification
// posted with or after it keeps its order.
inline gaspi_return_t size(const char *fn, std::uint64_t s) noexcept {
  HYGASPI_CHECK(s <= rt().config.transfer_size_max, GASPI_ERR_INV_COMMSIZE, fn, "size %lu above transfer_size_max=%lu",
                static_cast<unsigned long>(s), static_cast<unsigned long>(rt().config.transfer_size_max));
  return GASPI_SUCCESS;
}

inline gaspi_return_t segment_id(const char *fn, std::uint32_t seg) noexcept {
  HYGASPI_CHECK(seg < rt().config.segment_max, GASPI_ERR_INV_SEG, fn, "segment id %u >= segment_max %u", seg,
                rt().config.segment_max);
  return GASPI_SUCCESS;
}

inline gaspi_return_t local_segment(const char *fn, std::uint32_t seg, std::uint64_t off, std::uint64_t size,
                                    const shm::MappedSegment *&out) noexcept {
  HYGASPI_TRY(segment_id(fn, seg));
  out = rt().node.local(seg);
  HYGASPI_CHECK(out != nullptr, GASPI_ERR_INV_SEG, fn, "local segment %u does not exist", seg);
  HYGASPI_CHECK(off <= out->size && size <= out->size - off, GASPI_ERR_INV_LOC_OFF, fn,
                "local offset %lu + size %lu beyond segment %u (%lu bytes)", static_cast<unsigned long>(off),
                static_cast<unsigned long>(size), seg, static_cast<unsigned long>(out->size));
  return GASPI_SUCCESS;
}

} // namespace check

// A segment of another rank, reached through shm (a node peer) or MPI (another node).
struct RemoteRef {
  const shm::MappedSegment *shm = nullptr;
  const mpi::RemoteSegment *mpi = nullptr;
  std::uint32_t local = 0; // node-local index of the owner (shm)
  std::uint64_t size = 0;
  std::uint32_t notification_num = 0;
};

namespace check {

inline gaspi_return_t remote_segment(const char *fn, std::uint32_t r, std::uint32_t seg, std::uint64_t off,
                                     std::uint64_t size, RemoteRef &out) noexcept {
  HYGASPI_TRY(segment_id(fn, seg));
  if (rt().on_node(r)) {
    out.local = rt().local(r);
    out.shm = rt().node.lookup(out.local, seg);
    HYGASPI_CHECK(out.shm != nullptr, GASPI_ERR_INV_SEG, fn, "segment %u of rank %u does not exist", seg, r);
    out.size = out.shm->size;
    out.notification_num = out.shm->notification_num;
  } else {
    out.mpi = rt().rma.remote(static_cast<int>(r), seg);
    HYGASPI_CHECK(out.mpi != nullptr, GASPI_ERR_INV_SEG, fn, "segment %u of rank %u is not registered with this rank",
                  seg, r);
    out.size = out.mpi->size;
    out.notification_num = out.mpi->notification_num;
  }
  HYGASPI_CHECK(off <= out.size && size <= out.size - off, GASPI_ERR_INV_REM_OFF, fn,
                "remote offset %lu + size %lu beyond segment %u of rank %u (%lu bytes)",
                static_cast<unsigned long>(off), static_cast<unsigned long>(size), seg, r,
                static_cast<unsigned long>(out.size));
  return GASPI_SUCCESS;
}

inline gaspi_return_t notification(const char *fn, std::uint32_t notification_num, std::uint32_t id) noexcept {
  HYGASPI_CHECK(id < notification_num, GASPI_ERR_INV_NOTIF_ID, fn, "notification id %u >= notification_num %u", id,
                notification_num);
  return GASPI_SUCCESS;
}

inline gaspi_return_t list_num(const char *fn, std::uint32_t num) noexcept {
  HYGASPI_CHECK(num > 0 && num <= rt().config.rw_list_elem_max, GASPI_ERR_INV_NUM, fn,
                "list of %u elements outside [1, rw_list_elem_max=%u]", num, rt().config.rw_list_elem_max);
  return GASPI_SUCCESS;
}

template <class T> inline gaspi_return_t not_null(const char *fn, const T *p, const char *what) noexcept {
  HYGASPI_CHECK(p != nullptr, GASPI_ERR_NULLPTR, fn, "%s is NULL", what);
  return GASPI_SUCCESS;
}

} // namespace check

// ---- fast path (FASTPATH.md): the common case of a data-path call, answered with no message and
// no out-of-line call. Each returns nullptr when anything is unusual (not initialised, a bad or
// dead rank, another node, a bad segment or offset, a mapping not cached yet); the entry point
// then runs its full path, which repeats every check and reports the error exactly as before.
namespace fast {

// The mapping of segment `seg` of node peer `rank` when [off, off + size) lies inside it.
inline const shm::MappedSegment *node_segment(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                              std::uint64_t size) noexcept {
  Runtime &r = rt();
  if (!r.initialized.load(std::memory_order_acquire) || rank >= r.nranks || seg >= r.config.segment_max)
    return nullptr;
  const std::int32_t local = r.local_of[rank];
  if (local < 0 || !r.node.alive(static_cast<std::uint32_t>(local)))
    return nullptr;
  const shm::MappedSegment *m = r.node.cached(static_cast<std::uint32_t>(local), seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// A segment of this rank when [off, off + size) lies inside it.
inline const shm::MappedSegment *local_segment(std::uint32_t seg, std::uint64_t off, std::uint64_t size) noexcept {
  if (!rt().initialized.load(std::memory_order_acquire))
    return nullptr;
  const shm::MappedSegment *m = rt().node.local(seg);
  if (m == nullptr || off > m->size || size > m->size - off)
    return nullptr;
  return m;
}

// The 8-byte word of a global atomic on a node peer.
inline std::uint64_t *atomic_word(std::uint32_t rank, std::uint32_t seg, std::uint64_t off,
                                  const void *val_old) noexcept {
  if (val_old == nullptr || off % sizeof(std::uint64_t) != 0)
    return nullptr;
  const shm::MappedSegment *m = node_segment(rank, seg, off, sizeof(std::uint64_t));
  if (m == nullptr || m->data == nullptr)
    return nullptr;
  return reinterpret_cast<std::uint64_t *>(m->data + off);
}

} // namespace fast

// ---- data movement, routed by locality (STYLE.md: "is the peer on my node?")
inline gaspi_return_t route_put(const RemoteRef &dst, std::uint32_t rank, std::uint64_t off, const void *src,
                                std::uint64_t size, std::uint32_t queue) {
  if (dst.shm != nullptr)
    return rt().node.put(*dst.shm, dst.local, off, src, size);
  rt().queue_uses_mpi[queue].store(true, std::memory_order_relaxed);
  return rt().rma.put(static_cast<int>(rank), dst.mpi->data + off, src, size);
}

inline gaspi_return_t route_get(void *dst, const RemoteRef &src, std::uint32_t rank, std::uint64_t off,
                                std::uint64_t size, std::uint32_t queue) {
  if (src.shm != nullptr)
    return rt().node.get(dst, *src.shm, src.local, off, size);
  rt().queue_uses_mpi[queue].store(true, std::memory_order_relaxed);
  return rt().rma.get(dst, static_cast<int>(rank), src.mpi->data + off, size);
}

// spec §8.3.2: never overtakes earlier writes of this queue to `rank` (shm: same thread, release;
// MPI: flush first).
inline gaspi_return_t route_notify(const RemoteRef &dst, std::uint32_t rank, std::uint32_t id, std::uint32_t value) {
  if (dst.shm != nullptr) {
    rt().node.notify(*dst.shm, dst.local, id, value);
    return GASPI_SUCCESS;
  }
  return rt().rma.notify(static_cast<int>(rank), *dst.mpi, id, value);
}

} // namespace hygaspi
