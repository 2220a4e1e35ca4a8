// GASNet-EX remote atomics [GEX "Remote Atomic Operations"]: atomic domains (gex_AD_Create,
// Destroy and their queries) and gex_AD_OpNB/OpNBI for every built-in data type, each a case of the
// engine's one atomic operation (core/atomic_op.hpp), as GASPI's fetch_add and compare_swap are.
//
// - A target on this node (this rank included) is a word of a segment mapped here: the call applies
//   the engine's CPU atomic (core/atomic_op.hpp) on it and has completed when it returns, so an NB call
//   returns GEX_EVENT_INVALID ([GEX] allows it for an operation completed synchronously) and an NBI
//   call leaves nothing to sync. The all-valid case takes a short path over the GASNet-1 inline
//   table of mapped segments; anything else goes through every check, with its message.
// - A target on another node gets a request (engine::start_atomic) that its progress serves
//   with the same CPU atomic on its mapping (bridge/progress.cpp): one atomicity domain for node
//   peers and remote ranks (docs/DESIGN.md "Atomicity"). The request stays in flight past the call,
//   in the engine's one completion object (engine::Completion) that RMA uses too: an NB call's
//   event is an entry of the thread's event table (ex_events.cpp), and an NBI call adds it to the
//   thread's NBI set of its category (GEX_EC_PUT for SET, GEX_EC_GET for GET, GEX_EC_RMW for the
//   rest), or to the open access region. A fetching operation writes *result_p when it is
//   synchronised.
//
// Bad input the spec leaves undefined is fatal, naming the rank and the call: an opcode that is not
// one of the domain's, a data type other than the domain's, a target not aligned to its type or not
// inside the target's segment, an unknown flag.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "bridge/segment_atomic.hpp"
#include "core/atomic_op.hpp"
#include "core/limits.hpp"
#include "gasnet/ex_internal.hpp"
#include "gasnet/ex_rma.hpp"

// The head is what a client's inline path reads (gasnetex_inline.h): magic, dt, the opcodes it may
// apply, and whether team rank = job rank (the primordial team), which the short paths need.
struct alignas(GEX_HYG_AD_SLOT) gex_hyg_AD {
  gex_hyg_AD_head_t head{};
  gex_TM_t tm = nullptr;
  gex_OP_t ops = 0;
  gex_Flags_t flags = 0;
  std::atomic<const void *> cdata{nullptr};
};
static_assert(offsetof(gex_hyg_AD, head) == 0);
static_assert(sizeof(gex_hyg_AD) == GEX_HYG_AD_SLOT); // a domain per slot of the pool

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

constexpr std::uint32_t kLive = GEX_HYG_AD_LIVE;

// Every atomic opcode; the bit-wise ones, for integers only.
constexpr gex_OP_t kAtomicOps = (GEX_OP_FXOR << 1) - 1;
constexpr gex_OP_t kBitwiseOps = GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR;
constexpr gex_Flags_t kFavorFlags = GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE;
constexpr gex_Flags_t kOpFlags = GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ |
                                 GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK;
// What the short path takes: MY_NBRHD holds for every rank whose segment is mapped here.
constexpr gex_Flags_t kFastFlags = GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL;

