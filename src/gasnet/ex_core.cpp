// GASNet-EX: gex_Client_Init, the primordial objects and their queries, the job's neighbourhoods,
// and the attach that gex_Segment_Attach and gasnet_attach share.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "bridge/am_channel.hpp"
#include "bridge/engine.hpp"
#include "core/no_destroy.hpp"
#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

gex_TM_t gex_hyg_tm0 = nullptr; // gasnetex.h's inline path

namespace hygaspi::gasnet::ex {

namespace {
NoDestroy<ExState> g_ex; // threads may still use it as the process exits
} // namespace
ExState &ex_state() noexcept { return g_ex.value; }

int attach_primordial(const char *call, uintptr_t size, const std::function<int()> &register_handlers) {
  State &s = state();
  ExState &x = ex_state();
  {
    std::lock_guard lock(engine::lifecycle());
    if (s.attached.load())
      return error(call, GASNET_ERR_RESOURCE, "the segment is attached already (one attach per process)");
    if (size % GASNET_PAGESIZE != 0)
      return error(call, GASNET_ERR_BAD_ARG, "size %zu is not a multiple of GASNET_PAGESIZE",
                   static_cast<std::size_t>(size));
    if (size > max_local_segment())
      return error(call, GASNET_ERR_BAD_ARG, "size %zu exceeds gasnet_getMaxLocalSegmentSize() = %zu",
                   static_cast<std::size_t>(size), static_cast<std::size_t>(max_local_segment()));
    // A GASNet-EX client's inbox is open already: its messages wait from here (`serving`), so
    // that none meets the handler table half written.
    s.serving.store(false, std::memory_order_release);
    if (const int rc = register_handlers(); rc != GASNET_OK) {
      s.serving.store(am::is_open(), std::memory_order_release);
      return rc;
    }
    if (size != 0 && engine::create_segment(limits::kGasnetSegment, size) != GASPI_SUCCESS)
      return error(call, GASNET_ERR_RESOURCE, "no segment of %zu bytes that every rank can reach",
                   static_cast<std::size_t>(size));
    // A GASNet-EX client opened its inbox at gex_Client_Init already. Its messages wait from here
    // until attach returns, as a GASNet-1 client's do: a Long that a faster rank sends as soon as
    // its attach returned must find this rank's segment known to its handler.
    if (!am::is_open() && am::open(s.threads) != GASPI_SUCCESS)
      return error(call, GASNET_ERR_RESOURCE, "the active-message inbox cannot be opened");
    s.attached.store(true, std::memory_order_release);
  }
  // Every rank's segment to every rank; the last arrival is also the attach barrier: a rank has
  // them all once every rank has made its segment and opened its inbox.
  std::uint64_t bytes = 0;
  char *mine = size == 0 ? nullptr : engine::mapping(GlobalRank{s.mynode}, limits::kGasnetSegment, &bytes);
  const auto base = reinterpret_cast<std::uint64_t>(mine);
  const gasnet_handlerarg_t args[4] = {high(base), low(base), high(bytes), low(bytes)};
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    am_internal(n, kHandlerSeginfo, args, 4);
  block_until([&] { return s.seginfo_got.load(std::memory_order_acquire) == s.nodes; });
  // The segments this process maps (its own, its node peers'): the rest is reached over MPI.
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    if (s.segments[n].size != 0)
      s.segments[n].mapped = engine::mapping(GlobalRank{n}, limits::kGasnetSegment);
  // Across nodes, puts and gets go through one window over every rank's segment. The attach is
  // collective, so a regular window fits (MPI_Win_create, much cheaper than a dynamic one across
  // hosts: docs/PLATFORM.md). Every rank gets here once it has all the segments.
  if (engine::open_window(limits::kGasnetSegment, mine, bytes) != GASPI_SUCCESS)
    return error(call, GASNET_ERR_RESOURCE, "no MPI window over the segments");
  // Every node peer maps this rank's inbox and segment now; once all have (a barrier), their names
  // go, so that a crash leaves nothing in /dev/shm.
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    (void)engine::mapping(GlobalRank{n}, limits::kInbox);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK)
    return error(call, GASNET_ERR_RESOURCE, "the closing barrier failed");
  engine::forget_segment_name(limits::kInbox);
  if (size != 0)
    engine::forget_segment_name(limits::kGasnetSegment);
  // The inline node path opens: every entry is final, and clients see them through the release.
  s.inline_table.resize(s.nodes);
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    s.inline_table[n] = gasnet_hyg_segment_t{s.segments[n].mapped, s.segments[n].addr, s.segments[n].size};
  // Through the exported names, which reach a client's copies of them (core.cpp).
  gasnet_hyg_nnodes = s.nodes;
  __atomic_store_n(&gasnet_hyg_segments_v1, s.inline_table.data(), __ATOMIC_RELEASE);
  s.attach_done.store(true, std::memory_order_release);
  // The primordial segment object, bound to the primordial endpoint, once RMA may use it.
  if (size != 0) {
    x.segment_object.addr = s.segments[s.mynode].mapped;
    x.segment_object.size = static_cast<uintptr_t>(s.segments[s.mynode].size);
    x.segment_object.primordial = true;
    x.ep_object.bound.store(&x.segment_object, std::memory_order_release);
    x.segment.store(true, std::memory_order_release);
  }
  s.serving.store(true, std::memory_order_release);
  return GASNET_OK;
}

