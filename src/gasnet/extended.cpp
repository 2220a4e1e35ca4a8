// The extended API [G1 §3]: blocking, non-blocking (explicit handles) and implicit-handle (NBI)
// put, get and memset, register-value operations and access regions.
//
// Every operation goes to the engine by (node, the GASNet segment, offset) (bridge/segment_rma.hpp),
// which copies where this process maps the segment (a node peer: the operation completes before
// the call returns, and its handle is GASNET_INVALID_HANDLE, as [G1 §3.3.2] allows) and uses MPI
// RMA on the segment's window otherwise. The blocking and NBI puts and gets of a client compiled
// against gasnet.h make the node copy inline (gasnet_inline.h) and come here only when one of its
// checks fails. Measured on one host (osc/rdma, 2 ranks, each a node of its own, bench_gasnet): a
// raw MPI_Put or MPI_Get + flush of 8 B costs 0.7-1.4 us, two thirds of it in the kernel
// (process_vm_writev/readv: CMA), and ours is 1.0-1.2x that.
//
// Completion [G1 §3.3.1]: what an operation still waits for is an engine::Completion (a ticket per
// target), settled by a flush of each target. A non-bulk put leaves its source reusable at return
// [G1 §3.3.2.1] (Complete::local), the remote part at sync.
//
// A try has no non-blocking test to use: MPI-3 has none for remote completion (MPI_Rput's request
// completes locally only, MPI-3.1 §11.3.5), and only MPI_Win_flush says that the data is at the
// target. [G1 §3.3.1] makes a synced put one whose data "has been written to the destination
// location", and [G1 §3.3.3.1] has gasnet_try_syncnb "always return immediately". We keep the
// first: a try settles (flushes the targets an earlier flush did not pass) and says OK, unless a
// GASNet-EX device copy it covers is still running: then it says not ready and flushes nothing
// (a copy has its own non-blocking test, its CUDA event). That flush
// is bounded: it waits for no action of this thread's client and no GASNet poll, only for MPI
// progress here and at the target (its progress thread, or its next MPI call), so a try loop never
// deadlocks on it; and it is the wait that would follow anyway.
//
// Handles [G1 §3.3.2]: an index into the calling thread's table of operations, the entry's
// generation and the thread's tag. Syncing a dead handle (synced before, never issued, or another
// thread's) is an error [G1 §3.3.3.1], fatal like every extended-API error [G1 §1.6], and found by
// the generation rather than by freeing memory twice.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "bridge/engine.hpp"
#include "bridge/segment_rma.hpp"
#include "core/limits.hpp"
#include "gasnet/internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;

