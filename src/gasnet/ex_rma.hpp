// GASNet-EX's RMA and its completion, the one implementation behind both front ends: each gex_RMA_*,
// gex_Event_* and gex_NBI_* entry point is one call of what this header declares, and so is each
// call of GASNet-1's extended API (extended.cpp), on the primordial team, as GASNet-EX's own legacy
// layer maps gasnet_put_nb_bulk to gex_RMA_PutNB(tm, ..., GEX_EVENT_DEFER, 0). Every function takes
// the name of the entry point that the client called, which its fatal messages name.
//
// Events (ex_events.cpp): an RMA event is an entry of the calling thread's table of operations in
// flight, each an engine::Completion, so a GASNet-1 handle and a GASNet-EX event are one value
// ([GEX "Events"]: the types are interoperable). A remote atomic's and a collective's events are
// told apart by their bits (ex_internal.hpp), which no table entry has.
#pragma once
#include "bridge/segment_rma.hpp"
#include "gasnet/ex_internal.hpp"

namespace hygaspi::gasnet::ex {

// ---- RMA (ex_rma.cpp), as the gex_RMA_* calls of the same name [GEX "Extended API"]
int put_blocking(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
                 gex_Flags_t flags);
int put_nbi(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
            gex_Event_t *lc_opt, gex_Flags_t flags);
gex_Event_t put_nb(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, std::size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags);
int get_blocking(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
                 gex_Flags_t flags);
int get_nbi(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
            gex_Flags_t flags);
gex_Event_t get_nb(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, std::size_t nbytes,
                   gex_Flags_t flags);
gex_RMA_Value_t get_blocking_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *src, std::size_t nbytes,
                                 gex_Flags_t flags);
int put_blocking_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                     std::size_t nbytes, gex_Flags_t flags);
int put_nbi_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, std::size_t nbytes,
                gex_Flags_t flags);
gex_Event_t put_nb_val(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                       std::size_t nbytes, gex_Flags_t flags);

// The size of a value form's value, checked: 1..sizeof(gex_RMA_Value_t), fatal otherwise.
std::size_t value_size(const char *call, std::size_t nbytes);
static_assert(sizeof(gex_RMA_Value_t) == sizeof(gasnet_register_value_t));

// What a put completes before it returns.
enum class PutMode {
  blocking,    // all of it
  source_free, // the source is reusable (lc_opt GEX_EVENT_NOW); the rest at the sync
  at_sync,     // nothing (lc_opt GEX_EVENT_DEFER)
};
// The primordial team's transfers below the entry checks, for GASNet-1's calls that have no
// GASNet-EX form (memset, value gets with a handle): [remote, +n) of job rank `rank`'s primordial
// segment, checked (fatal naming the call outside it), from or to `local`. What is left to
// complete goes to `pending` (nullptr: blocking). n > 0.
void put_bytes(const char *call, gex_Rank_t rank, void *remote, const void *local, std::size_t n, PutMode mode,
               engine::Completion *pending);
void get_bytes(const char *call, void *local, gex_Rank_t rank, const void *remote, std::size_t n,
               engine::Completion *pending);

// ---- Events and NBI completion (ex_events.cpp)
// Completes what `p` waits for; fatal, naming the call, when MPI cannot.
void settle(const char *call, engine::Completion &p);
// An entry of this thread's event table for an operation about to start: start() starts it into
// `pending`, and commit() turns it into its event (GEX_EVENT_INVALID, the entry free again, when
// nothing is left to wait for).
struct EventSlot {
  std::uint32_t index;
  engine::Completion *pending;
};
EventSlot reserve_event(const char *call);
gex_Event_t commit_event(const EventSlot &slot);
// An event that waits for what `pending` holds, which is then empty.
gex_Event_t event_of(const char *call, engine::Completion &pending);
// The set an NBI operation of `category` (GEX_EC_PUT, _GET or _RMW) joins: the thread's open
// access region, or its NBI set of that category.
engine::Completion &nbi_set(gex_EC_t category);
inline void nbi_join(gex_EC_t category, engine::Completion &pending) { nbi_set(category).merge(pending); }

// Tests (block false) or waits for one event of any kind; true, and the event consumed, when it
// is complete. GEX_EVENT_INVALID is complete. A test settles what MPI can complete at once
// (ex_rma.cpp explains why), and answers false while a device copy is still running.
bool event_test(const char *call, gex_Event_t e, bool block);
// Over an array [GEX "Events"]: completed events become GEX_EVENT_INVALID. all: true when every
// one completed; some: true when one did or none was valid.
bool events_test_all(const char *call, gex_Event_t *events, std::size_t n, bool block);
bool events_test_some(const char *call, gex_Event_t *events, std::size_t n);
// The thread's NBI operations of the categories in `mask` (GEX_EC_*); fatal inside an access region.
bool nbi_test(const char *call, gex_EC_t mask);
void nbi_wait(const char *call, gex_EC_t mask);
// Access regions [GEX "Extended API"], [G1 §3.3.6.1]: they do not nest.
void begin_access_region(const char *call);
gex_Event_t end_access_region(const char *call);

} // namespace hygaspi::gasnet::ex