// Each C type's data type.
template <class T> struct Dt;
template <> struct Dt<std::int32_t> {
  static constexpr gex_DT_t dt = GEX_DT_I32;
  static constexpr const char *nb = "gex_AD_OpNB_I32", *nbi = "gex_AD_OpNBI_I32";
  static constexpr AtomicType type = AtomicType::i32;
};
template <> struct Dt<std::uint32_t> {
  static constexpr gex_DT_t dt = GEX_DT_U32;
  static constexpr const char *nb = "gex_AD_OpNB_U32", *nbi = "gex_AD_OpNBI_U32";
  static constexpr AtomicType type = AtomicType::u32;
};
template <> struct Dt<std::int64_t> {
  static constexpr gex_DT_t dt = GEX_DT_I64;
  static constexpr const char *nb = "gex_AD_OpNB_I64", *nbi = "gex_AD_OpNBI_I64";
  static constexpr AtomicType type = AtomicType::i64;
};
template <> struct Dt<std::uint64_t> {
  static constexpr gex_DT_t dt = GEX_DT_U64;
  static constexpr const char *nb = "gex_AD_OpNB_U64", *nbi = "gex_AD_OpNBI_U64";
  static constexpr AtomicType type = AtomicType::u64;
};
template <> struct Dt<float> {
  static constexpr gex_DT_t dt = GEX_DT_FLT;
  static constexpr const char *nb = "gex_AD_OpNB_FLT", *nbi = "gex_AD_OpNBI_FLT";
  static constexpr AtomicType type = AtomicType::f32;
};
template <> struct Dt<double> {
  static constexpr gex_DT_t dt = GEX_DT_DBL;
  static constexpr const char *nb = "gex_AD_OpNB_DBL", *nbi = "gex_AD_OpNBI_DBL";
  static constexpr AtomicType type = AtomicType::f64;
};

// An opcode (one bit) as the engine's operation: its code, whether it fetches, whether its operand
// is 1 (INC, DEC), and the NBI category that completes it.
struct Opcode {
  AtomicCode code;
  bool fetch;
  bool one;
  gex_EC_t category;
};
constexpr Opcode kOpcodes[] = {
    {AtomicCode::get, true, false, GEX_EC_GET},     {AtomicCode::set, false, false, GEX_EC_PUT},
    {AtomicCode::swap, true, false, GEX_EC_RMW},    {AtomicCode::cas, false, false, GEX_EC_RMW},
    {AtomicCode::cas, true, false, GEX_EC_RMW},     {AtomicCode::add, false, false, GEX_EC_RMW},
    {AtomicCode::add, true, false, GEX_EC_RMW},     {AtomicCode::sub, false, false, GEX_EC_RMW},
    {AtomicCode::sub, true, false, GEX_EC_RMW},     {AtomicCode::add, false, true, GEX_EC_RMW},
    {AtomicCode::add, true, true, GEX_EC_RMW},      {AtomicCode::sub, false, true, GEX_EC_RMW},
    {AtomicCode::sub, true, true, GEX_EC_RMW},      {AtomicCode::mult, false, false, GEX_EC_RMW},
    {AtomicCode::mult, true, false, GEX_EC_RMW},    {AtomicCode::min, false, false, GEX_EC_RMW},
    {AtomicCode::min, true, false, GEX_EC_RMW},     {AtomicCode::max, false, false, GEX_EC_RMW},
    {AtomicCode::max, true, false, GEX_EC_RMW},     {AtomicCode::bit_and, false, false, GEX_EC_RMW},
    {AtomicCode::bit_and, true, false, GEX_EC_RMW}, {AtomicCode::bit_or, false, false, GEX_EC_RMW},
    {AtomicCode::bit_or, true, false, GEX_EC_RMW},  {AtomicCode::bit_xor, false, false, GEX_EC_RMW},
    {AtomicCode::bit_xor, true, false, GEX_EC_RMW},
};
static_assert(std::size(kOpcodes) == std::bit_width(kAtomicOps));
static_assert(GEX_OP_TO_FETCHING(GEX_OP_SET) == GEX_OP_SWAP && GEX_OP_TO_FETCHING(GEX_OP_CAS) == GEX_OP_FCAS &&
              GEX_OP_TO_FETCHING(GEX_OP_XOR) == GEX_OP_FXOR && GEX_OP_TO_NONFETCHING(GEX_OP_FINC) == GEX_OP_INC);
const Opcode &opcode_of(gex_OP_t opcode) noexcept { return kOpcodes[std::countr_zero(opcode)]; }

template <class T> AtomicOp engine_op(const Opcode &o, T op1, T op2) noexcept {
  return AtomicOp{Dt<T>::type, o.code, atomic_detail::to_bits(o.one ? T{1} : op1), atomic_detail::to_bits(op2)};
}

