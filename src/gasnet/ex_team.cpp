// GASNet-EX teams beyond the primordial one: gex_TM_Split and gex_TM_Destroy, and each team's
// engine group (ex_coll.cpp says how collectives use it).
//
// - gex_TM_Split is a gather over the parent team of each rank's (member?, color, key), run as one
//   of the parent's collectives (so it stays ordered with those initiated before it), then a local
//   choice: the members of my color ordered by key, then parent rank. The new team's engine group
//   lives in a slot of its own beyond GASPI's (limits::kGroupSlots) under a tag every member
//   computes alike: a hash of the parent's tag, the number of splits of the parent so far and the
//   color. Nothing else is exchanged: the members meet at the team's first collective.
// - No client scratch is needed: the size queries (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED, and the
//   deprecated _MIN, which warns once) return 0 and create nothing; a scratch given is unused.
// - gex_TM_Destroy is collective: a barrier over the team (skipped under
//   GEX_FLAG_GLOBALLY_QUIESCED), then the group is withdrawn. The primordial team stays.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/limits.hpp"
#include "gasnet/ex_coll.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

std::array<bool, limits::kFrontEndGroups> &slots_used() { // under coll_lock
  static auto *used = new std::array<bool, limits::kFrontEndGroups>{};
  return *used;
}

std::uint32_t mix(std::uint64_t h, std::uint64_t v) { // FNV-1a over the 8 bytes of v
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 1099511628211ull;
  }
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}
constexpr std::uint64_t kBasis = 1469598103934665603ull;
constexpr std::uint64_t kExSalt = 0x4745585f54454d53ull; // "GEX_TEMS": apart from GASPI's commit tags

std::uint32_t nonzero(std::uint32_t tag) { return tag == 0 ? 1 : tag; }

struct SplitRecord {
  std::int32_t member = 0; // 1: this rank passed a new_tm_p
  std::int32_t color = 0;
  std::int32_t key = 0;
};

} // namespace

namespace hygaspi::gasnet::ex {

void open_team(const char *call, gex_hyg_TM &tm, std::uint32_t tag) {
  auto &used = slots_used();
  const auto free = std::find(used.begin(), used.end(), false);
  if (free == used.end())
    fatal(call, "more than %u teams at once (the primordial one among them), the most this library holds",
          limits::kFrontEndGroups);
  auto t = std::make_unique<Team>();
  t->slot = limits::kMaxGroups + static_cast<std::uint32_t>(free - used.begin());
  for (gex_Rank_t r = 0; r < tm.size; ++r)
    t->jobs_sorted.push_back(tm.jobrank(r));
  std::sort(t->jobs_sorted.begin(), t->jobs_sorted.end());
  t->group = engine::open_group(std::vector<std::uint32_t>(t->jobs_sorted.begin(), t->jobs_sorted.end()), t->slot, tag,
                                kSlotBytes + kSignatureBytes);
  if (t->group == nullptr)
    fatal(call, "the team's engine group could not be made (see the message above)");
  *free = true;
  tm.coll = t.release();
}

void close_team(gex_hyg_TM &tm) {
  Team *t = tm.coll;
  if (t == nullptr)
    return;
  engine::close_group(t->group);
  slots_used()[t->slot - limits::kMaxGroups] = false;
  delete t;
  tm.coll = nullptr;
}

Team &team_of(const char *call, gex_hyg_TM &tm) {
  if (tm.coll == nullptr) // the primordial team: every rank, the same tag everywhere
    open_team(call, tm, nonzero(mix(mix(kBasis, kExSalt), tm.size)));
  return *tm.coll;
}

} // namespace hygaspi::gasnet::ex

