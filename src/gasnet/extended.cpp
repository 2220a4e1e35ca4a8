// The extended API [G1 §3]: blocking, non-blocking (explicit handles) and implicit-handle (NBI)
// put, get and memset, register-value operations and access regions.
//
// A node peer's segment is mapped here, so every operation on it is a copy that completes before
// the call returns: its handle is GASNET_INVALID_HANDLE [G1 §3.3.1 allows it]. A segment on
// another node is reached with MPI RMA on the engine's window (MPI_Put / MPI_Get in the lock_all
// epoch); completion is an MPI_Win_flush of the target. A handle names the target (its MPI rank
// in the low bits, tagged odd), or points at a list of targets (an access region); syncing it
// flushes them. A non-bulk put must leave its source reusable at return [G1 §3.3.2], so it
// completes at once across nodes too; bulk puts and all gets complete at sync.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "bridge/runtime.hpp"
#include "gasnet/internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;

struct gasnet_hyg_valget {
  gasnet_register_value_t value;
  int target; // MPI rank to flush, or -1
};

namespace {

enum class Sync { now, at_sync };

// The MPI ranks an NBI set touched, per thread [G1 §3.4: NBI state is per thread].
struct NbiSet {
  std::vector<int> puts, gets;
};
struct ThreadNbi {
  NbiSet set;
  bool in_region = false;
  std::vector<int> region; // targets of the open access region
};
thread_local ThreadNbi t_nbi;

void add_target(std::vector<int> &v, int rank) {
  if (std::find(v.begin(), v.end(), rank) == v.end())
    v.push_back(rank);
}

void flush_targets(const char *call, const std::vector<int> &targets) {
  for (int t : targets)
    if (rt().rma.flush(t) != GASPI_SUCCESS)
      fatal(call, "MPI could not complete the transfers to node %d", t);
}

gasnet_handle_t target_handle(int rank) { return (static_cast<gasnet_handle_t>(rank) << 1) | 1u; }

// The remote address of [offset, +n) of node's segment, for MPI.
std::uint64_t mpi_address(const char *call, const Peer &peer, std::uint64_t offset) {
  const mpi::RemoteSegment *seg = rt().rma.remote(peer.mpi.value(), limits::kGasnetSegment);
  if (seg == nullptr)
    fatal(call, "node %u's segment is not known here", peer.global.value());
  return seg->data + offset;
}

enum class Direction { put, get };

// Starts a transfer between `local` and [remote, +n) of node's segment; returns the MPI rank to
// flush for its completion, or -1 when it completed.
int transfer(const char *call, Direction dir, gasnet_node_t node, const void *remote, void *local, std::size_t n,
             Sync sync) {
  require_attached(call);
  require_may_communicate(call);
  if (n == 0)
    return -1;
  const std::uint64_t offset = segment_offset(call, node, remote, n);
  const Peer &peer = rt().peers[GlobalRank{node}];
  if (peer.on_node()) {
    char *mapped = state().segments[node].mapped + offset;
    if (dir == Direction::put)
      std::memcpy(mapped, local, n);
    else
      std::memcpy(local, mapped, n);
    return -1;
  }
  const int rank = peer.mpi.value();
  const std::uint64_t address = mpi_address(call, peer, offset);
  if ((dir == Direction::put ? rt().rma.put(rank, address, local, n) : rt().rma.get(local, rank, address, n)) !=
      GASPI_SUCCESS)
    fatal(call, "%s node %u failed", dir == Direction::put ? "MPI_Put to" : "MPI_Get from", node);
  if (sync == Sync::now) {
    flush_targets(call, {rank});
    return -1;
  }
  return rank;
}

int put_bytes(const char *call, gasnet_node_t node, void *dest, const void *src, std::size_t n, Sync sync) {
  return transfer(call, Direction::put, node, dest, const_cast<void *>(src), n, sync);
}

int get_bytes(const char *call, void *dest, gasnet_node_t node, const void *src, std::size_t n, Sync sync) {
  return transfer(call, Direction::get, node, src, dest, n, sync);
}

int memset_bytes(const char *call, gasnet_node_t node, void *dest, int val, std::size_t n) {
  require_attached(call);
  require_may_communicate(call);
  if (n == 0)
    return -1;
  const std::uint64_t offset = segment_offset(call, node, dest, n);
  if (rt().peers[GlobalRank{node}].on_node()) {
    std::memset(state().segments[node].mapped + offset, val, n);
    return -1;
  }
  // No MPI memset: put a pattern, a chunk at a time, and complete each before reusing it.
  std::vector<char> pattern(std::min<std::size_t>(n, 1u << 16), static_cast<char>(val));
  for (std::size_t done = 0; done < n; done += pattern.size())
    put_bytes(call, node, static_cast<char *>(dest) + done, pattern.data(), std::min(pattern.size(), n - done),
              Sync::now);
  return -1;
}

gasnet_handle_t handle_of(int target) { return target < 0 ? GASNET_INVALID_HANDLE : target_handle(target); }

// An NBI operation: recorded in the open access region, or in the thread's NBI set.
void record_nbi(int target, bool is_put) {
  if (target < 0)
    return;
  if (t_nbi.in_region)
    add_target(t_nbi.region, target);
  else
    add_target(is_put ? t_nbi.set.puts : t_nbi.set.gets, target);
}

void sync_handle(const char *call, gasnet_handle_t h) {
  if (h == GASNET_INVALID_HANDLE)
    return;
  if ((h & 1u) != 0) {
    flush_targets(call, {static_cast<int>(h >> 1)});
    return;
  }
  std::unique_ptr<std::vector<int>> targets(reinterpret_cast<std::vector<int> *>(h));
  flush_targets(call, *targets);
}

void no_region(const char *call) {
  if (t_nbi.in_region)
    fatal(call, "an NBI sync inside an access region [G1 section 3.4.3]");
}

std::uint64_t value_bytes(gasnet_register_value_t v, std::size_t n, const char *call) {
  if (n == 0 || n > sizeof(gasnet_register_value_t))
    fatal(call, "nbytes %zu is not in 1..%zu", n, sizeof(gasnet_register_value_t));
  return v; // little-endian: the value's low n bytes are its first n bytes [G1 §3.4.1]
}

} // namespace

