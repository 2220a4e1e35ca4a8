// GASNet-EX endpoints beyond the primordial one, segment binding and publication, TM-pairs, and
// the table of what every rank published (ex_internal.hpp "Published"), which RMA through a
// TM-pair reads [GEX-MK sections 3 and 5; GEX "gex_EP_PublishBoundSegment"].
//
// Endpoint indices count 1, 2, ... in creation order, are never reused and stop below
// GASNET_MAXEPS: a process that creates endpoints in the same order as its peers knows their
// indices without asking (UPC++ checks each new index against its own count).
//
// Publication is an exchange over the team: each rank's records (index, address, size, device
// memory or not), gathered with two reductions of the team's collective engine (the largest count,
// then a bitwise OR of every rank's block). The memory itself is reached through the engine's
// segment of the endpoint, which gex_EP_BindSegment made and publication registers with the team:
// a node peer's device memory is opened by the engine (its segment carries the IPC key).
#include <algorithm>
#include <cstring>
#include <functional>

#include "bridge/am_channel.hpp"
#include "bridge/engine.hpp"
#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace hygaspi::gasnet::ex {

namespace {

// Every (job rank, index) pair's publication; rows of GASNET_MAXEPS entries, sized at first use.
struct PublishedTable {
  std::mutex lock;
  std::vector<Published> entries;
  Published &at(gex_Rank_t jobrank, gex_EP_Index_t index) {
    if (entries.empty())
      entries.resize(std::size_t{state().nodes} * GASNET_MAXEPS);
    return entries[std::size_t{jobrank} * GASNET_MAXEPS + index];
  }
};
PublishedTable &table() {
  static auto *t = new PublishedTable; // threads may still read it as the process exits
  return *t;
}

// One published endpoint on the wire: 3 words.
struct EndpointRecord {
  std::uint64_t head = 0; // bit 63 present, bit 62 has a segment, bit 61 device memory; low 32 bits the index
  std::uint64_t addr = 0, size = 0;
};
static_assert(std::is_trivially_copyable_v<EndpointRecord>);
static_assert(sizeof(EndpointRecord) == 3 * 8);
constexpr std::uint64_t kPresent = 1ull << 63, kHasSegment = 1ull << 62, kDevice = 1ull << 61;

bool node_peer(gex_Rank_t jobrank) {
  const State &s = state();
  return s.supernode[jobrank] == s.supernode[s.mynode];
}

// A blocking reduction to all over `tm`, through the team's collective engine.
void reduce_all(gex_TM_t tm, std::uint64_t *dst, const std::uint64_t *src, std::size_t count, gex_OP_t op) {
  gex_Event_Wait(
      gex_Coll_ReduceToAllNB(tm, dst, src, GEX_DT_U64, sizeof(std::uint64_t), count, op, nullptr, nullptr, 0));
}

} // namespace

// The created endpoint of index i (1 <= i < ep_count), or nullptr. Lock-free.
gex_hyg_EP *created(std::uint32_t i) noexcept {
  ExState &x = ex_state();
  return i >= 1 && i < x.ep_count.load(std::memory_order_acquire) ? x.ep_table[i].load(std::memory_order_acquire)
                                                                  : nullptr;
}

gex_hyg_EP &endpoint(const char *call, gex_EP_t ep) noexcept {
  ExState &x = ex_state();
  if (!x.client.load(std::memory_order_acquire))
    fatal(call, "called before gex_Client_Init");
  if (ep == &x.ep_object)
    return x.ep_object;
  for (std::uint32_t i = 1; gex_hyg_EP *e = created(i); ++i)
    if (e == ep)
      return *e;
  fatal(call, "ep %p is not an endpoint of this client", static_cast<void *>(ep));
}

bool is_pair(gex_TM_t tm) noexcept {
  ExState &x = ex_state();
  const auto in = [tm](const gex_hyg_EP &e) {
    const std::less<const gex_hyg_TM *> before;
    return !before(tm, e.pairs.data()) && before(tm, e.pairs.data() + e.pairs.size());
  };
  if (in(x.ep_object))
    return true;
  for (std::uint32_t i = 1; gex_hyg_EP *e = created(i); ++i)
    if (in(*e))
      return true;
  return false;
}

bool published(gex_Rank_t jobrank, gex_EP_Index_t index, Published &out) {
  PublishedTable &t = table();
  std::lock_guard lock(t.lock);
  const Published &p = t.at(jobrank, index);
  if (!p.valid)
    return false;
  out = p;
  return true;
}

