// The GASNet-EX front end (gasnetex.h): a thin layer over the GASNet-1 one (internal.hpp). Its
// objects are the primordial ones of gex_Client_Init: one client, its endpoint, the team of every
// rank (team rank = job rank = GASNet-1 node) and the segment gex_Segment_Attach binds.
#pragma once
#define GASNET_HYG_LIBRARY 1
#include <gasnetex.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gasnet/internal.hpp"

struct gex_hyg_Client {
  std::atomic<const void *> cdata{nullptr};
  gex_Flags_t flags = 0;
  std::string name;
};
struct gex_hyg_EP {
  std::atomic<const void *> cdata{nullptr};
};
namespace hygaspi::gasnet::ex {
struct Team; // its engine group and its collectives in flight (ex_coll.hpp)
} // namespace hygaspi::gasnet::ex

// A team: the primordial one (every rank, team rank = job rank, `jobranks` empty) or one that
// gex_TM_Split made (`jobranks` lists the job rank of each team rank).
struct gex_hyg_TM {
  std::atomic<const void *> cdata{nullptr};
  std::vector<gex_Rank_t> jobranks;
  gex_Rank_t rank = 0; // this process's rank in the team
  gex_Rank_t size = 0;
  hygaspi::gasnet::ex::Team *coll = nullptr; // made at gex_TM_Split, or the primordial team's first collective
  [[nodiscard]] gex_Rank_t jobrank(gex_Rank_t r) const noexcept { return jobranks.empty() ? r : jobranks[r]; }
};
struct gex_hyg_Segment {
  std::atomic<const void *> cdata{nullptr};
  void *addr = nullptr;
  uintptr_t size = 0;
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
};
ExState &ex_state() noexcept;

// Entry checks that name the call: `tm` is a team of this client (and the client exists); `ep` the
// primordial endpoint; gex_Segment_Attach (or gasnet_attach) has returned: every rank's segment is
// known and the RMA window is open (AMs and collectives need only gex_Client_Init: require_messaging).
void require_tm(const char *call, gex_TM_t tm) noexcept;
// `rank` of team `tm` (checked as require_tm does), as a job rank; fatal when it is no member.
gex_Rank_t job_rank(const char *call, gex_TM_t tm, gex_Rank_t rank) noexcept;
void require_ep(const char *call, gex_EP_t ep) noexcept;
void require_segment(const char *call) noexcept;
// The name of a GEX_DT_* for messages; nullptr for no data type.
const char *dt_name(gex_DT_t dt) noexcept;
// Flags outside `allowed` are fatal, naming the call.
void require_flags(const char *call, gex_Flags_t flags, gex_Flags_t allowed) noexcept;

// Events besides GASNet-1's handles (whose bits 48-63 hold a thread tag, never 0), each told by
// its bits:
// - remote atomics (ex_ad.cpp): ad_event tells (low byte 3, bit 24 clear); ad_event_test is
//   test_one's for it (ex_rma.cpp). ad_nbi_test/wait complete this thread's NBI atomics of the
//   categories in `mask`: test is true once none is left;
// - collectives (ex_coll.cpp): the operation's address, aligned to 16 and below 2^48.
//   coll_test is true (and the event consumed) once complete.
bool ad_event(gex_Event_t e) noexcept;
bool ad_event_test(const char *call, gex_Event_t e, bool block);
bool ad_nbi_test(const char *call, gex_EC_t mask);
void ad_nbi_wait(const char *call, gex_EC_t mask);
inline bool is_coll_event(gex_Event_t e) noexcept {
  const auto v = reinterpret_cast<std::uintptr_t>(e);
  return v != 0 && (v & 15u) == 0 && (v >> 48) == 0;
}
bool coll_test(const char *call, gex_Event_t e, bool block);

inline gex_Event_t to_event(gasnet_handle_t h) noexcept { return reinterpret_cast<gex_Event_t>(h); }
inline gasnet_handle_t to_handle(gex_Event_t e) noexcept { return reinterpret_cast<gasnet_handle_t>(e); }

} // namespace hygaspi::gasnet::ex