extern "C" {

void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put", node, dest, src, nbytes, Sync::now);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  put_bytes("gasnet_put_bulk", node, dest, src, nbytes, Sync::now);
}
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get", dest, node, src, nbytes, Sync::now);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  get_bytes("gasnet_get_bulk", dest, node, src, nbytes, Sync::now);
}
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  memset_bytes("gasnet_memset", node, dest, val, nbytes);
}

gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return handle_of(put_bytes("gasnet_put_nb", node, dest, src, nbytes, Sync::now));
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return handle_of(put_bytes("gasnet_put_nb_bulk", node, dest, src, nbytes, Sync::at_sync));
}
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return handle_of(get_bytes("gasnet_get_nb", dest, node, src, nbytes, Sync::at_sync));
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return handle_of(get_bytes("gasnet_get_nb_bulk", dest, node, src, nbytes, Sync::at_sync));
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  return handle_of(memset_bytes("gasnet_memset_nb", node, dest, val, nbytes));
}

void gasnet_wait_syncnb(gasnet_handle_t handle) { sync_handle("gasnet_wait_syncnb", handle); }
// MPI-3 has no non-blocking flush: a try completes the transfers (a bounded wait) and says OK.
int gasnet_try_syncnb(gasnet_handle_t handle) {
  sync_handle("gasnet_try_syncnb", handle);
  return GASNET_OK;
}
void gasnet_wait_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  for (size_t i = 0; i < numhandles; ++i) {
    sync_handle("gasnet_wait_syncnb_all", phandle[i]);
    phandle[i] = GASNET_INVALID_HANDLE;
  }
}
int gasnet_try_syncnb_all(gasnet_handle_t *phandle, size_t numhandles) {
  gasnet_wait_syncnb_all(phandle, numhandles);
  return GASNET_OK;
}
void gasnet_wait_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gasnet_wait_syncnb_all(phandle, numhandles); // every one completes: "at least one" holds
}
int gasnet_try_syncnb_some(gasnet_handle_t *phandle, size_t numhandles) {
  gasnet_wait_syncnb_all(phandle, numhandles);
  return GASNET_OK;
}