// ---- domains. They live in one array that is never freed (gex_hyg_AD_pool_v1): a client's inline
// path and the short path below reject a handle outside it before they read through it, and
// domain() does too. Destroyed domains are kept for reuse, so that a stale handle meets a dead
// magic (until a later gex_AD_Create reuses its slot).
constexpr std::size_t kMaxDomains = 16384; // 1 MiB of address space, touched as domains are made
gex_hyg_AD g_pool[kMaxDomains];
std::mutex g_domains_lock;
std::size_t g_pool_used = 0;              // slots handed out at least once
std::vector<gex_hyg_AD *> g_free_domains; // destroyed, for reuse

static_assert(kMaxDomains * sizeof(gex_hyg_AD) == GEX_HYG_AD_POOL_BYTES);
bool in_pool(const void *ad) noexcept { return GEX_HYG_AD_IN_POOL(ad); }

gex_hyg_AD &domain(const char *call, gex_AD_t ad) {
  if (ad == nullptr)
    fatal(call, "a null atomic domain");
  if (!in_pool(ad))
    fatal(call, "ad %p is not an atomic domain that gex_AD_Create made", static_cast<void *>(ad));
  if (ad->head.magic != kLive)
    fatal(call, "ad %p is not a live atomic domain (destroyed?)", static_cast<void *>(ad));
  return *ad;
}

// The short path: a node target and every argument valid. False: take the full path. Inlined
// into the entry points, which then call nothing on it and build no frame.
template <class T>
[[gnu::always_inline]] inline bool node_op(gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr, gex_OP_t opcode,
                                           T op1, T op2, gex_Flags_t flags) noexcept {
  const gasnet_hyg_segment_t *table = __atomic_load_n(&gasnet_hyg_segments_v1, __ATOMIC_ACQUIRE);
  if (!in_pool(ad) || table == nullptr || gasnet_hyg_busy != 0 || ad->head.magic != kLive || ad->head.dt != Dt<T>::dt ||
      (opcode & (opcode - 1)) != 0 || (opcode & ad->ops) == 0 || (flags & ~kFastFlags) != 0 || ad->head.identity == 0 ||
      rank >= gasnet_hyg_nnodes)
    return false;
  const gasnet_hyg_segment_t &seg = table[rank];
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(addr) - seg.addr; // wraps below the segment
  const Opcode &o = opcode_of(opcode);
  if (seg.mapped == nullptr || offset > seg.size || sizeof(T) > seg.size - offset ||
      reinterpret_cast<std::uintptr_t>(addr) % sizeof(T) != 0 || (o.fetch && result_p == nullptr))
    return false;
  // The operations that are one instruction; the compare-exchange loops (MULT, MIN, MAX, float
  // arithmetic) take the full path, which applies every operation (apply_atomic).
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const AtomicCode code = o.code;
  const bool simple = code <= AtomicCode::cas || code >= AtomicCode::bit_and ||
                      (std::is_integral_v<T> && (code == AtomicCode::add || code == AtomicCode::sub));
  if (!simple)
    return false;
  Bits *word = reinterpret_cast<Bits *>(seg.mapped + offset);
  const std::uint64_t old = atomic_detail::apply<T>(word, engine_op(o, op1, op2));
  if (o.fetch)
    *result_p = atomic_detail::from_bits<T>(old);
  return true;
}