void make_primordial() noexcept {
  ExState &x = ex_state();
  x.client_object.flags = GEX_FLAG_USES_GASNET1;
  x.client_object.name = "GASNET1";
  x.tm_object.rank = state().mynode;
  x.tm_object.size = state().nodes;
  x.client.store(true, std::memory_order_release);
  __atomic_store_n(&gex_hyg_tm0, &x.tm_object, __ATOMIC_RELEASE);
}

// Whether `p` is the primordial object or one of `list` (guarded by `lock`): compared, never read.
template <class T>
bool owned(const T *p, const T &primordial, std::mutex &lock, const std::vector<std::unique_ptr<T>> &list) {
  if (p == &primordial)
    return true;
  std::lock_guard guard(lock);
  return std::any_of(list.begin(), list.end(), [p](const auto &o) { return o.get() == p; });
}

void require_tm(const char *call, gex_TM_t tm) noexcept {
  if (!ex_state().client.load(std::memory_order_acquire))
    fatal(call, "called before gex_Client_Init");
  ExState &x = ex_state();
  if (!owned(tm, x.tm_object, x.teams_lock, x.teams))
    fatal(call, "tm %p is not a team of this client", static_cast<void *>(tm));
}

gex_Rank_t job_rank(const char *call, gex_TM_t tm, gex_Rank_t rank) noexcept {
  require_tm(call, tm);
  if (rank >= tm->size)
    fatal(call, "rank %u is not in the team (%u ranks)", rank, tm->size);
  return tm->jobrank(rank);
}

gex_Rank_t pair_rank(const char *call, gex_Rank_t rank) noexcept {
  if (rank >= state().nodes)
    fatal(call, "rank %u is not in the job (%u ranks): a TM-pair names job ranks", rank, state().nodes);
  return rank;
}

void require_ep(const char *call, gex_EP_t ep) noexcept {
  if (!ex_state().client.load(std::memory_order_acquire))
    fatal(call, "called before gex_Client_Init");
  ExState &x = ex_state();
  if (!owned(ep, x.ep_object, x.eps_lock, x.eps))
    fatal(call, "ep %p is no endpoint of this client", static_cast<void *>(ep));
}

void require_client(const char *call, gex_Client_t client) noexcept {
  if (!ex_state().client.load(std::memory_order_acquire))
    fatal(call, "called before gex_Client_Init");
  if (client != &ex_state().client_object)
    fatal(call, "client %p is not the client of gex_Client_Init", static_cast<void *>(client));
}

void require_segment(const char *call) noexcept {
  if (!state().attach_done.load(std::memory_order_acquire))
    fatal(call, "called before gex_Segment_Attach or gasnet_attach");
}

void require_flags(const char *call, gex_Flags_t flags, gex_Flags_t allowed) noexcept {
  if ((flags & ~allowed) != 0)
    fatal(call, "unsupported flags %#x", static_cast<unsigned>(flags & ~allowed));
}

