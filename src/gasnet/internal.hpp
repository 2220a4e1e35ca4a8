// The GASNet-1 front end's own state and helpers (src/gasnet). It sits on the engine beside the
// GASPI front end and shares nothing with it but the engine (bridge/): peers, segments, waits,
// progress and launch.
#pragma once
#define GASNET_HYG_LIBRARY 1
#include <gasnet.h>

#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "bridge/peers.hpp"
#include "bridge/segment_rma.hpp"

// The thread-locals every call reads: the initial-exec model reads them without __tls_get_addr
// (a few bytes of the static TLS block, which a library loaded at start-up always has).
#define HYG_FAST_TLS __attribute__((tls_model("initial-exec")))

namespace hygaspi::gasnet {

// Handler indices [G1 §2.3.1]: 0..127 belong to the implementation, 128..255 to the client, which
// registers only those. The library's own messages do not use that space: they carry kInternal
// in their head (which no gasnet_AM* call sets), and their handler field picks one of these.
enum InternalHandler : gasnet_handler_t {
  kHandlerSeginfo = 1, // attach: a rank's segment base and size
  kHandlerExit = 3,    // gasnet_exit of another rank: its code
  // gex_Segment_Destroy of a published device segment (ex_ep.cpp)
  kHandlerUnmap = 8,    // request, Short: forget (and close) the segments of these endpoints
  kHandlerUnmapAck = 9, // reply, Short: done
};
inline constexpr unsigned kFirstClientHandler = 128;
inline constexpr std::size_t kMaxArgs = 16;
inline constexpr std::size_t kMaxMedium = 16384;
// A Long payload goes straight into the target's segment on a node and in-band across nodes (one
// MPI message, whose count is an int).
inline constexpr std::size_t kMaxLong = 0x7fffff00;

enum Category : std::uint8_t { kShort = 0, kMedium = 1, kLong = 2, kLongAsync = 3 };

enum HeadFlag : std::uint8_t {
  kReply = 1,    // a gasnet_AMReply*
  kInternal = 2, // the library's own message: `handler` is an InternalHandler, never a client's
};

// The head of every message as it travels: AmHead, its nargs arguments, then (Long) the offset of
// the payload in the receiver's segment. The payload follows at the next 16-byte boundary, so a
// Medium buffer is aligned for any type [G1 §2.3.2], in a node ring and in an MPI buffer alike. A
// Short request with up to 12 arguments fits in the cache line of its ring frame.
struct AmHead {
  std::uint8_t category;
  gasnet_handler_t handler;
  std::uint8_t nargs;
  std::uint8_t flags;   // HeadFlag bits
  std::uint32_t nbytes; // payload bytes (kMaxLong fits)
  // GASNet-EX endpoints, by index (0: the primordial one, GASNet-1's): the receiver's, whose
  // handler table runs the message and whose segment takes a Long payload, and the sender's,
  // where a reply goes.
  std::uint8_t to_ep;
  std::uint8_t from_ep;
  std::uint16_t reserved;
};
static_assert(sizeof(AmHead) == 12 && kMaxLong <= UINT32_MAX);
inline constexpr unsigned kMaxEndpoints = 33; // GASNET_MAXEPS (gasnetex.h), which this header cannot include
struct Wire {
  alignas(16) char bytes[sizeof(AmHead) + 4 * kMaxArgs + 8 + 8]; // the largest head, padded
  std::size_t size = 0;
};
Wire encode(const AmHead &h, const gasnet_handlerarg_t *args, std::uint64_t offset) noexcept;
struct Decoded {
  AmHead head;
  gasnet_handlerarg_t args[kMaxArgs];
  std::uint64_t offset; // Long
  const char *body;     // what followed the head (across nodes: a Long payload)
  std::size_t body_size;
};
// False when `size` bytes cannot hold the head they announce.
bool decode(const char *data, std::size_t size, Decoded &out) noexcept;

// What a handler's token points at.
struct Token {
  gasnet_node_t source;
  bool is_request;
  bool replied;
  std::uint8_t category;    // the message's Category (gex_Token_Info)
  gasnet_handler_t handler; // the index it was sent to
  std::uint8_t ep;          // the endpoint index it was sent to, on this rank
  std::uint8_t source_ep;   // the sender's endpoint index, where a reply goes
};

// Every node's segment as gasnet_getSegmentInfo reports it, and how this rank reaches it.
struct NodeSegment {
  std::uint64_t addr = 0; // the owner's address of its segment
  std::uint64_t size = 0;
  char *mapped = nullptr; // this rank's mapping of it (node peers and self), else nullptr
};

struct State {
  std::mutex lifecycle;
  std::atomic<bool> inited{false};
  bool threads = false;                 // GASNET_PAR: any thread may call GASNet at any time
  std::atomic<bool> attached{false};    // gasnet_attach (or gex_Segment_Attach) was called
  std::atomic<bool> attach_done{false}; // ... and returned: every node's segment is known here
  // The call that opened the AM inbox (gasnet_attach, gex_Client_Init) has returned and no attach
  // is under way: until then a client message that a faster node sent is kept, not run (the client
  // sets up what its handlers need once that call returns), and runs at the first poll after it.
  std::atomic<bool> serving{false};
  std::mutex deferred_mutex;
  std::atomic<bool> has_deferred{false};
  std::vector<std::pair<std::uint32_t, std::vector<char>>> deferred;
  gasnet_node_t mynode = 0;
  gasnet_node_t nodes = 1;
  std::vector<std::string> environment; // the spawner's environment, NAME=VALUE
  // Per node, from gasnet_init on: the first node of its engine node (whose ranks share memory),
  // which gasnet_getNodeInfo reports as its supernode and host.
  std::vector<gasnet_node_t> supernode;
  // gasnet_getMaxLocalSegmentSize and gasnet_getMaxGlobalSegmentSize, fixed at gasnet_init
  // (segment_limit in core.cpp): queries that any node may make at any time, the same answer each.
  std::uint64_t max_local = 0, max_global = 0;
  std::array<void (*)(), 256> handlers{};
  std::vector<NodeSegment> segments;              // per node (sized at init; filled by attach)
  std::vector<gasnet_hyg_segment_t> inline_table; // what gasnet_hyg_segments_v1 points to once attached
  std::atomic<std::uint32_t> seginfo_got{0};
  std::atomic<bool> exiting{false};
  // The application finalized MPI while GASNet was up (finalize_with_mpi in core.cpp): GASNet left
  // the engine then, and the process may only end (gasnet_exit, or a return from main).
  std::atomic<bool> finalized_by_mpi{false};
  std::atomic<int> exit_code{0};
  std::vector<std::atomic<bool>> exiting_ranks;
  // Another node's gasnet_exit: this node follows it once kRemoteExitGrace has passed (a node that
  // is about to call gasnet_exit itself, after the usual final barrier, joins it meanwhile).
  std::atomic<bool> remote_exit{false};
  std::atomic<bool> quit_raised{false};        // SIGQUIT was raised for the remote exit
  std::atomic<std::int64_t> remote_exit_at{0}; // steady_clock nanoseconds
};
inline constexpr std::int64_t kRemoteExitGraceNs = 200'000'000;
State &state() noexcept;

// Per-thread context, for the rules of [G1 §2.4]: what may be called inside a handler, a
// no-interrupt section or while a handler-safe lock is held.
struct ThreadContext {
  Token *handler = nullptr;       // the token of the handler this thread runs, or nullptr
  bool nis = false;               // inside gasnet_hold_interrupts
  unsigned hsl_held = 0;          // handler-safe locks held
  const char *prepared = nullptr; // the gex_AM_Prepare* call whose Commit is pending, or nullptr
  // Every change of the fields above ends here: the inline node paths (gasnet_inline.h,
  // gasnetex_inline.h) read whether the thread may communicate from gasnet_hyg_busy.
  void publish() const noexcept { gasnet_hyg_busy = handler != nullptr || nis || hsl_held != 0 || prepared != nullptr; }
};
ThreadContext &context() noexcept;

// A message naming the rank and the call, then SIGABRT: what the spec makes fatal [G1 §1.6].
[[noreturn]] void fatal(const char *call, const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
// An error the spec lets a call return: logged with the rank and the call, then returned.
int error(const char *call, int code, const char *fmt, ...) noexcept __attribute__((format(printf, 3, 4)));

// Entry checks: GASNet is attached (or inited, or may message), and the caller is not in a handler, an NIS,
// holding an HSL, or between a negotiated-payload Prepare and its Commit (the calls that communicate or poll).
void require_attached(const char *call) noexcept;
// Not between a negotiated-payload Prepare and its Commit (part of require_may_communicate; a
// reply, which a handler may send, checks it alone).
void require_no_pending_prepare(const char *call) noexcept;
void require_inited(const char *call) noexcept;
// Client AMs may be sent and polled: the AM inbox is open (am::is_open), from gasnet_attach for a
// GASNet-1 client, from gex_Client_Init for a GASNet-EX one (which may send AMs and run
// collectives before it attaches a segment, or without one).
void require_messaging(const char *call) noexcept;
// Opens this rank's AM inbox; collective: returns once every node peer has mapped it (its name
// then goes, so that a crash leaves nothing in /dev/shm). Client messages run once `serving`.
int open_messaging(const char *call);
void require_may_communicate(const char *call) noexcept;
// The largest segment this rank may attach (gasnet_getMaxLocalSegmentSize), fixed at gasnet_init.
inline uintptr_t max_local_segment() noexcept { return static_cast<uintptr_t>(state().max_local); }

// Polls both lanes and the barrier; runs handlers. `replies_only`: inside a request handler's
// reply, only the reply lane may run [G1 §2.4.1]. True when something ran.
bool poll(bool replies_only = false);

// The active-message send behind every gasnet_AM* name (am.cpp). A request goes from this rank's
// endpoint `from_ep` to endpoint `to_ep` of `dest` (GASNet-1: 0 and 0); a reply (`reply_to`) from
// the endpoint that got the request to the one that sent it.
int am_send(const char *call, Token *reply_to, gasnet_node_t dest, int category, gasnet_handler_t handler,
            const void *src, std::size_t nbytes, void *dest_addr, int nargs, std::va_list args, unsigned from_ep = 0,
            unsigned to_ep = 0);
// The handler table of this rank's endpoint `ep` (0: the primordial one), or nullptr when the
// endpoint was not created or serves no active messages (ex_ep.cpp).
std::array<void (*)(), 256> *endpoint_handlers(unsigned ep) noexcept;
// Where a Long payload of n bytes at `addr` lands in endpoint `ep` of `node` (0: the primordial
// segment): the engine segment of that endpoint and the offset in it (fatal naming the call outside
// it, or where the endpoint published no segment or a device one). n == 0: any address; one
// outside reaches the handler as the segment's base.
struct LongPlace {
  std::uint32_t segment;
  std::uint64_t offset;
};
LongPlace long_place(const char *call, gasnet_node_t node, unsigned ep, const void *addr, std::size_t n);
// This rank's segment of endpoint `ep`, which a Long payload sent to it lands in: data and size.
struct LongTarget {
  char *data = nullptr;
  std::uint64_t size = 0;
};
LongTarget long_target(unsigned ep) noexcept;
// An internal message (handlers below 128, a Short), to another node: `args` has nargs entries; a
// reply (on the reply lane) when `reply`.
void am_internal(gasnet_node_t dest, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs,
                 bool reply = false);
// The internal handlers' dispatch (core.cpp).
void handle_internal(const Token &token, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs);
// The unmap handlers of gex_Segment_Destroy (ex_ep.cpp).
void handle_unmap(const Token &token, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs);

// The segment of `node` as this rank reaches it: checks that [addr, addr + n) lies in it (fatal
// otherwise) and returns the offset. Inline: every put and get starts here.
inline std::uint64_t segment_offset(const char *call, gasnet_node_t node, const void *addr, std::size_t n) {
  const State &s = state();
  if (node >= s.nodes)
    fatal(call, "node %u is not in the job (%u nodes)", node, s.nodes);
  const NodeSegment &seg = s.segments[node];
  if (seg.size == 0)
    fatal(call, "node %u has no segment attached (yet) for [%p, +%zu)", node, addr, n);
  const auto a = reinterpret_cast<std::uint64_t>(addr);
  // Overflow-safe: the offset first, then the length against what is left.
  if (a < seg.addr || a - seg.addr > seg.size || n > seg.size - (a - seg.addr))
    fatal(call, "[%p, +%zu) is not inside node %u's segment [%p, +%llu)", addr, n, node,
          reinterpret_cast<void *>(seg.addr), static_cast<unsigned long long>(seg.size));
  return a - seg.addr;
}

// gasnet_exit's path, also run when another rank's exit notice arrives (core.cpp).
[[noreturn]] void exit_job(int code) noexcept;
void exit_at_process_exit(int status) noexcept; // registered with engine_on_exit
// Follows another node's gasnet_exit once its grace has passed, and ends the job when a node died
// without one; called outside handlers by poll, and by the syncs and event tests and waits (a
// loop of transfers and syncs may never poll).
void follow_remote_exit() noexcept;

// The waits of this front end: polls until ready(), yielding once it has looked a while.
template <class Ready> void block_until(Ready &&ready) {
  for (unsigned looks = 0; !ready(); ++looks)
    gasnet_hyg_block_step(looks);
}

inline std::uint64_t join(gasnet_handlerarg_t hi, gasnet_handlerarg_t lo) noexcept {
  return (std::uint64_t{static_cast<std::uint32_t>(hi)} << 32) | static_cast<std::uint32_t>(lo);
}
inline gasnet_handlerarg_t high(std::uint64_t v) noexcept { return static_cast<gasnet_handlerarg_t>(v >> 32); }
inline gasnet_handlerarg_t low(std::uint64_t v) noexcept { return static_cast<gasnet_handlerarg_t>(v & 0xffffffffu); }

} // namespace hygaspi::gasnet