void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  record_nbi(put_bytes("gasnet_put_nbi", node, dest, src, nbytes, Sync::now), true);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  record_nbi(put_bytes("gasnet_put_nbi_bulk", node, dest, src, nbytes, Sync::at_sync), true);
}
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  record_nbi(get_bytes("gasnet_get_nbi", dest, node, src, nbytes, Sync::at_sync), false);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  record_nbi(get_bytes("gasnet_get_nbi_bulk", dest, node, src, nbytes, Sync::at_sync), false);
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  record_nbi(memset_bytes("gasnet_memset_nbi", node, dest, val, nbytes), true);
}

void gasnet_wait_syncnbi_gets(void) {
  no_region("gasnet_wait_syncnbi_gets");
  flush_targets("gasnet_wait_syncnbi_gets", t_nbi.set.gets);
  t_nbi.set.gets.clear();
}
void gasnet_wait_syncnbi_puts(void) {
  no_region("gasnet_wait_syncnbi_puts");
  flush_targets("gasnet_wait_syncnbi_puts", t_nbi.set.puts);
  t_nbi.set.puts.clear();
}
void gasnet_wait_syncnbi_all(void) {
  gasnet_wait_syncnbi_gets();
  gasnet_wait_syncnbi_puts();
}
int gasnet_try_syncnbi_gets(void) {
  gasnet_wait_syncnbi_gets();
  return GASNET_OK;
}
int gasnet_try_syncnbi_puts(void) {
  gasnet_wait_syncnbi_puts();
  return GASNET_OK;
}
int gasnet_try_syncnbi_all(void) {
  gasnet_wait_syncnbi_all();
  return GASNET_OK;
}

void gasnet_begin_nbi_accessregion(void) {
  require_attached("gasnet_begin_nbi_accessregion");
  if (t_nbi.in_region)
    fatal("gasnet_begin_nbi_accessregion", "access regions do not nest [G1 section 3.4.3]");
  t_nbi.in_region = true;
  t_nbi.region.clear();
}

gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  if (!t_nbi.in_region)
    fatal("gasnet_end_nbi_accessregion", "no access region is open");
  t_nbi.in_region = false;
  if (t_nbi.region.empty())
    return GASNET_INVALID_HANDLE;
  if (t_nbi.region.size() == 1)
    return target_handle(t_nbi.region.front());
  auto *targets = new std::vector<int>(std::move(t_nbi.region));
  t_nbi.region.clear();
  return reinterpret_cast<gasnet_handle_t>(targets); // even: a list (sync_handle frees it)
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  const std::uint64_t v = value_bytes(value, nbytes, "gasnet_put_val");
  put_bytes("gasnet_put_val", node, dest, &v, nbytes, Sync::now);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  gasnet_put_val(node, dest, value, nbytes);
  return GASNET_INVALID_HANDLE;
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value, size_t nbytes) {
  gasnet_put_val(node, dest, value, nbytes);
}

gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  std::uint64_t v = 0; // zero-extended [G1 §3.4.2]
  value_bytes(0, nbytes, "gasnet_get_val");
  get_bytes("gasnet_get_val", &v, node, src, nbytes, Sync::now);
  return v;
}

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  value_bytes(0, nbytes, "gasnet_get_nb_val");
  auto *h = new gasnet_hyg_valget{0, -1};
  h->target = get_bytes("gasnet_get_nb_val", &h->value, node, src, nbytes, Sync::at_sync);
  return h;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle) {
  if (handle == nullptr)
    fatal("gasnet_wait_syncnb_valget", "a null handle");
  std::unique_ptr<gasnet_hyg_valget> h(handle);
  if (h->target >= 0)
    flush_targets("gasnet_wait_syncnb_valget", {h->target});
  return h->value;
}

} // extern "C"