namespace {

using engine::Completion;

// Completes what `p` waits for; fatal when MPI cannot.
void settle(const char *call, Completion &p) {
  if (p.settle() != GASPI_SUCCESS)
    fatal(call, "a transfer could not complete (see above)");
}

// ---- explicit handles: bits 0-23 the entry, 24-47 its generation (odd while in flight, so no
// handle is 0 = GASNET_INVALID_HANDLE), 48-63 the thread's tag.
static_assert(sizeof(gasnet_handle_t) == 8, "a handle packs entry, generation and thread");
constexpr std::uint64_t kIndexBits = 24, kIndexMask = (1u << kIndexBits) - 1, kGenerationMask = (1u << 24) - 1;

struct Op {
  std::uint32_t generation = 0;
  Completion pending; // kept when the entry is free: its vector keeps its capacity
};
std::atomic<std::uint16_t> g_next_tag{1};
struct HandleTable {
  std::uint16_t tag = g_next_tag.fetch_add(1, std::memory_order_relaxed);
  std::vector<Op> ops;
  std::vector<std::uint32_t> free;
};
thread_local HandleTable t_handles; // handles are thread-specific [G1 §3.3.2]

// An entry for an operation about to start; commit() names it.
std::uint32_t reserve(const char *call) {
  HandleTable &t = t_handles;
  if (!t.free.empty()) {
    const std::uint32_t i = t.free.back();
    t.free.pop_back();
    return i;
  }
  if (t.ops.size() > kIndexMask) // 16 M in flight: well above the 2^16-1 of [G1 §3.3.1]
    fatal(call, "more than %llu operations in flight on this thread", static_cast<unsigned long long>(kIndexMask));
  t.ops.emplace_back();
  return static_cast<std::uint32_t>(t.ops.size() - 1);
}

// The handle of entry i, or GASNET_INVALID_HANDLE (and the entry free again) when it completed.
gasnet_handle_t commit(std::uint32_t i) {
  HandleTable &t = t_handles;
  Op &op = t.ops[i];
  if (op.pending.empty()) {
    t.free.push_back(i);
    return GASNET_INVALID_HANDLE;
  }
  op.generation = (op.generation + 1) & kGenerationMask; // odd: in flight
  return (static_cast<gasnet_handle_t>(t.tag) << 48) | (static_cast<gasnet_handle_t>(op.generation) << kIndexBits) | i;
}

// The in-flight entry `h` names; fatal for a dead or foreign handle.
std::uint32_t lookup(const char *call, gasnet_handle_t h) {
  HandleTable &t = t_handles;
  const auto i = static_cast<std::uint32_t>(h & kIndexMask);
  const auto generation = static_cast<std::uint32_t>((h >> kIndexBits) & kGenerationMask);
  if ((h >> 48) != t.tag)
    fatal(call, "handle %#llx was not issued by this thread (handles are thread-specific [G1 section 3.3.2])",
          static_cast<unsigned long long>(h));
  if (i >= t.ops.size() || t.ops[i].generation != generation || (generation & 1u) == 0)
    fatal(call, "handle %#llx was already synchronized, or never issued [G1 section 3.3.3.1]",
          static_cast<unsigned long long>(h));
  return i;
}

// Completes `h`'s operation; the handle is then dead. A try (`block` false) settles too (see the
// top), but leaves a GASNet-EX device copy that is still running, and answers false then.
bool sync_one(const char *call, gasnet_handle_t h, bool block = true) {
  if (h == GASNET_INVALID_HANDLE)
    return true;
  const std::uint32_t i = lookup(call, h);
  HandleTable &t = t_handles;
  if (!block && !t.ops[i].pending.copies_done())
    return false;
  settle(call, t.ops[i].pending);
  t.ops[i].generation = (t.ops[i].generation + 1) & kGenerationMask; // even: dead
  t.free.push_back(i);
  return true;
}

// Every completed handle becomes GASNET_INVALID_HANDLE [G1 §3.3.3.2]; true when all did.
bool sync_array(const char *call, gasnet_handle_t *phandle, size_t numhandles, bool block) {
  bool all = true;
  for (size_t i = 0; i < numhandles; ++i) {
    if (sync_one(call, phandle[i], block))
      phandle[i] = GASNET_INVALID_HANDLE;
    else
      all = false;
  }
  return all;
}

// ---- implicit handles, per thread [G1 §3.3.5]
struct ThreadNbi {
  Completion puts, gets;
  bool in_region = false;
  Completion region; // the open access region's operations
};
thread_local ThreadNbi t_nbi;

// How much of a transfer completes before the call returns.
enum class Mode {
  blocking,    // all of it
  source_free, // a non-bulk put: its source is reusable [G1 §3.3.2.1]; the rest at sync
  at_sync,     // nothing need: bulk puts and non-blocking gets
};

enum class Direction { put, get };

// Moves [remote, +n) of node's segment from or to `local`; what remains to complete goes to
// `pending` (nullptr: Mode::blocking).
void transfer(const char *call, Direction dir, gasnet_node_t node, const void *remote, void *local, std::size_t n,
              Mode mode, Completion *pending) {
  require_attached(call);
  require_may_communicate(call);
  if (n == 0)
    return;
  const std::uint64_t offset = segment_offset(call, node, remote, n);
  Completion *rest = mode == Mode::blocking ? nullptr : pending;
  gaspi_return_t rc;
  if (dir == Direction::put) {
    const engine::Complete complete = mode == Mode::blocking      ? engine::Complete::remote
                                      : mode == Mode::source_free ? engine::Complete::local
                                                                  : engine::Complete::none;
    rc = engine::put(GlobalRank{node}, limits::kGasnetSegment, offset, local, n, complete, rest);
  } else {
    rc = engine::get(local, GlobalRank{node}, limits::kGasnetSegment, offset, n, rest);
  }
  if (rc != GASPI_SUCCESS)
    fatal(call, "%s node %u failed", dir == Direction::put ? "a put to" : "a get from", node);
}

void put_bytes(const char *call, gasnet_node_t node, void *dest, const void *src, std::size_t n, Mode mode,
               Completion *pending = nullptr) {
  transfer(call, Direction::put, node, dest, const_cast<void *>(src), n, mode, pending);
}

void get_bytes(const char *call, void *dest, gasnet_node_t node, const void *src, std::size_t n, Mode mode,
               Completion *pending = nullptr) {
  transfer(call, Direction::get, node, src, dest, n, mode, pending);
}

// `pending` nullptr: blocking; else the remote completion goes there (the source is freed here).
void memset_bytes(const char *call, gasnet_node_t node, void *dest, int val, std::size_t n,
                  Completion *pending = nullptr) {
  require_attached(call);
  require_may_communicate(call);
  if (n == 0)
    return;
  const std::uint64_t offset = segment_offset(call, node, dest, n);
  if (char *mapped = engine::mapping(GlobalRank{node}, limits::kGasnetSegment)) {
    std::memset(mapped + offset, val, n);
    return;
  }
  // No MPI memset: put a pattern, a chunk at a time. The pattern never changes, so every chunk
  // may read it at once; the last put completes them all (locally before it is freed).
  std::vector<char> pattern(std::min<std::size_t>(n, 1u << 16), static_cast<char>(val));
  Completion earlier; // the chunks before the last, which the last one's completion covers
  for (std::size_t done = 0; done < n; done += pattern.size()) {
    const bool last = done + pattern.size() >= n;
    const Mode mode = !last ? Mode::at_sync : pending == nullptr ? Mode::blocking : Mode::source_free;
    put_bytes(call, node, static_cast<char *>(dest) + done, pattern.data(), std::min(pattern.size(), n - done), mode,
              last ? pending : &earlier);
  }
}

// An NBI operation goes to the open access region, or to the thread's NBI set.
Completion &nbi(bool is_put) { return t_nbi.in_region ? t_nbi.region : is_put ? t_nbi.puts : t_nbi.gets; }

} // namespace

