// Events, NBI completion and access regions (ex_rma.hpp): the thread's table of operations in
// flight behind every RMA, device copy and remote atomic event and GASNet-1 handle, its NBI sets,
// and the gex_Event_* and gex_NBI_* entry points.
//
// An event [G1 §3.3.2]: an index into the calling thread's table, the entry's generation and the
// thread's tag. Testing a dead event (consumed before, never issued, or another thread's) is an
// error [G1 §3.3.3.1], [GEX "Events"], fatal, and found by the generation rather than by freeing
// memory twice.
#include <atomic>
#include <vector>

#include "gasnet/ex_rma.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;
using engine::Completion;

namespace {

// Bits 0-47 an entry and its generation (EventEntries), 48-63 the thread's tag.
static_assert(sizeof(gex_Event_t) == 8 && sizeof(gasnet_handle_t) == 8, "an event packs entry, generation, thread");
std::atomic<std::uint16_t> g_next_tag{1};
// A thread's tag, never 0: an event with tag 0 would lie below 2^48, where collectives' events are.
std::uint16_t next_tag() noexcept {
  std::uint16_t t;
  while ((t = g_next_tag.fetch_add(1, std::memory_order_relaxed)) == 0) {
  }
  return t;
}
struct EventTable {
  std::uint16_t tag = next_tag();
  EventEntries<Completion> ops; // a free entry's Completion keeps its vectors' capacity
};
thread_local EventTable t_events; // events are thread-specific [G1 §3.3.2]

// The in-flight entry `e` names; fatal for a dead or foreign event.
std::uint32_t lookup(const char *call, gex_Event_t e) {
  EventTable &t = t_events;
  const auto v = reinterpret_cast<std::uint64_t>(e);
  if ((v >> 48) != t.tag)
    fatal(call, "handle %#llx was not issued by this thread (handles are thread-specific [G1 section 3.3.2])",
          static_cast<unsigned long long>(v));
  const std::int64_t i = t.ops.find(v);
  if (i < 0)
    fatal(call, "handle %#llx was already synchronized, or never issued [G1 section 3.3.3.1]",
          static_cast<unsigned long long>(v));
  return static_cast<std::uint32_t>(i);
}

// Completes what `set` waits for (an event's operation, an NBI set); a test (`block` false)
// answers false, and settles nothing, while a device copy or an atomic in it is still running.
bool complete(const char *call, Completion &set, bool block) {
  if (!block && !set.ready())
    return false;
  settle(call, set);
  return true;
}

// Completes an event's operation (complete); the event is then dead.
bool test_entry(const char *call, gex_Event_t e, bool block) {
  const std::uint32_t i = lookup(call, e);
  EventTable &t = t_events;
  if (!complete(call, t.ops[i], block))
    return false;
  t.ops.end(i); // the event is dead
  return true;
}

// ---- implicit handles, per thread [G1 §3.3.5]
struct ThreadNbi {
  Completion puts, gets, rmws; // by category: GEX_EC_PUT, _GET, _RMW
  bool in_region = false;
  Completion region; // the open access region's operations
};
thread_local ThreadNbi t_nbi;

void no_region(const char *call) {
  if (t_nbi.in_region)
    fatal(call, "an NBI sync inside an access region [G1 section 3.3.6.1]");
}

void require_no_flags(const char *call, gex_Flags_t flags) {
  if (flags != 0)
    fatal(call, "flags %#x: they are reserved and must be 0", static_cast<unsigned>(flags));
}

void require_array(const char *call, const gex_Event_t *events, std::size_t n) {
  if (n > 0 && events == nullptr)
    fatal(call, "a null array of %zu events", n);
}

} // namespace

namespace hygaspi::gasnet::ex {

void settle(const char *call, Completion &p) {
  follow_remote_exit();            // a loop of transfers and syncs may never poll
  if (!p.ready()) {                // the front end's wait, which serves AMs while device copies and atomics run
    require_may_communicate(call); // its own message (block_until's names GASNET_BLOCKUNTIL)
    block_until([&p] { return p.ready(); });
  }
  if (p.settle() != GASPI_SUCCESS)
    fatal(call, "a transfer could not complete (see above)");
}

EventSlot reserve_event(const char *call) {
  EventTable &t = t_events;
  const std::uint32_t i = t.ops.reserve(call); // 16 M in flight: well above the 2^16-1 of [G1 §3.3.1]
  return {i, &t.ops[i]};
}

gex_Event_t commit_event(const EventSlot &slot) {
  EventTable &t = t_events;
  if (t.ops[slot.index].empty()) {
    t.ops.unreserve(slot.index);
    return GEX_EVENT_INVALID;
  }
  return reinterpret_cast<gex_Event_t>((static_cast<std::uint64_t>(t.tag) << 48) | t.ops.start(slot.index));
}

gex_Event_t event_of(const char *call, Completion &pending) {
  const EventSlot slot = reserve_event(call);
  slot.pending->merge(pending);
  return commit_event(slot);
}

Completion &nbi_set(gex_EC_t category) {
  if (t_nbi.in_region)
    return t_nbi.region;
  return category == GEX_EC_PUT ? t_nbi.puts : category == GEX_EC_GET ? t_nbi.gets : t_nbi.rmws;
}

bool event_test(const char *call, gex_Event_t e, bool block) {
  follow_remote_exit(); // a loop of transfers and syncs may never poll
  if (e == GEX_EVENT_INVALID)
    return true;
  if (e == GEX_EVENT_NO_OP)
    fatal(call, "GEX_EVENT_NO_OP cannot be tested or waited for");
  if (is_coll_event(e))
    return coll_test(call, e, block);
  return test_entry(call, e, block);
}

bool events_test_all(const char *call, gex_Event_t *events, std::size_t n, bool block) {
  require_array(call, events, n);
  bool all = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (event_test(call, events[i], block))
      events[i] = GEX_EVENT_INVALID;
    else
      all = false;
  }
  return all;
}

