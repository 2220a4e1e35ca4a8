// GASNet-EX memory kinds and segments [GEX-MK sections 4 and 6]: gex_MK_Create/Destroy (gasnet_mk.h),
// gex_Segment_Create/Destroy of host or CUDA device memory, and the copy behind RMA through a
// TM-pair (pair_copy), which reaches, by the route ex_ep.cpp's reach() finds:
//  - memory this process maps (its own segments, a node peer's primordial segment, a node peer's
//    device segment, which the engine opened through CUDA IPC): memmove, or a copy on the device's
//    stream;
//  - another node's primordial segment (remote index 0) from host memory: the GASNet-1 path;
//  - anything else (another node's segment, a node peer's bound host memory, the primordial
//    segment with a device-memory local side): the engine's segment, by the bridge's routes
//    (engine_copy: the MPI window, through a host bounce buffer for device memory; cross-memory
//    attach; or a request its owner serves for device memory).
// A copy on a device's stream, and a transfer with another node's device memory, may be left in
// flight (an engine::Completion behind an NB event or in the thread's NBI set: see PairWait);
// every other route is complete when pair_copy returns.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "bridge/engine.hpp"
#include "bridge/target.hpp"
#include "core/host_memory.hpp"
#include "gasnet/ex_rma.hpp"
#include "kinds/devices.hpp"
#include "gasnet_mk.h"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

// Live kinds and segments, for the checks of Destroy and of every handle passed in. Segments are
// never freed: an endpoint stays bound to a destroyed segment (the memory-kinds supplement, 4.3),
// and a later call that names it must find it marked, not freed memory.
struct Objects {
  std::mutex lock;
  std::vector<std::unique_ptr<gex_hyg_MK>> kinds;
  std::vector<std::unique_ptr<gex_hyg_Segment>> segments;
  std::atomic<unsigned> device_segments{0}; // live ones: while none, no host range needs a look
};
Objects &objects() {
  static auto *o = new Objects; // threads may still use it as the process exits
  return *o;
}

// Under o.lock: `segment` is one of gex_Segment_Create's and not destroyed ([GEX-MK "Segment
// destruction"]: using a destroyed segment is erroneous); fatal naming the call otherwise.
void require_live(const char *call, const Objects &o, gex_Segment_t segment) {
  if (std::none_of(o.segments.begin(), o.segments.end(), [&](const auto &s) { return s.get() == segment; }))
    fatal(call, "segment %p is no segment of gex_Segment_Create", static_cast<void *>(segment));
  if (segment->destroyed)
    fatal(call, "segment %p was destroyed already", static_cast<void *>(segment));
}

bool live_kind(gex_MK_t kind) {
  Objects &o = objects();
  std::lock_guard lock(o.lock);
  return std::any_of(o.kinds.begin(), o.kinds.end(), [&](const auto &k) { return k.get() == kind; });
}

// [p, p + n) within [base, base + size), overflow-safe.
bool inside(const void *p, std::size_t n, const void *base, std::size_t size) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(base);
  return a >= b && a - b <= size && n <= size - (a - b);
}

} // namespace

