// GASNet-1's extended API [G1 §3]: blocking, non-blocking (explicit handles) and implicit-handle
// (NBI) put, get and memset, register-value operations and access regions, as a layer over
// GASNet-EX's RMA and events on the primordial team (ex_rma.hpp), as GASNet-EX's own legacy layer
// is: gasnet_put_nb is gex_RMA_PutNB(tm, node, ..., GEX_EVENT_NOW, 0), gasnet_put_nb_bulk the same
// with GEX_EVENT_DEFER [G1 §3.3.2.1: a non-bulk put's source is reusable at return], a handle is
// an event, and gasnet_wait_syncnbi_puts is gex_NBI_Wait(GEX_EC_PUT, 0). What GASNet-EX has no
// call for (memset, value gets with a handle) is built here on the same transfers. Each call
// first makes GASNet-1's own checks, so that its messages speak of gasnet_attach and nodes.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "bridge/engine.hpp"
#include "core/limits.hpp"
#include "gasnet/ex_rma.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using engine::Completion;
namespace ex = hygaspi::gasnet::ex;

namespace {

// GASNet-1's entry checks of a call that names a node; the primordial team, whose ranks are nodes.
gex_TM_t team(const char *call, gasnet_node_t node) {
  require_attached(call);
  if (node >= state().nodes)
    fatal(call, "node %u is not in the job (%u nodes)", node, state().nodes);
  return &ex::ex_state().tm_object;
}
gex_TM_t team(const char *call) {
  require_attached(call);
  return &ex::ex_state().tm_object;
}

gex_Event_t event(gasnet_handle_t h) noexcept { return reinterpret_cast<gex_Event_t>(h); }
gasnet_handle_t handle(gex_Event_t e) noexcept { return reinterpret_cast<gasnet_handle_t>(e); }

// Every completed handle becomes GASNET_INVALID_HANDLE [G1 §3.3.3.2]; true when all did.
bool sync_array(const char *call, gasnet_handle_t *phandle, size_t numhandles, bool block) {
  bool all = true;
  for (size_t i = 0; i < numhandles; ++i) {
    if (ex::event_test(call, event(phandle[i]), block))
      phandle[i] = GASNET_INVALID_HANDLE;
    else
      all = false;
  }
  return all;
}

// `pending` nullptr: blocking; else the remote completion goes there (the source is freed here).
void memset_bytes(const char *call, gasnet_node_t node, void *dest, int val, std::size_t n,
                  Completion *pending = nullptr) {
  team(call, node);
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
    const ex::PutMode mode = !last                ? ex::PutMode::at_sync
                             : pending == nullptr ? ex::PutMode::blocking
                                                  : ex::PutMode::source_free;
    ex::put_bytes(call, node, static_cast<char *>(dest) + done, pattern.data(), std::min(pattern.size(), n - done),
                  mode, last ? pending : &earlier);
  }
}

// A memset with a handle: its completion in a fresh event.
gasnet_handle_t memset_nb(const char *call, gasnet_node_t node, void *dest, int val, std::size_t n) {
  const ex::EventSlot slot = ex::reserve_event(call);
  memset_bytes(call, node, dest, val, n, slot.pending);
  return handle(ex::commit_event(slot));
}

} // namespace

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

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  ex::put_blocking("gasnet_put", team("gasnet_put", node), node, dest, src, nbytes, 0);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  ex::put_blocking("gasnet_put_bulk", team("gasnet_put_bulk", node), node, dest, src, nbytes, 0);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  ex::get_blocking("gasnet_get", team("gasnet_get", node), dest, node, src, nbytes, 0);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  ex::get_blocking("gasnet_get_bulk", team("gasnet_get_bulk", node), dest, node, src, nbytes, 0);
}
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  memset_bytes("gasnet_memset", node, dest, val, nbytes);
}

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  const char *call = "gasnet_put_nb";
  return handle(ex::put_nb(call, team(call, node), node, dest, src, nbytes, GEX_EVENT_NOW, 0));
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  const char *call = "gasnet_put_nb_bulk";
  return handle(ex::put_nb(call, team(call, node), node, dest, src, nbytes, GEX_EVENT_DEFER, 0));
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return handle(ex::get_nb("gasnet_get_nb", team("gasnet_get_nb", node), dest, node, src, nbytes, 0));
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return handle(ex::get_nb("gasnet_get_nb_bulk", team("gasnet_get_nb_bulk", node), dest, node, src, nbytes, 0));
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  return memset_nb("gasnet_memset_nb", node, dest, val, nbytes);
}