bool events_test_some(const char *call, gex_Event_t *events, std::size_t n) {
  require_array(call, events, n);
  bool any_valid = false, any_done = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (events[i] == GEX_EVENT_INVALID)
      continue;
    any_valid = true;
    if (event_test(call, events[i], false)) {
      events[i] = GEX_EVENT_INVALID;
      any_done = true;
    }
  }
  return !any_valid || any_done;
}

// GEX_EC_AM and GEX_EC_LC have nothing outstanding: every AM payload and every NBI put's source
// is locally complete when its call returns. Atomics: GEX_EC_RMW, and SET and GET with the puts and
// the gets (ex_ad.cpp).
bool nbi_test(const char *call, gex_EC_t mask) {
  if ((mask & (GEX_EC_GET | GEX_EC_PUT)) != 0) // what [G1 §3.3.6.1] forbids inside a region
    no_region(call);
  // Every set is looked at, whatever the first answers: a test settles what it can.
  const bool gets = (mask & GEX_EC_GET) == 0 || complete(call, t_nbi.gets, false);
  const bool puts = (mask & GEX_EC_PUT) == 0 || complete(call, t_nbi.puts, false);
  const bool rmws = (mask & GEX_EC_RMW) == 0 || complete(call, t_nbi.rmws, false);
  return gets && puts && rmws;
}

void nbi_wait(const char *call, gex_EC_t mask) {
  if ((mask & (GEX_EC_GET | GEX_EC_PUT)) != 0)
    no_region(call);
  if ((mask & GEX_EC_GET) != 0)
    complete(call, t_nbi.gets, true);
  if ((mask & GEX_EC_PUT) != 0)
    complete(call, t_nbi.puts, true);
  if ((mask & GEX_EC_RMW) != 0)
    complete(call, t_nbi.rmws, true);
}

void begin_access_region(const char *call) {
  require_segment(call);
  if (t_nbi.in_region)
    fatal(call, "access regions do not nest [G1 section 3.3.6.1]");
  t_nbi.in_region = true;
}

gex_Event_t end_access_region(const char *call) {
  if (!t_nbi.in_region)
    fatal(call, "no access region is open");
  t_nbi.in_region = false;
  return event_of(call, t_nbi.region);
}

} // namespace hygaspi::gasnet::ex

extern "C" {

int gex_Event_Test(gex_Event_t event) {
  return event_test("gex_Event_Test", event, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_Wait(gex_Event_t event) { event_test("gex_Event_Wait", event, true); }

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category) {
  // [GEX "Events"]: root "is permitted to be GEX_EVENT_INVALID (but not GEX_EVENT_NO_OP)", and the
  // category "cannot be a bitwise-OR of multiple such values, nor GEX_EC_ALL". For an event that
  // "has already happened the implementation may return [...] GEX_EVENT_INVALID": local completion
  // here always has, when the initiation returns (an RMA's lc_opt, an AM's payload). The other
  // categories name no leaf of any root event.
  constexpr const char *kCall = "gex_Event_QueryLeaf";
  if (root == GEX_EVENT_NO_OP)
    fatal(kCall, "the root is GEX_EVENT_NO_OP, which has no leaves");
  if (event_category != GEX_EC_LC)
    fatal(kCall, "event category %#x: the only leaf events are those of GEX_EC_LC", event_category);
  if (root != GEX_EVENT_INVALID && (reinterpret_cast<std::uint64_t>(root) >> 48) != 0)
    (void)lookup(kCall, root); // a live event of this thread (fatal otherwise)
  return GEX_EVENT_INVALID;
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  require_no_flags("gex_Event_TestAll", flags);
  return events_test_all("gex_Event_TestAll", pevent, numevents, false) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  require_no_flags("gex_Event_WaitAll", flags);
  events_test_all("gex_Event_WaitAll", pevent, numevents, true);
}
int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  require_no_flags("gex_Event_TestSome", flags);
  return events_test_some("gex_Event_TestSome", pevent, numevents) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags) {
  require_no_flags("gex_Event_WaitSome", flags);
  block_until([&] { return events_test_some("gex_Event_WaitSome", pevent, numevents); });
}

// [GEX "NBI"]: the mask is a bitwise OR of event categories; a bit outside GEX_EC_ALL is none.
static void require_event_mask(const char *call, gex_EC_t event_mask) {
  if ((event_mask & ~GEX_EC_ALL) != 0)
    fatal(call, "event mask %#x has bits outside GEX_EC_ALL", static_cast<unsigned>(event_mask));
}

int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags) {
  const char *call = "gex_NBI_Test";
  require_no_flags(call, flags);
  require_event_mask(call, event_mask);
  require_may_communicate(call);
  return nbi_test(call, event_mask) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags) {
  const char *call = "gex_NBI_Wait";
  require_no_flags(call, flags);
  require_event_mask(call, event_mask);
  require_may_communicate(call);
  nbi_wait(call, event_mask);
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
  require_no_flags("gex_NBI_BeginAccessRegion", flags);
  begin_access_region("gex_NBI_BeginAccessRegion");
}
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
  require_no_flags("gex_NBI_EndAccessRegion", flags);
  return end_access_region("gex_NBI_EndAccessRegion");
}

} // extern "C"