namespace hygaspi::gasnet::ex {

void require_host_memory(const char *call, const void *p, std::size_t n) {
  if (n == 0)
    return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  constexpr std::uintptr_t kFirstPage = 4096; // never mapped: a null pointer, or a small offset from one
  if (a < kFirstPage || n - 1 > UINTPTR_MAX - a)
    fatal(call, "the local buffer [%p, +%zu) is not memory of this process (%s)", p, n,
          a < kFirstPage ? "a null pointer" : "it wraps around the address space");
  Objects &o = objects();
  if (o.device_segments.load(std::memory_order_acquire) == 0)
    return;
  kinds::CudaDevice *any = nullptr; // a device of a live segment: the driver is loaded
  {
    std::lock_guard lock(o.lock);
    for (const auto &seg : o.segments) {
      const auto b = reinterpret_cast<std::uintptr_t>(seg->addr);
      const bool overlap = a >= b ? a - b < seg->size : b - a < n; // overflow-safe
      if (seg->kind == GEX_MK_HOST || seg->destroyed)
        continue;
      if (overlap)
        fatal(call,
              "[%p, +%zu) is CUDA device memory (segment %p): a host endpoint's buffers are host memory; device "
              "memory is reached through a TM-pair of the endpoint its segment is bound to",
              p, n, static_cast<void *>(seg.get()));
      any = seg->device();
    }
  }
  // Device memory in no segment (the client's own cuMemAlloc): only the driver knows it. Over MPI,
  // Open MPI's cross-memory attach failed on it and retried without end (one driver query per call
  // while a device segment lives).
  if (any != nullptr && any->is_device_memory(p))
    fatal(call,
          "[%p, +%zu) is CUDA device memory in no segment of this process: a host endpoint's buffers are host "
          "memory; device memory is reached through a segment bound to an endpoint, and its TM-pair",
          p, n);
}

void require_segment_object(const char *call, gex_Segment_t segment) {
  if (segment == GEX_SEGMENT_INVALID)
    fatal(call, "GEX_SEGMENT_INVALID");
  if (segment == &ex_state().segment_object) // the primordial one; any other is looked up before use
    return;
  Objects &o = objects();
  std::lock_guard lock(o.lock);
  require_live(call, o, segment);
}

kinds::CudaDevice *local_device(unsigned ordinal) {
  std::string why;
  return kinds::device(engine::knobs().cuda_library, static_cast<int>(ordinal), why);
}

namespace {

// Memory this process does not map (`reach` says `by_engine`, or another node's primordial segment
// with a device-memory local side): the engine's segment `slot`, which the bridge reaches by its
// own routes (bridge/device_rma.hpp, bridge/target.hpp): a node peer's host memory by cross-memory
// attach, another node's host memory through the MPI window (through a host bounce buffer when the
// local side is device memory), another node's device memory served by its owner. Complete at
// return, but a transfer with another node's device memory, which stays in flight in `pending`.
void engine_copy(const char *call, gex_Rank_t jobrank, std::uint32_t slot, std::uint64_t offset, void *local,
                 std::size_t n, bool put, const kinds::CudaDevice *local_dev, engine::Completion &pending) {
  engine::Target target;
  if (engine::find(GlobalRank{jobrank}, slot, target) != engine::Found::yes)
    fatal(call, "rank %u's segment (engine segment %u) is not registered with this rank (destroyed?)", jobrank, slot);
  if (offset > target.size() || n > target.size() - offset)
    fatal(call, "[%llu, +%zu) lies outside rank %u's segment of %llu bytes (destroyed and rebound?)",
          static_cast<unsigned long long>(offset), n, jobrank, static_cast<unsigned long long>(target.size()));
  SegmentView device_side; // the local side, when it is device memory
  device_side.memory = Memory::cuda;
  device_side.device = local_dev != nullptr ? local_dev->ordinal() : -1;
  const SegmentView *local_view = local_dev != nullptr ? &device_side : nullptr;
  gaspi_return_t rc = put ? engine::put(target, offset, local, n, 0, local_view, pending)
                          : engine::get(local, target, offset, n, 0, local_view, pending);
  if (rc == GASPI_SUCCESS)
    rc = engine::gets_landed(GlobalRank{jobrank}, 0); // complete at the flush (MPI) or the settle (a device copy)
  if (rc != GASPI_SUCCESS)
    fatal(call, "%s of %zu bytes %s rank %u's segment (engine segment %u) failed (see above)", put ? "a put" : "a get",
          n, put ? "into" : "out of", jobrank, slot);
}

// What `pending` holds goes where `wait` says: complete now (a blocking call waits here, serving
// AMs meanwhile: ex::settle), the thread's NBI set, or an event.
gex_Event_t in_flight(const char *call, engine::Completion &pending, bool put, PairWait wait) {
  if (pending.empty())
    return GEX_EVENT_INVALID;
  if (wait == PairWait::now) {
    settle(call, pending);
    return GEX_EVENT_INVALID;
  }
  if (wait == PairWait::nbi) {
    nbi_join(put ? GEX_EC_PUT : GEX_EC_GET, pending);
    return GEX_EVENT_INVALID;
  }
  return event_of(call, pending);
}

} // namespace

gex_Event_t pair_copy(const char *call, gex_TM_t tm, gex_Rank_t jobrank, void *local, void *remote, std::size_t n,
                      bool put, PairWait wait) {
  gex_hyg_EP &ep = *tm->pair_ep;
  const Route route = reach(call, jobrank, tm->pair_remote, remote, n);
  kinds::CudaDevice *local_dev = nullptr;
  // The local side lies in the local endpoint's bound segment, whose kind says how to reach it, or
  // in host memory.
  const gex_hyg_Segment *seg = ep.bound.load(std::memory_order_acquire);
  // [GEX-MK 4.3]: after gex_Segment_Destroy, communication "which uses addresses in the segment" is
  // erroneous. Its memory was freed (or is the client's again, and may hold a new allocation at the
  // same address): a copy would read or write whatever lives there now.
  if (seg != nullptr && seg->destroyed.load(std::memory_order_acquire) && inside(local, 1, seg->addr, seg->size))
    fatal(call, "the local side [%p, +%zu) lies in endpoint %u's bound segment, which gex_Segment_Destroy destroyed",
          local, n, ep.index);
  if (seg != nullptr && seg->device() != nullptr && inside(local, n, seg->addr, seg->size)) {
    local_dev = local_device(static_cast<unsigned>(seg->device()->ordinal()));
    if (local_dev == nullptr)
      local_dev = seg->device(); // the kind's own device copies as well
  } else if (seg != nullptr && seg->device() != nullptr && inside(local, 1, seg->addr, seg->size)) {
    fatal(call, "[%p, +%zu) runs past the end of endpoint %u's device segment [%p, +%zu)", local, n, ep.index,
          seg->addr, static_cast<std::size_t>(seg->size));
  } else {
    require_host_memory(call, local, n);
  }
  if (route.by_engine || (route.local == nullptr && local_dev != nullptr)) {
    const std::uint32_t slot = tm->pair_remote == 0 ? limits::kGasnetSegment : endpoint_segment(tm->pair_remote);
    engine::Completion pending;
    engine_copy(call, jobrank, slot, route.offset, local, n, put, local_dev, pending);
    return in_flight(call, pending, put, wait); // a blocking call settles it here, serving AMs
  }
  if (route.local == nullptr) { // another node's primordial segment from host memory: the team path
    if (put)
      put_bytes(call, jobrank, remote, local, n, PutMode::blocking, nullptr);
    else
      get_bytes(call, local, jobrank, remote, n, nullptr);
    return GEX_EVENT_INVALID;
  }
  void *dst = put ? route.local : local;
  const void *src = put ? local : route.local;
  kinds::CudaDevice *dev = route.dev != nullptr ? route.dev : local_dev;
  if (dev == nullptr && route.device)
    fatal(call, "rank %u's endpoint %u segment is device memory, and this process has no device to copy it with",
          jobrank, tm->pair_remote);
  if (dev == nullptr) {
    std::memmove(dst, src, n);
    return GEX_EVENT_INVALID;
  }
  kinds::Copy copy;
  std::string why;
  if (!dev->start_copy(dst, src, n, copy, why))
    fatal(call, "%s", why.c_str());
  engine::Completion pending;
  pending.add(*dev, copy);
  return in_flight(call, pending, put, wait);
}

} // namespace hygaspi::gasnet::ex