// The full path: every check, then the node target (complete at return: GEX_EVENT_INVALID) or a
// request in flight, which joins the thread's NBI set of its category (`nbi`) or becomes an event
// of its own: both in the engine's one completion object (ex_events.cpp).
template <class T>
gex_Event_t full_op(const char *call, gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr, gex_OP_t opcode, T op1,
                    T op2, gex_Flags_t flags, bool nbi) {
  const gex_hyg_AD &d = domain(call, ad);
  if (d.head.dt != Dt<T>::dt)
    fatal(call, "the atomic domain's data type is %s", dt_name(d.head.dt));
  if (opcode == 0 || (opcode & (opcode - 1)) != 0 || (opcode & d.ops) == 0)
    fatal(call, "opcode %#x is not one of the atomic domain's operations (%#x)", static_cast<unsigned>(opcode),
          static_cast<unsigned>(d.ops));
  require_flags(call, flags, kOpFlags);
  if ((flags & GEX_FLAG_AD_MY_RANK) != 0 && (flags & GEX_FLAG_AD_MY_NBRHD) != 0)
    fatal(call, "GEX_FLAG_AD_MY_RANK and GEX_FLAG_AD_MY_NBRHD exclude each other");
  const State &s = state();
  if ((flags & GEX_FLAG_RANK_IS_JOBRANK) != 0) {
    if (rank >= s.nodes || gex_TM_TranslateJobrankToRank(d.tm, rank) == GEX_RANK_INVALID)
      fatal(call, "job rank %u is not a member of the atomic domain's team", rank);
  } else {
    rank = job_rank(call, d.tm, rank);
  }
  require_segment(call);
  require_may_communicate(call);
  if (reinterpret_cast<std::uintptr_t>(addr) % sizeof(T) != 0)
    fatal(call, "tgt_addr %p is not aligned to its type (%zu bytes)", addr, sizeof(T));
  const std::uint64_t offset = segment_offset(call, rank, addr, sizeof(T)); // fatal outside the segment
  if ((flags & GEX_FLAG_AD_MY_RANK) != 0 && rank != s.mynode)
    fatal(call, "GEX_FLAG_AD_MY_RANK, but the target is rank %u", rank);
  if ((flags & GEX_FLAG_AD_MY_NBRHD) != 0 && s.supernode[rank] != s.supernode[s.mynode])
    fatal(call, "GEX_FLAG_AD_MY_NBRHD, but rank %u is not in this rank's neighbourhood", rank);
  const Opcode &o = opcode_of(opcode);
  if (o.fetch && result_p == nullptr)
    fatal(call, "a fetching opcode (%#x) with a null result_p", static_cast<unsigned>(opcode));
  const AtomicOp op = engine_op(o, op1, op2);
  if (char *mapped = s.segments[rank].mapped; mapped != nullptr) {
    const std::uint64_t old = apply_atomic(mapped + offset, op);
    if (o.fetch)
      *result_p = atomic_detail::from_bits<T>(old);
    return GEX_EVENT_INVALID;
  }
  engine::AtomicFlightPtr flight;
  if (engine::start_atomic(GlobalRank{rank}, limits::kGasnetSegment, offset, op, flight) != GASPI_SUCCESS)
    fatal(call, "the atomic cannot be sent to rank %u", rank);
  void *result = o.fetch ? result_p : nullptr;
  if (nbi) {
    nbi_set(o.category).add(std::move(flight), GlobalRank{rank}, result, sizeof(T));
    return GEX_EVENT_INVALID;
  }
  const EventSlot slot = reserve_event(call);
  slot.pending->add(std::move(flight), GlobalRank{rank}, result, sizeof(T));
  return commit_event(slot);
}

// The entry points' full paths, out of line (see node_op), with the entry's own parameters, so that
// the entry's call is a jump.
template <class T>
[[gnu::noinline]] gex_Event_t op_nb_full(gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr, gex_OP_t opcode, T op1,
                                         T op2, gex_Flags_t flags) {
  return full_op(Dt<T>::nb, ad, result_p, rank, addr, opcode, op1, op2, flags, false);
}

template <class T>
[[gnu::noinline]] int op_nbi_full(gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr, gex_OP_t opcode, T op1, T op2,
                                  gex_Flags_t flags) {
  (void)full_op(Dt<T>::nbi, ad, result_p, rank, addr, opcode, op1, op2, flags, true);
  return 0;
}

} // namespace