namespace {
// The offset of [addr, +n) in what (jobrank, index) published; fatal naming the call outside it.
std::uint64_t published_offset(const char *call, gex_Rank_t jobrank, gex_EP_Index_t index, const Published &p,
                               const void *addr, std::size_t n) {
  const auto a = reinterpret_cast<std::uint64_t>(addr);
  if (a < p.addr || a - p.addr > p.size || n > p.size - (a - p.addr))
    fatal(call, "[%p, +%zu) is not inside the segment of rank %u's endpoint %u [%p, +%llu)", addr, n, jobrank, index,
          reinterpret_cast<void *>(p.addr), static_cast<unsigned long long>(p.size));
  return a - p.addr;
}
} // namespace

Route reach(const char *call, gex_Rank_t jobrank, gex_EP_Index_t index, const void *addr, std::size_t n) {
  const State &s = state();
  Route route;
  if (index == 0) {
    route.offset = segment_offset(call, jobrank, addr, n); // fatal outside the primordial segment
    const NodeSegment &seg = s.segments[jobrank];
    route.local = seg.mapped == nullptr ? nullptr : seg.mapped + route.offset;
    return route;
  }
  Published p;
  if (!published(jobrank, index, p))
    fatal(call, "rank %u published no segment for endpoint %u (never, or it was destroyed)", jobrank, index);
  route.offset = published_offset(call, jobrank, index, p, addr, n);
  const SegmentView *view = engine::direct_view(GlobalRank{jobrank}, endpoint_segment(index));
  if (view == nullptr) {
    if (p.device && node_peer(jobrank))
      fatal(call,
            "rank %u's endpoint %u segment is not open here: destroyed, or device memory this process cannot open "
            "(see above)",
            jobrank, index);
    route.by_engine = true;
    return route;
  }
  // What was published and what the engine has must be the same segment: a rank that destroyed
  // and bound again without publishing anew is reached as it is now, and never outside it.
  if (n > view->size || route.offset > view->size - n || (view->memory == Memory::cuda) != p.device)
    fatal(call, "rank %u's endpoint %u segment changed since it was published", jobrank, index);
  route.local = view->data + route.offset;
  route.device = p.device;
  if (p.device) {
    route.dev = local_device(static_cast<unsigned>(view->device));
    if (route.dev == nullptr)
      fatal(call, "no CUDA device %d in this process for rank %u's endpoint %u segment", view->device, jobrank, index);
  }
  return route;
}

namespace {

// Forgets what `jobrank` published of the endpoints whose indices are the bits of `endpoints`, and
// closes this process's mapping of their engine segments.
void forget(gex_Rank_t jobrank, std::uint64_t endpoints) {
  PublishedTable &t = table();
  std::lock_guard lock(t.lock);
  for (gex_EP_Index_t i = 1; i < GASNET_MAXEPS; ++i)
    if ((endpoints >> i & 1) != 0) {
      t.at(jobrank, i) = Published{};
      engine::release_mapping(GlobalRank{jobrank}, endpoint_segment(i));
    }
}

} // namespace

static_assert(GASNET_MAXEPS <= 64, "an endpoint mask is 64 bits");

void unpublish_device(std::uint64_t endpoints) {
  const State &s = state();
  forget(s.mynode, endpoints);
  if (!am::is_open())
    return; // no messaging: no peer can have learnt of it
  std::atomic<unsigned> answered{0};
  unsigned asked = 0;
  const gasnet_handlerarg_t args[4] = {high(endpoints), low(endpoints),
                                       high(reinterpret_cast<std::uint64_t>(&answered)),
                                       low(reinterpret_cast<std::uint64_t>(&answered))};
  for (gex_Rank_t r = 0; r < s.nodes; ++r)
    if (r != s.mynode && node_peer(r)) {
      am_internal(r, kHandlerUnmap, args, 4);
      ++asked;
    }
  block_until([&] { return answered.load(std::memory_order_acquire) == asked; });
}

} // namespace hygaspi::gasnet::ex

namespace hygaspi::gasnet {

std::array<void (*)(), 256> *endpoint_handlers(unsigned ep) noexcept {
  if (ep == 0)
    return &state().handlers;
  gex_hyg_EP *e = created(ep);
  return e != nullptr && (e->capabilities & GEX_EP_CAPABILITY_AM) != 0 ? &e->handlers : nullptr;
}

LongPlace long_place(const char *call, gasnet_node_t node, unsigned ep, const void *addr, std::size_t n) {
  const auto a = reinterpret_cast<std::uint64_t>(addr);
  if (ep == 0) {
    if (n != 0)
      return {limits::kGasnetSegment, segment_offset(call, node, addr, n)};
    // A Long of 0 bytes may name any address, and the handler gets it as given ([GEX "Misc
    // semantic strengthening"]: "even for the degenerate case when nbytes==0"): the offset from the
    // segment's base wraps, and the target adds it back the same way (run, am.cpp).
    return {limits::kGasnetSegment, a - state().segments[node].addr};
  }
  Published p;
  if (!published(node, ep, p))
    fatal(call, "rank %u published no segment for endpoint %u, where a Long payload would go", node, ep);
  if (p.device)
    fatal(call, "rank %u's endpoint %u segment is device memory: a Long payload goes to host memory only", node, ep);
  if (n == 0)
    return {endpoint_segment(ep), a - p.addr}; // as for the primordial segment above
  return {endpoint_segment(ep), published_offset(call, node, static_cast<gex_EP_Index_t>(ep), p, addr, n)};
}

LongTarget long_target(unsigned ep) noexcept {
  if (ep == 0) {
    const State &s = state();
    return {s.segments[s.mynode].mapped, s.segments[s.mynode].size};
  }
  const SegmentView *view = engine::local_segment(endpoint_segment(ep));
  if (view == nullptr || !view->host_mapped())
    return {};
  return {view->data, view->size};
}

} // namespace hygaspi::gasnet