const char *dt_name(gex_DT_t dt) noexcept {
  switch (dt) {
  case GEX_DT_I32:
    return "GEX_DT_I32";
  case GEX_DT_U32:
    return "GEX_DT_U32";
  case GEX_DT_I64:
    return "GEX_DT_I64";
  case GEX_DT_U64:
    return "GEX_DT_U64";
  case GEX_DT_FLT:
    return "GEX_DT_FLT";
  case GEX_DT_DBL:
    return "GEX_DT_DBL";
  case GEX_DT_USER:
    return "GEX_DT_USER";
  default:
    return nullptr;
  }
}

} // namespace hygaspi::gasnet::ex

namespace {

// The ranks of each neighbourhood (those of one engine node), built once from gasnet_init's
// supernode table: `mine` lists this rank's, sorted; `sets` is the number of neighbourhoods and
// `set_rank` the place of ours among them (by their first rank).
struct Nbrhd {
  std::vector<gex_hyg_RankInfo> mine;
  gex_Rank_t my_index = 0;
  gex_Rank_t sets = 0;
  gex_Rank_t set_rank = 0;
};
const Nbrhd &nbrhd(const char *call) {
  static NoDestroy<Nbrhd> cache;
  static std::once_flag once;
  require_inited(call);
  std::call_once(once, [] {
    const State &s = state();
    Nbrhd &n = cache.value;
    std::vector<gasnet_node_t> firsts;
    for (gasnet_node_t r = 0; r < s.nodes; ++r) {
      if (s.supernode[r] == s.supernode[s.mynode]) {
        if (r == s.mynode)
          n.my_index = static_cast<gex_Rank_t>(n.mine.size());
        n.mine.push_back(gex_hyg_RankInfo{r});
      }
      firsts.push_back(s.supernode[r]);
    }
    std::sort(firsts.begin(), firsts.end());
    firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
    n.sets = static_cast<gex_Rank_t>(firsts.size());
    n.set_rank =
        static_cast<gex_Rank_t>(std::lower_bound(firsts.begin(), firsts.end(), s.supernode[s.mynode]) - firsts.begin());
  });
  return cache.value;
}

void query_nbrhd(const char *call, gex_RankInfo_t **info_p, gex_Rank_t *count_p, gex_Rank_t *index_p) {
  const Nbrhd &n = nbrhd(call);
  if (info_p != nullptr)
    *info_p = n.mine.data();
  if (count_p != nullptr)
    *count_p = static_cast<gex_Rank_t>(n.mine.size());
  if (index_p != nullptr)
    *index_p = n.my_index;
}

// [GEX "Client-Data"]: the handles checked like the rest, before anything reads through them: one
// of this client's objects, or fatal naming the call (a stray pointer must not crash the query).
gex_hyg_Client *object(const char *call, gex_Client_t client) {
  require_client(call, client);
  return client;
}
gex_hyg_EP *object(const char *call, gex_EP_t ep) {
  require_ep(call, ep);
  return ep;
}
gex_hyg_TM *object(const char *call, gex_TM_t tm) {
  require_tm(call, tm);
  return tm;
}
gex_hyg_Segment *object(const char *call, gex_Segment_t segment) {
  require_segment_object(call, segment);
  return segment;
}

bool valid_client_name(const char *name) {
  if (name == nullptr || !(name[0] >= 'A' && name[0] <= 'Z') || name[1] == '\0')
    return false;
  for (const char *c = name + 1; *c != '\0'; ++c)
    if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
      return false;
  return true;
}

} // namespace

extern "C" {

int gex_hyg_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName, int *argc,
                        char ***argv, gex_Flags_t flags, int mode) {
  const char *call = "gex_Client_Init";
  ExState &x = ex_state();
  if (client_p == nullptr || ep_p == nullptr || tm_p == nullptr)
    return error(call, GASNET_ERR_BAD_ARG, "a null client_p, ep_p or tm_p");
  if (!valid_client_name(clientName))
    return error(call, GASNET_ERR_BAD_ARG, "the client name \"%s\" does not match [A-Z][A-Z0-9_]+",
                 clientName == nullptr ? "(null)" : clientName);
  if ((flags & ~GEX_FLAG_USES_GASNET1) != 0)
    return error(call, GASNET_ERR_BAD_ARG, "unsupported flags %#x", static_cast<unsigned>(flags));
  if (x.client.load() || state().inited.load())
    return error(call, GASNET_ERR_RESOURCE, "one client per job, and GASNet is initialized already");
  if (const int rc = gasnet_hyg_init(argc, argv, mode); rc != GASNET_OK)
    return rc;
  // gasnet_hyg_init made the primordial objects as GASNet-1's: they are this client's. No other
  // thread calls GASNet before this call returns.
  x.client_object.flags = flags;
  x.client_object.name = clientName;
  // [GEX]: active messages and collectives work from here on, before (or without) a segment.
  if (const int rc = open_messaging(call); rc != GASNET_OK)
    return rc;
  state().serving.store(true, std::memory_order_release);
  *client_p = &x.client_object;
  *ep_p = &x.ep_object;
  *tm_p = &x.tm_object;
  return GASNET_OK;
}