extern "C" {

// Constant-initialized (no code runs for it), so that a client's copy of it (a copy relocation) holds
// the same value.
constinit const void *const gex_hyg_AD_pool_v1 = &g_pool[0];

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags) {
  const char *call = "gex_AD_Create";
  require_tm(call, tm);
  if (ad_p == nullptr)
    fatal(call, "a null ad_p");
  if (dt_name(dt) == nullptr || dt == GEX_DT_USER) // atomics take the built-in types only
    fatal(call, "dt %#x is not one of GEX_DT_I32, _U32, _I64, _U64, _FLT, _DBL", static_cast<unsigned>(dt));
  if (ops == 0 || (ops & ~kAtomicOps) != 0)
    fatal(call, "ops %#x is not a non-empty set of atomic GEX_OP_* opcodes", static_cast<unsigned>(ops));
  if ((dt == GEX_DT_FLT || dt == GEX_DT_DBL) && (ops & kBitwiseOps) != 0)
    fatal(call, "ops %#x has bit-wise opcodes, which %s does not take", static_cast<unsigned>(ops), dt_name(dt));
  require_flags(call, flags, kFavorFlags);
  if (std::popcount(flags) > 1)
    fatal(call, "the GEX_FLAG_AD_FAVOR_* flags exclude each other");
  gex_hyg_AD *ad = nullptr;
  {
    std::lock_guard lock(g_domains_lock);
    if (!g_free_domains.empty()) {
      ad = g_free_domains.back();
      g_free_domains.pop_back();
    } else if (g_pool_used < kMaxDomains) {
      ad = &g_pool[g_pool_used++];
    }
  }
  if (ad == nullptr)
    fatal(call, "%zu atomic domains exist already, the most this library holds", kMaxDomains);
  ad->tm = tm;
  ad->ops = ops;
  ad->flags = flags;
  ad->cdata.store(nullptr);
  ad->head.dt = dt;
  ad->head.inline_ops = dt == GEX_DT_FLT || dt == GEX_DT_DBL ? 0 : ops & GEX_HYG_AD_INLINE_OPS;
  ad->head.identity = tm->jobranks.empty() ? 1 : 0;
  ad->head.magic = kLive;
  *ad_p = ad;
}

// [GEX]: every operation on the domain is complete before any rank calls this, so nothing here
// waits for peers.
void gex_AD_Destroy(gex_AD_t ad) {
  gex_hyg_AD &d = domain("gex_AD_Destroy", ad);
  d.head.magic = 0;
  std::lock_guard lock(g_domains_lock);
  g_free_domains.push_back(&d);
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return domain("gex_AD_QueryFlags", ad).flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return domain("gex_AD_QueryTM", ad).tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return domain("gex_AD_QueryDT", ad).head.dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return domain("gex_AD_QueryOps", ad).ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val) { domain("gex_AD_SetCData", ad).cdata.store(val); }
void *gex_AD_QueryCData(gex_AD_t ad) { return const_cast<void *>(domain("gex_AD_QueryCData", ad).cdata.load()); }

#define HYG_AD_DEFINE(NAME, TYPE)                                                                                      \
  gex_Event_t gex_AD_OpNB_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode,    \
                                 TYPE operand1, TYPE operand2, gex_Flags_t flags) {                                    \
    if (node_op(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)) [[likely]]                       \
      return GEX_EVENT_INVALID;                                                                                        \
    return op_nb_full<TYPE>(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags);                      \
  }                                                                                                                    \
  int gex_AD_OpNBI_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t opcode,           \
                          TYPE operand1, TYPE operand2, gex_Flags_t flags) {                                           \
    if (node_op(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags)) [[likely]]                       \
      return 0;                                                                                                        \
    return op_nbi_full<TYPE>(ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags);                     \
  }
HYG_AD_DEFINE(I32, std::int32_t)
HYG_AD_DEFINE(U32, std::uint32_t)
HYG_AD_DEFINE(I64, std::int64_t)
HYG_AD_DEFINE(U64, std::uint64_t)
HYG_AD_DEFINE(FLT, float)
HYG_AD_DEFINE(DBL, double)
#undef HYG_AD_DEFINE

} // extern "C"