namespace {

void no_region(const char *call) {
  if (t_nbi.in_region)
    fatal(call, "an NBI sync inside an access region [G1 section 3.4.3]");
}

// Syncs the thread's NBI puts or gets; a try (`block` false) answers false, and settles nothing,
// while a GASNet-EX device copy among them is still running.
bool sync_nbi(const char *call, bool gets, bool block = true) {
  no_region(call);
  Completion &set = gets ? t_nbi.gets : t_nbi.puts;
  if (!block && !set.copies_done())
    return false;
  settle(call, set);
  return true;
}

std::uint64_t value_bytes(gasnet_register_value_t v, std::size_t n, const char *call) {
  if (n == 0 || n > sizeof(gasnet_register_value_t))
    fatal(call, "nbytes %zu is not in 1..%zu", n, sizeof(gasnet_register_value_t));
  return v; // little-endian: the value's low n bytes are its first n bytes [G1 §3.4.1]
}

// An explicit-handle operation: `start(pending)` starts it into a fresh entry.
template <class Start> gasnet_handle_t with_handle(const char *call, Start &&start) {
  const std::uint32_t i = reserve(call);
  start(&t_handles.ops[i].pending);
  return commit(i);
}

} // namespace

gasnet_handle_t hygaspi::gasnet::handle_of(const char *call, Completion &pending) {
  return with_handle(call, [&](Completion *p) { p->merge(pending); });
}

void hygaspi::gasnet::nbi_join(bool is_put, Completion &pending) { nbi(is_put).merge(pending); }

// Value-get handles have no invalid value [G1 §3.4.2]: each is an object of the thread's pool, and
// a pool object is never freed, so a second sync finds it dead instead of freeing it twice.
struct gasnet_hyg_valget {
  static constexpr std::uint32_t kLive = 0x76616c21; // "val!"
  gasnet_register_value_t value = 0;
  std::uint32_t state = 0; // kLive while in flight
  Completion pending;
};

namespace {
struct ValgetPool {
  std::vector<std::unique_ptr<gasnet_hyg_valget>> owned;
  std::vector<gasnet_hyg_valget *> free;
};
thread_local ValgetPool t_valgets;
} // namespace

namespace hygaspi::gasnet {

bool window_open(void *base, std::uint64_t size) {
  return engine::open_window(limits::kGasnetSegment, base, size) == GASPI_SUCCESS;
}

} // namespace hygaspi::gasnet

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put", node, dest, src, nbytes, Mode::blocking);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put_bulk", node, dest, src, nbytes, Mode::blocking);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get", dest, node, src, nbytes, Mode::blocking);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get_bulk", dest, node, src, nbytes, Mode::blocking);
}
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  memset_bytes("gasnet_memset", node, dest, val, nbytes);
}

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return with_handle("gasnet_put_nb",
                     [&](Completion *p) { put_bytes("gasnet_put_nb", node, dest, src, nbytes, Mode::source_free, p); });
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return with_handle("gasnet_put_nb_bulk", [&](Completion *p) {
    put_bytes("gasnet_put_nb_bulk", node, dest, src, nbytes, Mode::at_sync, p);
  });
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return with_handle("gasnet_get_nb",
                     [&](Completion *p) { get_bytes("gasnet_get_nb", dest, node, src, nbytes, Mode::at_sync, p); });
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return with_handle("gasnet_get_nb_bulk", [&](Completion *p) {
    get_bytes("gasnet_get_nb_bulk", dest, node, src, nbytes, Mode::at_sync, p);
  });
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  return with_handle("gasnet_memset_nb",
                     [&](Completion *p) { memset_bytes("gasnet_memset_nb", node, dest, val, nbytes, p); });
}