extern "C" {

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key, void *scratch_addr, size_t scratch_size,
                    gex_Flags_t flags) {
  const char *call = "gex_TM_Split";
  (void)scratch_addr;
  (void)scratch_size;
  require_tm(call, parent_tm);
  require_messaging(call);
  require_flags(call, flags,
                GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN);
  require_may_communicate(call);
  const gex_Flags_t queries = GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN;
  if ((flags & queries) == queries)
    fatal(call, "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED and _MIN exclude each other");
  if ((flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) != 0) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      std::fprintf(stderr, "[%u] %s: warning: GEX_FLAG_TM_SCRATCH_SIZE_MIN is deprecated; use _RECOMMENDED\n",
                   state().mynode, call);
    });
  }
  if ((flags & queries) != 0)
    return 0; // no scratch needed, for any team; nothing is created
  if (new_tm_p != nullptr && color < 0)
    fatal(call, "color %d is negative", color);
  gex_hyg_TM &parent = *parent_tm;
  const SplitRecord mine{new_tm_p != nullptr ? 1 : 0, color, key};
  CollOp *op = gather_op(call, parent, &mine, sizeof mine);
  std::vector<SplitRecord> all(parent.size);
  (void)start_coll(call, parent, op); // never complete at once: it has bytes to gather
  wait_op(call, op);
  std::memcpy(all.data(), op->result.data(), sizeof(SplitRecord) * parent.size);
  release(op);
  std::uint32_t tag = 0;
  {
    std::lock_guard lock(coll_lock());
    Team &p = team_of(call, parent);
    tag = nonzero(
        mix(mix(mix(kBasis ^ kExSalt, engine::group_tag(*p.group)), p.splits++), static_cast<std::uint32_t>(color)));
  }
  if (new_tm_p == nullptr)
    return 0;
  std::vector<gex_Rank_t> order; // parent ranks of my color, by key then parent rank
  for (gex_Rank_t r = 0; r < parent.size; ++r)
    if (all[r].member != 0 && all[r].color == color)
      order.push_back(r);
  std::stable_sort(order.begin(), order.end(), [&](gex_Rank_t a, gex_Rank_t b) { return all[a].key < all[b].key; });
  auto tm = std::make_unique<gex_hyg_TM>();
  tm->size = static_cast<gex_Rank_t>(order.size());
  for (gex_Rank_t i = 0; i < tm->size; ++i) {
    tm->jobranks.push_back(parent.jobrank(order[i]));
    if (order[i] == parent.rank)
      tm->rank = i;
  }
  {
    std::lock_guard lock(coll_lock());
    open_team(call, *tm, tag);
  }
  ExState &x = ex_state();
  std::lock_guard lock(x.teams_lock);
  *new_tm_p = tm.get();
  x.teams.push_back(std::move(tm));
  return 0;
}

// A split of the original with one color and each member's rank as its key: the same members in
// the same order. The scratch arguments are unused, as gex_TM_Split's.
size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, gex_Addr_t scratch_addr, size_t scratch_len,
                  gex_Flags_t flags) {
  const char *call = "gex_TM_Dup";
  require_tm(call, orig_tm);
  constexpr gex_Flags_t kScratch =
      GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_NO_SCRATCH;
  constexpr gex_Flags_t kQueries = GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN;
  require_flags(call, flags, kScratch | kQueries | GEX_FLAG_SCRATCH_SEG_OFFSET);
  if ((flags & kQueries) != 0)
    return 0; // no scratch needed; nothing is created
  const gex_Flags_t scratch = flags & kScratch;
  if (scratch == 0 || (scratch & (scratch - 1)) != 0)
    fatal(call, "flags %#x: exactly one of GEX_FLAG_TM_{SYMMETRIC,LOCAL,GLOBAL,NO}_SCRATCH",
          static_cast<unsigned>(flags));
  (void)scratch_addr;
  (void)scratch_len;
  if (new_tm_p == nullptr)
    fatal(call, "a null new_tm_p");
  gex_TM_Split(new_tm_p, orig_tm, 0, static_cast<int>(orig_tm->rank), nullptr, 0, GEX_FLAG_TM_NO_SCRATCH);
  return 0;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags) {
  const char *call = "gex_TM_Destroy";
  (void)scratch_p; // no scratch was taken: nothing is returned [GEX "[PROPOSED]"]
  require_tm(call, tm);
  require_flags(call, flags, GEX_FLAG_GLOBALLY_QUIESCED);
  ExState &x = ex_state();
  if (tm == &x.tm_object)
    fatal(call, "the primordial team cannot be destroyed");
  if ((flags & GEX_FLAG_GLOBALLY_QUIESCED) == 0) { // every member is done with the team
    require_messaging(call);
    auto *op = new CollOp;
    op->barrier = true;
    const gex_Event_t e = start_coll(call, *tm, op);
    wait_op(call, op);
    (void)e;
    release(op);
  }
  {
    std::lock_guard lock(coll_lock());
    if (tm->coll != nullptr && !tm->coll->pending.empty())
      fatal(call, "collectives over the team are still in flight");
    close_team(*tm);
  }
  std::lock_guard lock(x.teams_lock);
  const auto at = std::find_if(x.teams.begin(), x.teams.end(),
                               [tm](const std::unique_ptr<gex_hyg_TM> &t) { return t.get() == tm; });
  if (at != x.teams.end())
    x.teams.erase(at);
  return 0;
}

} // extern "C"