// A client of gasnet_init/gasnet_attach reaches the primordial objects here: gasnet_init made them
// (the client named "GASNET1", flagged GEX_FLAG_USES_GASNET1), and gasnet_attach the segment.
void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p, gex_Segment_t *segment_p) {
  require_inited("gasnet_QueryGexObjects");
  ExState &x = ex_state();
  if (client_p != nullptr)
    *client_p = &x.client_object;
  if (endpoint_p != nullptr)
    *endpoint_p = &x.ep_object;
  if (tm_p != nullptr)
    *tm_p = &x.tm_object;
  if (segment_p != nullptr)
    *segment_p = x.segment.load(std::memory_order_acquire) ? &x.segment_object : GEX_SEGMENT_INVALID;
}

// GASNet-1's answers (core.cpp), GEX_RANK_INVALID and 0 before gex_Client_Init among them.
static_assert(static_cast<gex_Rank_t>(static_cast<gasnet_node_t>(-1)) == GEX_RANK_INVALID);
gex_Rank_t gex_System_QueryJobRank(void) { return gasnet_mynode(); }
gex_Rank_t gex_System_QueryJobSize(void) { return gasnet_nodes(); }

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p, gex_Rank_t *my_info_index_p) {
  query_nbrhd("gex_System_QueryNbrhdInfo", info_p, info_count_p, my_info_index_p);
}
void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p, gex_Rank_t *my_info_index_p) {
  query_nbrhd("gex_System_QueryHostInfo", info_p, info_count_p, my_info_index_p);
}
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank, gex_Rank_t *host_set_size,
                                gex_Rank_t *host_set_rank) {
  const Nbrhd &n = nbrhd("gex_System_QueryMyPosition");
  for (gex_Rank_t *p : {nbrhd_set_size, host_set_size})
    if (p != nullptr)
      *p = n.sets;
  for (gex_Rank_t *p : {nbrhd_set_rank, host_set_rank})
    if (p != nullptr)
      *p = n.set_rank;
}

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return object("gex_Client_QueryFlags", client)->flags; }
const char *gex_Client_QueryName(gex_Client_t client) { return object("gex_Client_QueryName", client)->name.c_str(); }
void gex_Client_SetCData(gex_Client_t client, const void *val) { object("gex_Client_SetCData", client)->cdata = val; }
void *gex_Client_QueryCData(gex_Client_t client) {
  return const_cast<void *>(object("gex_Client_QueryCData", client)->cdata.load());
}

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) {
  endpoint("gex_EP_QueryClient", ep);
  return &ex_state().client_object;
}
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return endpoint("gex_EP_QueryFlags", ep).flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) {
  const gex_hyg_EP &e = endpoint("gex_EP_QuerySegment", ep);
  if (e.index == 0)
    return ex_state().segment.load(std::memory_order_acquire) ? &ex_state().segment_object : GEX_SEGMENT_INVALID;
  return e.bound.load(std::memory_order_acquire);
}
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return endpoint("gex_EP_QueryIndex", ep).index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { object("gex_EP_SetCData", ep)->cdata = val; }
void *gex_EP_QueryCData(gex_EP_t ep) { return const_cast<void *>(object("gex_EP_QueryCData", ep)->cdata.load()); }