void hygaspi::gasnet::handle_unmap(const Token &token, gasnet_handler_t handler, const gasnet_handlerarg_t *args,
                                   int nargs) {
  if (handler == kHandlerUnmap && nargs == 4) {
    forget(token.source, join(args[0], args[1]));
    am_internal(token.source, kHandlerUnmapAck, args + 2, 2, true);
    return;
  }
  if (handler == kHandlerUnmapAck && nargs == 2) {
    reinterpret_cast<std::atomic<unsigned> *>(join(args[0], args[1]))->fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  fatal("gasnet_AMPoll", "a malformed unmap message (handler %u, %d arguments) from node %u", handler, nargs,
        token.source);
}

extern "C" {

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities, gex_Flags_t flags) {
  const char *call = "gex_EP_Create";
  require_client(call, client);
  if (ep_p == nullptr)
    fatal(call, "a null ep_p");
  require_flags(call, flags, GEX_FLAG_HINT_ACCEL_ALL);
  if (capabilities == 0 || (capabilities & ~GEX_EP_CAPABILITY_ALL) != 0)
    return error(call, GASNET_ERR_BAD_ARG, "capabilities %#x: name at least one GEX_EP_CAPABILITY_* and no other bit",
                 static_cast<unsigned>(capabilities));
  // [GEX-MK 3.1, note 10]: a capability the implementation does not support is GASNET_ERR_BAD_ARG.
  // A created endpoint takes RMA and AMs through TM-pairs; VIS, collectives and atomics use the
  // primordial one.
  constexpr gex_EP_Capabilities_t kServed = GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM;
  if ((capabilities & ~kServed) != 0)
    return error(call, GASNET_ERR_BAD_ARG,
                 "capabilities %#x: an endpoint beyond the primordial one supports GEX_EP_CAPABILITY_RMA and "
                 "GEX_EP_CAPABILITY_AM only",
                 static_cast<unsigned>(capabilities));
  auto ep = std::make_unique<gex_hyg_EP>();
  ep->capabilities = capabilities;
  ep->flags = flags;
  ExState &x = ex_state();
  std::lock_guard lock(x.eps_lock);
  const std::uint32_t index = x.ep_count.load(std::memory_order_relaxed);
  if (index >= GASNET_MAXEPS)
    return error(call, GASNET_ERR_RESOURCE, "this process has %u endpoints already (GASNET_MAXEPS)", index);
  ep->index = index;
  *ep_p = ep.get();
  x.ep_table[index].store(ep.get(), std::memory_order_release);
  x.eps.push_back(std::move(ep));
  x.ep_count.store(index + 1, std::memory_order_release);
  return GASNET_OK;
}

int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags) {
  const char *call = "gex_EP_BindSegment";
  gex_hyg_EP &e = endpoint(call, ep);
  require_flags(call, flags, 0);
  require_segment_object(call, segment);
  if (e.index == 0 && segment->kind != GEX_MK_HOST)
    fatal(call, "device memory cannot be bound to the primordial endpoint");
  gex_hyg_Segment *none = nullptr;
  if (!e.bound.compare_exchange_strong(none, segment, std::memory_order_acq_rel))
    fatal(call, "endpoint %u has a bound segment already", e.index);
  if (e.index > 0) {
    // The engine's segment of this endpoint: node peers find it at once, other nodes once it is
    // published to them (what the owner serves or the MPI window reaches: ex_mk.cpp pair_copy).
    const std::uint32_t slot = endpoint_segment(e.index);
    const kinds::CudaDevice *dev = segment->device();
    const gaspi_return_t rc = dev != nullptr
                                  ? engine::bind_device_segment(slot, segment->size, 0, segment->addr, dev->ordinal())
                                  : engine::allocate_segment(slot, segment->size, 0, segment->addr, 0);
    if (rc != GASPI_SUCCESS)
      fatal(call, "endpoint %u: the engine could not take its segment [%p, +%zu) (see above)", e.index, segment->addr,
            static_cast<std::size_t>(segment->size));
  }
  return GASNET_OK;
}

