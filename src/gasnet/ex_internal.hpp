// The GASNet-EX front end (gasnetex.h). It shares the job, the handler table and the active-message
// lanes with the GASNet-1 front end (internal.hpp), and GASNet-1's extended API is a layer over its
// RMA and events (ex_rma.hpp). Its objects: the primordial ones (one client, its endpoint, the team
// of every rank, team rank = job rank = GASNet-1 node, and the segment gex_Segment_Attach or
// gasnet_attach binds), the teams of gex_TM_Split, and the endpoints, segments, memory kinds and
// TM-pairs of ex_ep.cpp and ex_mk.cpp.
#pragma once
#define GASNET_HYG_LIBRARY 1
#include <gasnetex.h>

#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/limits.hpp"
#include "gasnet/internal.hpp"
#include "kinds/cuda_device.hpp"

struct gex_hyg_Client {
  std::atomic<const void *> cdata{nullptr};
  gex_Flags_t flags = 0;
  std::string name;
};
namespace hygaspi::gasnet::ex {
struct Team; // its engine group and its collectives in flight (ex_coll.hpp)
} // namespace hygaspi::gasnet::ex

// A team: the primordial one (every rank, team rank = job rank, `jobranks` empty), one that
// gex_TM_Split made (`jobranks` lists the job rank of each team rank), or a TM-pair (`pair_ep`
// set: ranks are job ranks, and the remote endpoint is `pair_remote` at every rank).
struct gex_hyg_TM {
  std::atomic<const void *> cdata{nullptr};
  std::vector<gex_Rank_t> jobranks;
  gex_Rank_t rank = 0; // this process's rank in the team
  gex_Rank_t size = 0;
  hygaspi::gasnet::ex::Team *coll = nullptr; // made at gex_TM_Split, or the primordial team's first collective
  gex_hyg_EP *pair_ep = nullptr;             // a TM-pair's local endpoint
  gex_EP_Index_t pair_remote = 0;            // a TM-pair's remote endpoint index
  [[nodiscard]] gex_Rank_t jobrank(gex_Rank_t r) const noexcept { return jobranks.empty() ? r : jobranks[r]; }
};

// A memory kind of gex_MK_Create: its class and, for CUDA_UVA, the device. GEX_MK_HOST is no object.
struct gex_hyg_MK {
  std::unique_ptr<hygaspi::kinds::CudaDevice> device;
  std::atomic<unsigned> segments{0}; // live segments of the kind: gex_MK_Destroy waits for none
};

struct gex_hyg_Segment {
  std::atomic<const void *> cdata{nullptr};
  void *addr = nullptr;
  uintptr_t size = 0;
  gex_MK_t kind = GEX_MK_HOST;
  bool library_allocated = false;     // gex_Segment_Create allocated it (and Destroy frees it)
  bool primordial = false;            // gex_Segment_Attach's
  std::atomic<bool> destroyed{false}; // gex_Segment_Destroy was called (the object stays: see ex_mk.cpp)
  [[nodiscard]] hygaspi::kinds::CudaDevice *device() const noexcept {
    return kind == GEX_MK_HOST ? nullptr : kind->device.get();
  }
};

// An endpoint: the primordial one (index 0) or one of gex_EP_Create. Its TM-pairs live in it, one
// per remote index, so that gex_TM_Pair hands out the same value for the same arguments.
struct gex_hyg_EP {
  std::atomic<const void *> cdata{nullptr};
  gex_EP_Index_t index = 0;
  gex_EP_Capabilities_t capabilities = GEX_EP_CAPABILITY_ALL;
  gex_Flags_t flags = 0;
  std::atomic<gex_hyg_Segment *> bound{nullptr};
  std::array<gex_hyg_TM, GASNET_MAXEPS> pairs;
  // A created endpoint with GEX_EP_CAPABILITY_AM: its handler table and what each index was
  // registered with (the primordial endpoint's are GASNet-1's State::handlers and
  // ExState::entries).
  std::array<void (*)(), 256> handlers{};
  std::array<gex_AM_Entry_t, 256> entries{};
  gex_hyg_EP() noexcept {
    for (gex_EP_Index_t i = 0; i < GASNET_MAXEPS; ++i) {
      pairs[i].pair_ep = this;
      pairs[i].pair_remote = i;
    }
  }
  gex_hyg_EP(const gex_hyg_EP &) = delete;
  gex_hyg_EP &operator=(const gex_hyg_EP &) = delete;
};