gex_Client_t gex_TM_QueryClient(gex_TM_t tm) {
  require_tm("gex_TM_QueryClient", tm);
  return &ex_state().client_object;
}
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) {
  require_tm("gex_TM_QueryEP", tm);
  return &ex_state().ep_object;
}
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) {
  require_tm("gex_TM_QueryFlags", tm);
  return 0;
}
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) {
  require_tm("gex_TM_QueryRank", tm);
  return tm->rank;
}
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) {
  require_tm("gex_TM_QuerySize", tm);
  return tm->size;
}
gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
  return job_rank("gex_TM_TranslateRankToJobrank", tm, rank);
}
// [GEX "Teams"]: GEX_RANK_INVALID for a job rank that is not in the team.
gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
  const char *call = "gex_TM_TranslateJobrankToRank";
  require_tm(call, tm);
  if (jobrank >= state().nodes)
    fatal(call, "job rank %u is not in the job (%u ranks)", jobrank, state().nodes);
  if (tm->jobranks.empty())
    return jobrank;
  for (gex_Rank_t r = 0; r < tm->size; ++r)
    if (tm->jobranks[r] == jobrank)
      return r;
  return GEX_RANK_INVALID;
}
void gex_TM_SetCData(gex_TM_t tm, const void *val) { object("gex_TM_SetCData", tm)->cdata = val; }
void *gex_TM_QueryCData(gex_TM_t tm) { return const_cast<void *>(object("gex_TM_QueryCData", tm)->cdata.load()); }

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size) {
  const char *call = "gex_Segment_Attach";
  require_tm(call, tm);
  ExState &x = ex_state();
  if (segment_p == nullptr)
    return error(call, GASNET_ERR_BAD_ARG, "a null segment_p");
  if (size == 0 || size % GASNET_PAGESIZE != 0)
    return error(call, GASNET_ERR_BAD_ARG, "size %zu is not a non-zero multiple of GASNET_PAGESIZE",
                 static_cast<std::size_t>(size));
  if (const int rc = attach_primordial(call, size, [] { return GASNET_OK; }); rc != GASNET_OK)
    return rc;
  *segment_p = &x.segment_object;
  return GASNET_OK;
}

gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) {
  object("gex_Segment_QueryClient", seg);
  return &ex_state().client_object;
}
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) {
  object("gex_Segment_QueryFlags", seg);
  return 0;
}
void *gex_Segment_QueryAddr(gex_Segment_t seg) { return object("gex_Segment_QueryAddr", seg)->addr; }
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg) { return object("gex_Segment_QuerySize", seg)->size; }
void gex_Segment_SetCData(gex_Segment_t seg, const void *val) { object("gex_Segment_SetCData", seg)->cdata = val; }
void *gex_Segment_QueryCData(gex_Segment_t seg) {
  return const_cast<void *>(object("gex_Segment_QueryCData", seg)->cdata.load());
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t team_rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p) {
  return query_bound("gex_Segment_QueryBound", tm, team_rank, owneraddr_p, localaddr_p, size_p);
}

} // extern "C"

int hygaspi::gasnet::ex::query_bound(const char *call, gex_TM_t tm, gex_Rank_t team_rank, void **owneraddr_p,
                                     void **localaddr_p, uintptr_t *size_p) {
  if (is_pair(tm) && tm->pair_remote != 0) { // another endpoint's segment: what it published
    require_may_communicate(call);
    (void)pair_rank(call, team_rank);
    Published p;
    if (!published(team_rank, tm->pair_remote, p))
      return 1;
    if (owneraddr_p != nullptr)
      *owneraddr_p = reinterpret_cast<void *>(p.addr);
    if (localaddr_p != nullptr) // device memory is mapped here only in its owner
      *localaddr_p = !p.device || team_rank == state().mynode ? p.local : nullptr;
    if (size_p != nullptr)
      *size_p = static_cast<uintptr_t>(p.size);
    return GASNET_OK;
  }
  const gex_Rank_t rank = is_pair(tm) ? pair_rank(call, team_rank) : job_rank(call, tm, team_rank);
  const State &s = state();
  if (!s.attach_done.load(std::memory_order_acquire) || s.segments[rank].size == 0)
    return 1; // no bound segment: the outputs stay as they are
  const NodeSegment &seg = s.segments[rank];
  if (owneraddr_p != nullptr)
    *owneraddr_p = reinterpret_cast<void *>(seg.addr);
  if (localaddr_p != nullptr)
    *localaddr_p = seg.mapped;
  if (size_p != nullptr)
    *size_p = static_cast<uintptr_t>(seg.size);
  return GASNET_OK;
}