extern "C" {

int gex_MK_Create(gex_MK_t *kind_p, gex_Client_t client, const gex_MK_Create_args_t *args, gex_Flags_t flags) {
  const char *call = "gex_MK_Create";
  require_client(call, client);
  if (kind_p == nullptr || args == nullptr)
    fatal(call, "a null %s", kind_p == nullptr ? "kind_p" : "args");
  require_flags(call, flags, 0);
  if (args->gex_flags != 0)
    fatal(call, "args->gex_flags %#llx: reserved, must be 0", static_cast<unsigned long long>(args->gex_flags));
  // Read as the integer it is: a client's value outside the enumeration is no gex_MK_Class_t.
  std::underlying_type_t<gex_MK_Class_t> cls = 0;
  static_assert(sizeof cls == sizeof args->gex_class);
  std::memcpy(&cls, &args->gex_class, sizeof cls);
  switch (cls) {
  case GEX_MK_CLASS_HOST:
    fatal(call, "GEX_MK_CLASS_HOST has one kind, GEX_MK_HOST, which needs no creation");
  case GEX_MK_CLASS_CUDA_UVA:
    break;
  case GEX_MK_CLASS_HIP:
  case GEX_MK_CLASS_ZE:
    return error(call, GASNET_ERR_BAD_ARG, "memory kind class %s is not served by this build",
                 cls == GEX_MK_CLASS_HIP ? "GEX_MK_CLASS_HIP" : "GEX_MK_CLASS_ZE");
  default:
    return error(call, GASNET_ERR_BAD_ARG, "%lld is no memory kind class", static_cast<long long>(cls));
  }
  const int ordinal = args->gex_args.gex_class_cuda_uva.gex_CUdevice;
  if (ordinal < 0)
    fatal(call, "CUDA device %d: a device ordinal is not negative", ordinal);
  std::string why;
  auto kind = std::make_unique<gex_hyg_MK>();
  kind->device = kinds::CudaDevice::open(engine::knobs().cuda_library, ordinal, why);
  if (kind->device == nullptr)
    return error(call, GASNET_ERR_BAD_ARG, "GEX_MK_CLASS_CUDA_UVA device %d: %s", ordinal, why.c_str());
  Objects &o = objects();
  std::lock_guard lock(o.lock);
  *kind_p = kind.get();
  o.kinds.push_back(std::move(kind));
  return GASNET_OK;
}

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags) {
  const char *call = "gex_MK_Destroy";
  require_flags(call, flags, 0);
  if (kind == GEX_MK_HOST || kind == GEX_MK_INVALID)
    fatal(call, "%s cannot be destroyed", kind == GEX_MK_HOST ? "GEX_MK_HOST" : "GEX_MK_INVALID");
  Objects &o = objects();
  std::unique_ptr<gex_hyg_MK> doomed; // released outside the lock: it calls the driver
  {
    std::lock_guard lock(o.lock);
    auto it = std::find_if(o.kinds.begin(), o.kinds.end(), [&](const auto &k) { return k.get() == kind; });
    if (it == o.kinds.end())
      fatal(call, "kind %p is no live memory kind", static_cast<void *>(kind));
    if (const unsigned n = kind->segments.load(); n != 0)
      fatal(call, "kind %p still has %u segments (gex_Segment_Destroy them first)", static_cast<void *>(kind), n);
    doomed = std::move(*it);
    o.kinds.erase(it);
  }
}

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address, uintptr_t length,
                       gex_MK_t kind, gex_Flags_t flags) {
  const char *call = "gex_Segment_Create";
  require_client(call, client);
  if (segment_p == nullptr)
    fatal(call, "a null segment_p");
  require_flags(call, flags, 0);
  if (length == 0)
    return error(call, GASNET_ERR_BAD_ARG, "length 0");
  if (kind != GEX_MK_HOST && !live_kind(kind))
    return error(call, GASNET_ERR_BAD_ARG, "kind %p is neither GEX_MK_HOST nor a live kind of gex_MK_Create",
                 static_cast<void *>(kind));
  auto seg = std::make_unique<gex_hyg_Segment>();
  seg->kind = kind;
  seg->size = length;
  seg->addr = address;
  if (kind == GEX_MK_HOST) {
    if (address == nullptr) { // [GEX-MK 4.2, 3a]: at most gasnet_getMaxLocalSegmentSize(), rounded to pages
      const uintptr_t most = gasnet_getMaxLocalSegmentSize();
      if (length > most)
        return error(call, GASNET_ERR_BAD_ARG, "length %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                     static_cast<std::size_t>(length), static_cast<std::size_t>(most));
      const uintptr_t rounded =
          (length + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE; // no overflow: <= most
      seg->addr = std::aligned_alloc(GASNET_PAGESIZE, rounded);
      if (seg->addr == nullptr)
        return error(call, GASNET_ERR_RESOURCE, "no memory for %zu bytes", static_cast<std::size_t>(rounded));
      std::memset(seg->addr, 0, rounded);
      seg->size = rounded;
      seg->library_allocated = true;
    } else if (std::string why; !host_accessible(address, length, why)) { // [GEX-MK 4.2, 4 and 6]
      return error(call, GASNET_ERR_BAD_ARG, "[%p, +%zu) %s: host memory must be readable and writable", address,
                   static_cast<std::size_t>(length), why.c_str());
    }
  } else {
    kinds::CudaDevice &dev = *kind->device;
    std::string why;
    if (address == nullptr) {
      void *p = nullptr;
      const kinds::Fail f = dev.allocate(length, p, why);
      if (f != kinds::Fail::none)
        return error(call, f == kinds::Fail::resource ? GASNET_ERR_RESOURCE : GASNET_ERR_BAD_ARG, "%s", why.c_str());
      seg->addr = p;
      seg->library_allocated = true;
    } else if (dev.check_client(address, length, why) != kinds::Fail::none) {
      return error(call, GASNET_ERR_BAD_ARG, "[%p, +%zu) %s", address, static_cast<std::size_t>(length), why.c_str());
    }
    kind->segments.fetch_add(1);
    objects().device_segments.fetch_add(1);
  }
  Objects &o = objects();
  std::lock_guard lock(o.lock);
  *segment_p = seg.get();
  o.segments.push_back(std::move(seg));
  return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags) {
  const char *call = "gex_Segment_Destroy";
  require_flags(call, flags, 0);
  if (segment == GEX_SEGMENT_INVALID)
    fatal(call, "GEX_SEGMENT_INVALID");
  if (segment->primordial)
    fatal(call, "the segment of gex_Segment_Attach cannot be destroyed");
  Objects &o = objects();
  {
    std::lock_guard lock(o.lock);
    require_live(call, o, segment);
    segment->destroyed.store(true, std::memory_order_release);
  }
  // The engine forgets it (and so do the ranks of other nodes it was registered with) before the
  // memory goes.
  std::uint64_t endpoints = 0; // the indices it is bound to, as bits
  for (std::uint32_t i = 1; gex_hyg_EP *e = created(i); ++i)
    if (e->bound.load(std::memory_order_acquire) == segment) {
      (void)engine::delete_segment(endpoint_segment(e->index));
      endpoints |= std::uint64_t{1} << e->index;
    }
  if (kinds::CudaDevice *dev = segment->device(); dev != nullptr) {
    unpublish_device(endpoints); // no node peer still maps it when it is freed
    if (segment->library_allocated)
      dev->release(segment->addr);
    segment->kind->segments.fetch_sub(1);
    o.device_segments.fetch_sub(1);
  } else if (segment->library_allocated) {
    std::free(segment->addr);
  }
}

} // extern "C"