namespace hygaspi::gasnet::ex {

struct ExState {
  std::atomic<bool> client{false}; // gex_Client_Init succeeded
  gex_hyg_Client client_object;
  gex_hyg_EP ep_object;
  gex_hyg_TM tm_object;
  gex_hyg_Segment segment_object;
  std::atomic<bool> segment{false};          // gex_Segment_Attach succeeded
  std::mutex registry;                       // gex_EP_RegisterHandlers
  std::array<gex_AM_Entry_t, 256> entries{}; // what each client index was registered with
  std::mutex teams_lock;                     // the teams gex_TM_Split made; never freed while in use
  std::vector<std::unique_ptr<gex_hyg_TM>> teams;
  // gex_EP_Create's endpoints: ep_table[i] has index i (0: the primordial one, set at first use),
  // published with a release store before ep_count counts it, so that lookups (every RMA call asks
  // whether its tm is a TM-pair) take no lock. Never freed (no gex_EP_Destroy exists): a handle
  // stays valid and an index is never reused.
  std::mutex eps_lock; // creation
  std::vector<std::unique_ptr<gex_hyg_EP>> eps;
  std::array<std::atomic<gex_hyg_EP *>, GASNET_MAXEPS> ep_table{};
  std::atomic<std::uint32_t> ep_count{1}; // endpoints, the primordial one included
};
ExState &ex_state() noexcept;
// Makes the primordial client, endpoint and team, as GASNet-1's (the client "GASNET1", flagged
// GEX_FLAG_USES_GASNET1): gasnet_init does, once it knows the job; gex_Client_Init then names
// the client as its caller asks. GASNet-1's calls are made on them (extended.cpp).
void make_primordial() noexcept;
// The attach, collective over the job (gasnet_attach, gex_Segment_Attach): this rank's primordial
// segment of `size` bytes (0: none, GASNet-1 only), the AM inbox, every rank's segment known
// here, the window over them, and the primordial segment object. `register_handlers` runs once the
// checks have passed, before any client message can run; its error ends the attach.
int attach_primordial(const char *call, uintptr_t size, const std::function<int()> &register_handlers);

// The endpoint `ep` (primordial or created), checked: fatal naming the call when it is none.
gex_hyg_EP &endpoint(const char *call, gex_EP_t ep) noexcept;
// The created endpoint of index i, or nullptr (index 0, or not created). Lock-free.
gex_hyg_EP *created(std::uint32_t i) noexcept;
// `tm` is a TM-pair of one of this client's endpoints (checked without reading through `tm`).
bool is_pair(gex_TM_t tm) noexcept;

// The engine segment of the segment bound to endpoint `index` (1 <= index < GASNET_MAXEPS).
static_assert(GASNET_MAXEPS - 1 == hygaspi::limits::kEndpointSegments);
static_assert(GASNET_MAXEPS == hygaspi::gasnet::kMaxEndpoints); // an AM head's endpoint indices
inline std::uint32_t endpoint_segment(gex_EP_Index_t index) noexcept {
  return hygaspi::limits::kEndpointSegment0 + index - 1;
}

// What a rank published of one of its endpoints' bound segments (gex_EP_PublishBoundSegment): the
// owner's address and the size, which RMA through a TM-pair addresses and checks ranges against.
// How this process reaches the memory is the engine's (its segment of that endpoint).
struct Published {
  bool valid = false;
  bool device = false; // CUDA device memory; host memory otherwise
  std::uint64_t addr = 0, size = 0;
  void *local = nullptr; // the owner's address when the owner is this process
};
// A copy of the entry of (job rank, endpoint index > 0); false when none was published.
// Thread-safe.
bool published(gex_Rank_t jobrank, gex_EP_Index_t index, Published &out);
// How this process reaches [addr, +n) of (jobrank, index)'s bound segment (fatal naming the call
// when the range lies outside it): `local`, this process's address of it, and `dev`, the device to
// copy with when it is device memory (the engine's view of its segment of that endpoint: this
// process's own, or a node peer's device memory, which the engine opens through CUDA IPC the
// first time); or, for memory this process does not map (a node peer's bound host memory, another
// node's segment of an endpoint beyond 0), `by_engine` with the range's `offset` in the segment:
// the bridge's routes reach it (ex_mk.cpp engine_copy). Index 0 across nodes: neither (the
// GASNet-1 path).
struct Route {
  void *local = nullptr;
  bool device = false; // the range is device memory
  hygaspi::kinds::CudaDevice *dev = nullptr;
  bool by_engine = false;
  std::uint64_t offset = 0;
};
Route reach(const char *call, gex_Rank_t jobrank, gex_EP_Index_t index, const void *addr, std::size_t n);
// gex_Segment_Destroy of a device segment bound to the endpoints whose indices are the bits of
// `endpoints`: every node peer forgets what this rank published of them and closes its mapping
// (engine::release_mapping), and has answered, before the memory may be freed. Waits, polling.
void unpublish_device(std::uint64_t endpoints);
// A host endpoint's buffer [p, +n) (an RMA's local side, an AM's payload) is neither in the first
// page (null) nor wrapping around the address space, nor device memory of a live segment of this
// process: fatal naming the call otherwise, before the library's host copy faults or Open MPI's
// cross-memory attach fails on it (which it reported, and retried, without end). Nearly free while
// no device segment lives.
void require_host_memory(const char *call, const void *p, std::size_t n);
// `segment` is the primordial segment or a live one of gex_Segment_Create; fatal naming the call
// otherwise.
void require_segment_object(const char *call, gex_Segment_t segment);
// The fixed-payload AM calls (ex_am.cpp): gex_AM_{Request,Reply}{Short,Medium,Long}M, and GASNet-1's
// gasnet_AM{Request,Reply}* on the primordial team. `call` names the caller in messages.
int am_request(const char *call, int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
               const void *source_addr, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
               int numargs, std::va_list args);
int am_reply(const char *call, int category, gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
             size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, std::va_list args);
// gex_Segment_QueryBound, for the calls that answer through it (fatal messages name `call`).
int query_bound(const char *call, gex_TM_t tm, gex_Rank_t team_rank, void **owneraddr_p, void **localaddr_p,
                uintptr_t *size_p);
// This process's device of CUDA ordinal `ordinal`, through which node peers' memory on it is
// opened and copied (opened at first use, kept for the process's life); nullptr without one.
hygaspi::kinds::CudaDevice *local_device(unsigned ordinal);
// RMA through a TM-pair (ex_rma.cpp calls it for TM-pairs): a copy between `local` (host memory,
// or in the local endpoint's bound segment) and the remote range. `wait` says what the caller
// takes: now (complete at return), an event, or the thread's NBI set (or open access region). Only
// a copy on a device's stream (this process's device memory, or a node peer's through IPC) and a
// transfer with another node's device memory are left in flight, in an engine::Completion behind
// a GASNet-1 handle (the event) or the thread's NBI set, as every RMA is; the other routes
// complete at return, and the result is then GEX_EVENT_INVALID.
enum class PairWait : std::uint8_t { now, event, nbi };
gex_Event_t pair_copy(const char *call, gex_TM_t tm, gex_Rank_t jobrank, void *local, void *remote, std::size_t n,
                      bool put, PairWait wait);

// Entry checks that name the call: `tm` is a team of this client (and the client exists); `ep` the
// primordial endpoint; gex_Segment_Attach (or gasnet_attach) has returned: every rank's segment is
// known and the RMA window is open (AMs and collectives need only gex_Client_Init: require_messaging).
void require_tm(const char *call, gex_TM_t tm) noexcept;
// `rank` of team `tm` (checked as require_tm does), as a job rank; fatal when it is no member.
gex_Rank_t job_rank(const char *call, gex_TM_t tm, gex_Rank_t rank) noexcept;
// `rank` through a TM-pair, which names job ranks; fatal when it is not in the job.
gex_Rank_t pair_rank(const char *call, gex_Rank_t rank) noexcept;
void require_ep(const char *call, gex_EP_t ep) noexcept;
// gex_Client_Init has run and `client` is its client.
void require_client(const char *call, gex_Client_t client) noexcept;
void require_segment(const char *call) noexcept;
// The name of a GEX_DT_* for messages; nullptr for no data type.
const char *dt_name(gex_DT_t dt) noexcept;
// Flags outside `allowed` are fatal, naming the call.
void require_flags(const char *call, gex_Flags_t flags, gex_Flags_t allowed) noexcept;

// The entries that events name, in both event tables (a thread's: ex_events.cpp; the collectives':
// ex_coll.cpp). An event's bits 0-23 are an entry, 24-47 the entry's generation (odd while in
// flight, so that no event is 0 = GEX_EVENT_INVALID), 48-63 the table's tag. An event synchronised
// before, or never issued, is found by its generation, not by memory freed twice.
template <class T> class EventEntries {
public:
  static constexpr std::uint64_t kIndexBits = 24, kFieldMask = (1u << kIndexBits) - 1;

  // A free entry, its value kept from its last use; fatal past 2^24 entries in flight.
  std::uint32_t reserve(const char *call) {
    if (free_.empty()) {
      if (entries_.size() > kFieldMask)
        fatal(call, "%zu operations are in flight, the most one event table keeps", entries_.size());
      free_.push_back(static_cast<std::uint32_t>(entries_.size()));
      entries_.emplace_back();
    }
    const std::uint32_t i = free_.back();
    free_.pop_back();
    return i;
  }
  // Gives back a reserved entry that never went in flight.
  void unreserve(std::uint32_t i) { free_.push_back(i); }
  // Puts entry i in flight: its event's bits 0-47.
  std::uint64_t start(std::uint32_t i) {
    Entry &e = entries_[i];
    e.generation = (e.generation + 1) & kFieldMask; // odd
    return (std::uint64_t{e.generation} << kIndexBits) | i;
  }
  // Ends entry i's flight (its events are dead: the generation turns even) and frees it.
  void end(std::uint32_t i) {
    Entry &e = entries_[i];
    e.generation = (e.generation + 1) & kFieldMask;
    free_.push_back(i);
  }
  // The entry in flight that an event's bits 0-47 name, or -1.
  [[nodiscard]] std::int64_t find(std::uint64_t bits) const noexcept {
    const auto i = static_cast<std::uint32_t>(bits & kFieldMask);
    const auto generation = static_cast<std::uint32_t>((bits >> kIndexBits) & kFieldMask);
    if (i >= entries_.size() || entries_[i].generation != generation || (generation & 1u) == 0)
      return -1;
    return i;
  }
  T &operator[](std::uint32_t i) noexcept { return entries_[i].value; }

private:
  struct Entry {
    T value{};
    std::uint32_t generation = 0;
  };
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> free_;
};

// Events besides those of the thread's event table (ex_rma.hpp: bits 48-63 hold a thread tag,
// never 0; RMA, remote atomics and device copies alike):
// - collectives (ex_coll.cpp): an entry of the process's table of collectives in flight and its
//   generation, with 0 in bits 48-63. coll_test is true (and the event consumed) once complete.
inline bool is_coll_event(gex_Event_t e) noexcept {
  const auto v = reinterpret_cast<std::uintptr_t>(e);
  return v != 0 && (v >> 48) == 0;
}
bool coll_test(const char *call, gex_Event_t e, bool block);

} // namespace hygaspi::gasnet::ex