int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags) {
  const char *call = "gex_EP_PublishBoundSegment";
  require_tm(call, tm);
  require_flags(call, flags, 0);
  require_may_communicate(call);
  if (num_eps > 0 && eps == nullptr)
    fatal(call, "a null eps for %zu endpoints", num_eps);
  if (num_eps > GASNET_MAXEPS)
    fatal(call, "%zu endpoints: a process has at most GASNET_MAXEPS (%d), each named once", num_eps, GASNET_MAXEPS);
  std::vector<EndpointRecord> mine(num_eps); // value-initialised: every unused byte is 0 for the OR
  for (std::size_t i = 0; i < num_eps; ++i) {
    gex_hyg_EP &e = endpoint(call, eps[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (eps[j] == eps[i])
        fatal(call, "endpoint %u is named twice", e.index);
    EndpointRecord &r = mine[i];
    r.head = kPresent | e.index;
    if (gex_hyg_Segment *seg = e.bound.load(std::memory_order_acquire); seg != nullptr) {
      if (!seg->destroyed)
        for (gex_Rank_t m = 0; m < tm->size; ++m)
          if (engine::register_segment(endpoint_segment(e.index), GlobalRank{tm->jobrank(m)}) != GASPI_SUCCESS)
            fatal(call, "endpoint %u: its segment could not be registered with rank %u (see above)", e.index,
                  tm->jobrank(m));
      r.head |= kHasSegment | (seg->device() != nullptr ? kDevice : 0);
      r.addr = reinterpret_cast<std::uint64_t>(seg->addr);
      r.size = seg->size;
    }
  }
  // The team's largest count, then every rank's block of that many records, ORed into place.
  const std::uint64_t count = num_eps;
  std::uint64_t most = 0;
  reduce_all(tm, &most, &count, 1, GEX_OP_MAX);
  constexpr std::size_t kWords = sizeof(EndpointRecord) / sizeof(std::uint64_t);
  const std::size_t block = most * kWords;
  std::vector<std::uint64_t> all(block * tm->size, 0), contribution(block * tm->size, 0);
  if (num_eps > 0)
    std::memcpy(&contribution[block * tm->rank], static_cast<const void *>(mine.data()),
                num_eps * sizeof(EndpointRecord));
  if (block > 0)
    reduce_all(tm, all.data(), contribution.data(), all.size(), GEX_OP_OR);
  PublishedTable &t = table();
  std::lock_guard lock(t.lock);
  for (gex_Rank_t r = 0; r < tm->size; ++r) {
    const gex_Rank_t jobrank = tm->jobrank(r);
    for (std::uint64_t i = 0; i < most; ++i) {
      EndpointRecord rec;
      std::memcpy(static_cast<void *>(&rec), &all[(r * most + i) * kWords], sizeof rec);
      const auto index = static_cast<gex_EP_Index_t>(rec.head & 0xffffffffu);
      if ((rec.head & kPresent) == 0 || (rec.head & kHasSegment) == 0 || index == 0 || index >= GASNET_MAXEPS)
        continue; // an endpoint without a segment leaves what was published before
      Published &p = t.at(jobrank, index);
      p = Published{};
      p.valid = true;
      p.device = (rec.head & kDevice) != 0;
      p.addr = rec.addr;
      p.size = rec.size;
      if (jobrank == state().mynode)
        p.local = reinterpret_cast<void *>(rec.addr);
    }
  }
  return GASNET_OK;
}

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                                       uintptr_t *size_p, gex_Flags_t flags) {
  const char *call = "gex_EP_QueryBoundSegmentNB";
  require_flags(call, flags, 0);
  void *owner = nullptr, *local = nullptr;
  uintptr_t size = 0;
  if (query_bound(call, tm, rank, &owner, &local, &size) != GASNET_OK) {
    owner = local = nullptr;
    size = 0;
  }
  if (owneraddr_p != nullptr)
    *owneraddr_p = owner;
  if (localaddr_p != nullptr)
    *localaddr_p = local;
  if (size_p != nullptr)
    *size_p = size;
  return GEX_EVENT_INVALID; // complete: every rank's publication is here
}

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
  const char *call = "gex_TM_Pair";
  gex_hyg_EP &e = endpoint(call, local_ep);
  if (remote_ep_index >= GASNET_MAXEPS)
    fatal(call, "remote endpoint index %u is not below GASNET_MAXEPS (%d)", remote_ep_index, GASNET_MAXEPS);
  return &e.pairs[remote_ep_index];
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  const char *call = "gex_TM_TranslateRankToEP";
  require_flags(call, flags, 0);
  return gex_EP_Location_t{job_rank(call, tm, rank), 0}; // every team is of primordial endpoints
}

} // extern "C"