void gasnet_wait_syncnb(gasnet_handle_t handle) { sync_one("gasnet_wait_syncnb", handle); }
int gasnet_try_syncnb(gasnet_handle_t handle) {
  return sync_one("gasnet_try_syncnb", handle, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  sync_array("gasnet_wait_syncnb_all", phandle, numhandles, true);
}
int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  return sync_array("gasnet_try_syncnb_all", phandle, numhandles, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  sync_array("gasnet_wait_syncnb_some", phandle, numhandles, true); // every one completes: "at least one" holds
}
int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  // OK when at least one valid handle completed, or none was valid [G1 §3.3.3.3].
  bool any_valid = false, any_done = false;
  for (size_t i = 0; i < numhandles; ++i) {
    if (phandle[i] == GASNET_INVALID_HANDLE)
      continue;
    any_valid = true;
    if (sync_one("gasnet_try_syncnb_some", phandle[i], false)) {
      phandle[i] = GASNET_INVALID_HANDLE;
      any_done = true;
    }
  }
  return !any_valid || any_done ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put_nbi", node, dest, src, nbytes, Mode::source_free, &nbi(true));
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put_nbi_bulk", node, dest, src, nbytes, Mode::at_sync, &nbi(true));
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get_nbi", dest, node, src, nbytes, Mode::at_sync, &nbi(false));
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get_nbi_bulk", dest, node, src, nbytes, Mode::at_sync, &nbi(false));
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  memset_bytes("gasnet_memset_nbi", node, dest, val, nbytes, &nbi(true));
}

void gasnet_wait_syncnbi_gets(void) { sync_nbi("gasnet_wait_syncnbi_gets", true); }
void gasnet_wait_syncnbi_puts(void) { sync_nbi("gasnet_wait_syncnbi_puts", false); }
void gasnet_wait_syncnbi_all(void) {
  sync_nbi("gasnet_wait_syncnbi_all", true);
  sync_nbi("gasnet_wait_syncnbi_all", false);
}
int gasnet_try_syncnbi_gets(void) {
  return sync_nbi("gasnet_try_syncnbi_gets", true, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_puts(void) {
  return sync_nbi("gasnet_try_syncnbi_puts", false, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_all(void) {
  const bool gets = sync_nbi("gasnet_try_syncnbi_all", true, false);
  const bool puts = sync_nbi("gasnet_try_syncnbi_all", false, false);
  return gets && puts ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnet_begin_nbi_accessregion(void) {
  require_attached("gasnet_begin_nbi_accessregion");
  if (t_nbi.in_region)
    fatal("gasnet_begin_nbi_accessregion", "access regions do not nest [G1 section 3.4.3]");
  t_nbi.in_region = true;
}

gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  if (!t_nbi.in_region)
    fatal("gasnet_end_nbi_accessregion", "no access region is open");
  t_nbi.in_region = false;
  return with_handle("gasnet_end_nbi_accessregion", [](Completion *p) { p->merge(t_nbi.region); });
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  const std::uint64_t v = value_bytes(value, nbytes, "gasnet_put_val");
  put_bytes("gasnet_put_val", node, dest, &v, nbytes, Mode::blocking);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  const std::uint64_t v = value_bytes(value, nbytes, "gasnet_put_nb_val");
  return with_handle("gasnet_put_nb_val", [&](Completion *p) {
    put_bytes("gasnet_put_nb_val", node, dest, &v, nbytes, Mode::source_free, p); // v is on this stack
  });
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  const std::uint64_t v = value_bytes(value, nbytes, "gasnet_put_nbi_val");
  put_bytes("gasnet_put_nbi_val", node, dest, &v, nbytes, Mode::source_free, &nbi(true));
}

gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  std::uint64_t v = 0; // zero-extended [G1 §3.4.2]
  value_bytes(0, nbytes, "gasnet_get_val");
  get_bytes("gasnet_get_val", &v, node, src, nbytes, Mode::blocking);
  return v;
}

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  value_bytes(0, nbytes, "gasnet_get_nb_val");
  ValgetPool &pool = t_valgets;
  if (pool.free.empty()) {
    pool.owned.push_back(std::make_unique<gasnet_hyg_valget>());
    pool.free.push_back(pool.owned.back().get());
  }
  gasnet_hyg_valget *h = pool.free.back();
  pool.free.pop_back();
  h->value = 0;
  h->state = gasnet_hyg_valget::kLive;
  get_bytes("gasnet_get_nb_val", &h->value, node, src, nbytes, Mode::at_sync, &h->pending);
  return h;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  if (handle == nullptr || handle->state != gasnet_hyg_valget::kLive)
    fatal("gasnet_wait_syncnb_valget", "handle %p was already synchronized, or never issued [G1 section 3.4.2]",
          static_cast<void *>(handle));
  settle("gasnet_wait_syncnb_valget", handle->pending);
  handle->state = 0;
  t_valgets.free.push_back(handle);
  return handle->value;
}

} // extern "C"