void gasnet_wait_syncnb(gasnet_handle_t handle) { ex::event_test("gasnet_wait_syncnb", event(handle), true); }
int gasnet_try_syncnb(gasnet_handle_t handle) {
  return ex::event_test("gasnet_try_syncnb", event(handle), false) ? GASNET_OK : GASNET_ERR_NOT_READY;
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
    if (ex::event_test("gasnet_try_syncnb_some", event(phandle[i]), false)) {
      phandle[i] = GASNET_INVALID_HANDLE;
      any_done = true;
    }
  }
  return !any_valid || any_done ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  ex::put_nbi("gasnet_put_nbi", team("gasnet_put_nbi", node), node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  ex::put_nbi("gasnet_put_nbi_bulk", team("gasnet_put_nbi_bulk", node), node, dest, src, nbytes, GEX_EVENT_DEFER, 0);
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  ex::get_nbi("gasnet_get_nbi", team("gasnet_get_nbi", node), dest, node, src, nbytes, 0);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  ex::get_nbi("gasnet_get_nbi_bulk", team("gasnet_get_nbi_bulk", node), dest, node, src, nbytes, 0);
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  memset_bytes("gasnet_memset_nbi", node, dest, val, nbytes, &ex::nbi_set(GEX_EC_PUT));
}

void gasnet_wait_syncnbi_gets(void) { ex::nbi_wait("gasnet_wait_syncnbi_gets", GEX_EC_GET); }
void gasnet_wait_syncnbi_puts(void) { ex::nbi_wait("gasnet_wait_syncnbi_puts", GEX_EC_PUT); }
void gasnet_wait_syncnbi_all(void) { ex::nbi_wait("gasnet_wait_syncnbi_all", GEX_EC_GET | GEX_EC_PUT); }
int gasnet_try_syncnbi_gets(void) {
  return ex::nbi_test("gasnet_try_syncnbi_gets", GEX_EC_GET) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_puts(void) {
  return ex::nbi_test("gasnet_try_syncnbi_puts", GEX_EC_PUT) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_all(void) {
  return ex::nbi_test("gasnet_try_syncnbi_all", GEX_EC_GET | GEX_EC_PUT) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnet_begin_nbi_accessregion(void) {
  team("gasnet_begin_nbi_accessregion");
  ex::begin_access_region("gasnet_begin_nbi_accessregion");
}
gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  return handle(ex::end_access_region("gasnet_end_nbi_accessregion"));
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  ex::put_blocking_val("gasnet_put_val", team("gasnet_put_val", node), node, dest, value, nbytes, 0);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  return handle(ex::put_nb_val("gasnet_put_nb_val", team("gasnet_put_nb_val", node), node, dest, value, nbytes, 0));
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  ex::put_nbi_val("gasnet_put_nbi_val", team("gasnet_put_nbi_val", node), node, dest, value, nbytes, 0);
}
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  return ex::get_blocking_val("gasnet_get_val", team("gasnet_get_val", node), node, src, nbytes, 0);
}

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  const char *call = "gasnet_get_nb_val";
  team(call, node);
  ex::value_size(call, nbytes);
  require_may_communicate(call);
  ValgetPool &pool = t_valgets;
  if (pool.free.empty()) {
    pool.owned.push_back(std::make_unique<gasnet_hyg_valget>());
    pool.free.push_back(pool.owned.back().get());
  }
  gasnet_hyg_valget *h = pool.free.back();
  pool.free.pop_back();
  h->value = 0; // zero-extended [G1 §3.4.2]
  h->state = gasnet_hyg_valget::kLive;
  ex::get_bytes(call, &h->value, node, src, nbytes, &h->pending);
  return h;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  if (handle == nullptr || handle->state != gasnet_hyg_valget::kLive)
    fatal("gasnet_wait_syncnb_valget", "handle %p was already synchronized, or never issued [G1 section 3.4.2]",
          static_cast<void *>(handle));
  ex::settle("gasnet_wait_syncnb_valget", handle->pending);
  handle->state = 0;
  t_valgets.free.push_back(handle);
  return handle->value;
}

} // extern "C"
