// Active messages [G1 §2.3, §2.4]: one send for every category and argument count, the poll that
// runs handlers, and the handler rules.
#include <sched.h>

#include <cstring>
#include <utility>

#include "bridge/am_channel.hpp"
#include "bridge/engine.hpp"
#include "bridge/progress.hpp"
#include "bridge/segment_rma.hpp"
#include "core/limits.hpp"
#include "gasnet/ex_coll.hpp"
#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;

namespace {

// Calls a client handler with its prototype [G1 §2.3.2]: (token, a0..aM-1) for Short, (token,
// buf, nbytes, a0..aM-1) for Medium and Long. gasnet_handlerentry_t stores `void (*)()`, so the
// call casts to the exact type of M arguments.
template <class T> using Arg = gasnet_handlerarg_t;
template <std::size_t... I>
void call_short(void (*f)(), gasnet_token_t t, const gasnet_handlerarg_t *a, std::index_sequence<I...>) {
  reinterpret_cast<void (*)(gasnet_token_t, Arg<decltype(I)>...)>(f)(t, a[I]...);
}
template <std::size_t... I>
void call_payload(void (*f)(), gasnet_token_t t, void *buf, std::size_t n, const gasnet_handlerarg_t *a,
                  std::index_sequence<I...>) {
  reinterpret_cast<void (*)(gasnet_token_t, void *, std::size_t, Arg<decltype(I)>...)>(f)(t, buf, n, a[I]...);
}
using ShortCall = void (*)(void (*)(), gasnet_token_t, const gasnet_handlerarg_t *);
using PayloadCall = void (*)(void (*)(), gasnet_token_t, void *, std::size_t, const gasnet_handlerarg_t *);
template <std::size_t... M> constexpr auto short_table(std::index_sequence<M...>) {
  return std::array<ShortCall, sizeof...(M)>{[](void (*f)(), gasnet_token_t t, const gasnet_handlerarg_t *a) {
    call_short(f, t, a, std::make_index_sequence<M>{});
  }...};
}
template <std::size_t... M> constexpr auto payload_table(std::index_sequence<M...>) {
  return std::array<PayloadCall, sizeof...(M)>{
      [](void (*f)(), gasnet_token_t t, void *buf, std::size_t n, const gasnet_handlerarg_t *a) {
        call_payload(f, t, buf, n, a, std::make_index_sequence<M>{});
      }...};
}
constexpr auto kShortCalls = short_table(std::make_index_sequence<kMaxArgs + 1>{});
constexpr auto kPayloadCalls = payload_table(std::make_index_sequence<kMaxArgs + 1>{});

constexpr std::size_t round_up(std::size_t n, std::size_t to) noexcept { return (n + to - 1) / to * to; }
std::size_t offset_at(unsigned nargs) noexcept { return round_up(sizeof(AmHead) + 4 * nargs, 8); }
std::size_t head_size(const AmHead &h) noexcept {
  return round_up(h.category == kLong ? offset_at(h.nargs) + 8 : sizeof(AmHead) + 4 * h.nargs, 16);
}

// A GASNet-EX handler's registration asserts how it is called: its category, request or reply,
// and its argument count ([GEX "gex_AM_Entry_t"]: a call that violates them is undefined). Fatal,
// naming the handler, as a debug build of GASNet-EX reports it; a handler of GASNet-1's table
// (registered by gasnet_attach, with no flags) asserts nothing.
void check_registration(const char *call, gasnet_node_t from, const AmHead &h) {
  const gex_AM_Entry_t &e = h.to_ep == 0 ? ex::ex_state().entries[h.handler] : ex::created(h.to_ep)->entries[h.handler];
  if (e.gex_flags == 0)
    return;
  static constexpr const char *kCategory[] = {"Short", "Medium", "Long"};
  static constexpr gex_Flags_t kCategoryFlag[] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG};
  const bool reply = (h.flags & kReply) != 0;
  if ((e.gex_flags & kCategoryFlag[h.category]) != 0 &&
      (e.gex_flags & (reply ? GEX_FLAG_AM_REPLY : GEX_FLAG_AM_REQUEST)) != 0 && e.gex_nargs == h.nargs)
    return;
  const gex_Flags_t f = e.gex_flags;
  // "Short/Medium/Long" at most. Not a std::string: GCC 12 at -O3 took its concatenation for a
  // copy of 2^63 bytes and more (-Wstringop-overflow).
  char kinds[24] = "";
  for (unsigned c = 0; c < 3; ++c)
    if ((f & kCategoryFlag[c]) != 0) {
      if (kinds[0] != '\0')
        std::strcat(kinds, "/");
      std::strcat(kinds, kCategory[c]);
    }
  const char *ways = (f & GEX_FLAG_AM_REQREP) == GEX_FLAG_AM_REQREP ? "requests and replies"
                     : (f & GEX_FLAG_AM_REQUEST) != 0               ? "requests"
                                                                    : "replies";
  fatal(call, "node %u sent a %s %s with %u argument(s) to handler %u (%s), registered for %s %s with %u", from,
        kCategory[h.category], reply ? "reply" : "request", h.nargs, h.handler,
        e.gex_name != nullptr ? e.gex_name : "unnamed", kinds, ways, e.gex_nargs);
}

// Runs the handler of the decoded message `m` from `from`; `call` names the call that runs it in
// messages. `medium` is the Medium payload, which the handler may write to.
void run(const char *call, gasnet_node_t from, const Decoded &m, char *medium) {
  State &s = state();
  const AmHead &h = m.head;
  Token token{from, (h.flags & kReply) == 0, false, h.category, h.handler, h.to_ep, h.from_ep};
  ThreadContext &ctx = context();
  Token *outer = std::exchange(ctx.handler, &token);
  ctx.publish();
  if ((h.flags & kInternal) != 0) {
    handle_internal(token, h.handler, m.args, h.nargs);
  } else if (s.exiting.load(std::memory_order_acquire)) {
    // The job is ending (gasnet_exit): client handlers no longer run.
  } else {
    // Only the client's own table: indices 0..127 are never in it (gasnet_attach refuses them).
    const std::array<void (*)(), 256> *table = endpoint_handlers(h.to_ep);
    if (table == nullptr)
      fatal(call, "node %u sent a %s to endpoint %u, which this rank did not create with GEX_EP_CAPABILITY_AM", from,
            (h.flags & kReply) != 0 ? "reply" : "request", h.to_ep);
    void (*fn)() = (*table)[h.handler];
    if (fn == nullptr && h.to_ep == 0)
      fatal(call, "node %u sent a %s to handler %u, which is not registered", from,
            (h.flags & kReply) != 0 ? "reply" : "request", h.handler);
    if (fn == nullptr)
      fatal(call, "node %u sent a %s to handler %u of endpoint %u, which is not registered", from,
            (h.flags & kReply) != 0 ? "reply" : "request", h.handler, h.to_ep);
    check_registration(call, from, h);
    if (h.category == kShort) {
      kShortCalls[h.nargs](fn, &token, m.args);
    } else if (h.category == kMedium) {
      // [G1 §2.3.2]: the buffer is aligned for any type and lives until the handler returns.
      kPayloadCalls[h.nargs](fn, &token, medium, h.nbytes, m.args);
    } else {
      // Long: on a node the payload is in the segment already; across nodes it came in-band and
      // lands there now, before the handler runs.
      const LongTarget target = long_target(h.to_ep);
      char *seg = target.data;
      if (h.nbytes == 0) {
        // Any address, as the sender gave it: its offset from the segment's base wraps (long_place).
        const auto at = reinterpret_cast<std::uintptr_t>(seg) + m.offset;
        kPayloadCalls[h.nargs](fn, &token, reinterpret_cast<void *>(at), 0, m.args);
      } else {
        if (seg == nullptr || m.offset > target.size || h.nbytes > target.size - m.offset)
          fatal(call, "a Long message from node %u lies outside the segment of this rank's endpoint %u", from, h.to_ep);
        if (m.body_size != 0)
          std::memcpy(seg + m.offset, m.body, std::min<std::size_t>(m.body_size, h.nbytes));
        kPayloadCalls[h.nargs](fn, &token, seg + m.offset, h.nbytes, m.args);
      }
    }
  }
  ctx.handler = outer;
  ctx.publish();
  if (ctx.hsl_held != 0)
    fatal(call, "handler %u returned holding a handler-safe lock", h.handler);
}

// Runs the handler of one message from `from`. A node ring hands it over in place: the Medium
// buffer a handler gets is the message itself.
void dispatch(void *, GlobalRank from, const char *data, std::size_t size) {
  State &s = state();
  Decoded m;
  if (!decode(data, size, m))
    fatal("gasnet_AMPoll", "a malformed message of %zu bytes from node %u", size, from.value());
  if ((m.head.flags & kInternal) == 0 && !s.serving.load(std::memory_order_acquire)) {
    std::lock_guard lock(s.deferred_mutex);
    s.deferred.emplace_back(from.value(), std::vector<char>(data, data + size));
    s.has_deferred.store(true, std::memory_order_release);
    return;
  }
  run("gasnet_AMPoll", from.value(), m, const_cast<char *>(m.body));
}

// The one check of the handler index a client sends to, for requests and replies alike. 0..127
// belong to the implementation [G1 §2.3.1] and no client registers them (gasnet_attach refuses
// them); which client index is registered is known on the destination node, which checks it when
// the message arrives (run).
void check_handler(const char *call, gasnet_handler_t handler) {
  if (handler < kFirstClientHandler)
    fatal(call, "handler %u is not registered: 0..127 are reserved for the implementation", handler);
}

bool poll_lane(am::Lane lane) {
  if (!am::waiting(lane))
    return false;
  // A bounded batch, so that a flood on one lane cannot starve the caller or the other lane.
  bool any = false;
  for (int i = 0; i < 64 && am::poll(lane, dispatch); ++i)
    any = true;
  return any;
}

// Sends one message; fatal if it cannot be delivered. A sender that waits for room keeps serving:
// all of its lanes from the client's context, only the reply lane from inside a handler (the one
// exception of [G1 §2.4.1]).
void deliver(const char *call, gasnet_node_t dest, am::Lane lane, const Wire &head, const void *body,
             std::size_t body_size, const am::Placement *place = nullptr) {
  const bool in_handler = context().handler != nullptr;
  auto serve = [in_handler] { return poll(in_handler); };
  if (am::send(GlobalRank{dest}, lane, head.bytes, head.size, body, body_size, serve, place) != GASPI_SUCCESS)
    fatal(call, "the message to node %u could not be delivered", dest);
}

// The names of the gasnet_AM* calls by argument count, as messages name them
// (gasnet_AMReplyShort2); the last, the bare name, for a count out of range.
#define HYG_AM_NAMES(base)                                                                                             \
  {                                                                                                                    \
    base "0", base "1", base "2", base "3", base "4", base "5", base "6", base "7", base "8", base "9", base "10",     \
        base "11", base "12", base "13", base "14", base "15", base "16", base                                         \
  }
static_assert(kMaxArgs == 16);
std::size_t name_index(int nargs) noexcept {
  return nargs >= 0 && static_cast<std::size_t>(nargs) <= kMaxArgs ? static_cast<std::size_t>(nargs) : kMaxArgs + 1;
}

} // namespace

namespace hygaspi::gasnet {

Wire encode(const AmHead &h, const gasnet_handlerarg_t *args, std::uint64_t offset) noexcept {
  Wire w;
  std::memcpy(w.bytes, &h, sizeof h);
  std::memcpy(w.bytes + sizeof h, args, 4 * std::size_t{h.nargs});
  if (h.category == kLong)
    std::memcpy(w.bytes + offset_at(h.nargs), &offset, sizeof offset);
  w.size = head_size(h);
  return w;
}

bool decode(const char *data, std::size_t size, Decoded &out) noexcept {
  if (size < sizeof(AmHead))
    return false;
  std::memcpy(&out.head, data, sizeof(AmHead));
  const AmHead &h = out.head;
  if (h.nargs > kMaxArgs || h.category > kLong || (h.flags & ~(kReply | kInternal)) != 0 || h.to_ep >= kMaxEndpoints ||
      h.from_ep >= kMaxEndpoints || size < head_size(h))
    return false;
  std::memcpy(out.args, data + sizeof h, 4 * std::size_t{h.nargs});
  out.offset = 0;
  if (h.category == kLong)
    std::memcpy(&out.offset, data + offset_at(h.nargs), sizeof out.offset);
  out.body = data + head_size(h);
  out.body_size = size - head_size(h);
  return h.category != kMedium || out.body_size >= h.nbytes;
}

bool poll(bool replies_only) {
  // The engine's own progress first (MPI: the mailboxes, and whatever a GASPI phase of this
  // program needs served), then this front end's lanes.
  bool any = engine::spans_nodes() && progress_step();
  if (!am::is_open())
    return any;
  any |= poll_lane(am::Lane::reply);
  State &s = state();
  if (!replies_only)
    follow_remote_exit();
  if (!replies_only && s.has_deferred.load(std::memory_order_acquire) && s.serving.load(std::memory_order_acquire)) {
    std::vector<std::pair<std::uint32_t, std::vector<char>>> early;
    {
      std::lock_guard lock(s.deferred_mutex);
      early.swap(s.deferred);
      s.has_deferred.store(false, std::memory_order_relaxed);
    }
    for (auto &[from, bytes] : early)
      dispatch(nullptr, GlobalRank{from}, bytes.data(), bytes.size());
    any |= !early.empty();
  }
  if (!replies_only) {
    any |= poll_lane(am::Lane::request);
    any |= ex::collectives_progress(); // GASNet-1's barrier among them
  }
  return any;
}

int am_send(const char *call, Token *reply_to, gasnet_node_t dest, int category, gasnet_handler_t handler,
            const void *src, std::size_t nbytes, void *dest_addr, int nargs, std::va_list args, unsigned from_ep,
            unsigned to_ep) {
  State &s = state();
  require_messaging(call);
  ThreadContext &ctx = context();
  if (reply_to == nullptr) {
    if (ctx.handler != nullptr)
      fatal(call, "a request from inside a handler [G1 section 2.4.1]");
    require_may_communicate(call);
  } else {
    require_no_pending_prepare(call);
    if (ctx.handler != reply_to)
      fatal(call, "the token is not that of the request handler this thread runs");
    if (!reply_to->is_request)
      fatal(call, "a reply from a reply handler [G1 section 2.4.1]");
    if (reply_to->replied)
      fatal(call, "a second reply to one request [G1 section 2.3.3]");
    if (ctx.hsl_held != 0)
      fatal(call, "a reply while holding a handler-safe lock [G1 section 2.4.4]");
    reply_to->replied = true;
    dest = reply_to->source;
    from_ep = reply_to->ep;
    to_ep = reply_to->source_ep;
  }
  if (dest >= s.nodes)
    fatal(call, "node %u is not in the job (%u nodes)", dest, s.nodes);
  if (nargs < 0 || static_cast<std::size_t>(nargs) > kMaxArgs)
    fatal(call, "%d arguments (at most %zu)", nargs, kMaxArgs);
  check_handler(call, handler);
  AmHead h{};
  h.category = static_cast<std::uint8_t>(category == kLongAsync ? kLong : category);
  h.handler = handler;
  h.nargs = static_cast<std::uint8_t>(nargs);
  h.flags = reply_to != nullptr ? kReply : 0; // never kInternal: a client reaches only its own handlers
  h.to_ep = static_cast<std::uint8_t>(to_ep);
  h.from_ep = static_cast<std::uint8_t>(from_ep);
  // The arguments go straight into a Decoded: a loopback message runs from it.
  Decoded m;
  gasnet_handlerarg_t *argv = m.args;
  for (int i = 0; i < nargs; ++i)
    argv[i] = va_arg(args, gasnet_handlerarg_t);
  const void *body = nullptr;
  std::size_t body_size = 0;
  LongPlace place{limits::kGasnetSegment, 0};
  if (h.category == kMedium) {
    if (nbytes > kMaxMedium)
      fatal(call, "%zu bytes exceed gasnet_AMMaxMedium() = %zu", nbytes, kMaxMedium);
    body = src;
    body_size = nbytes;
  } else if (h.category == kLong) {
    if (nbytes > kMaxLong)
      fatal(call, "%zu bytes exceed the Long limit %zu", nbytes, kMaxLong);
    place = long_place(call, dest, to_ep, dest_addr, nbytes);
    body = src; // the channel places it in the target's segment (am::Placement)
    body_size = nbytes;
  }
  if (h.category != kShort)
    ex::require_host_memory(call, src, nbytes); // payloads come from the primordial endpoint's memory
  h.nbytes = h.category == kShort ? 0 : static_cast<std::uint32_t>(nbytes);
  if (dest == s.mynode && s.serving.load(std::memory_order_acquire)) {
    // Loopback: the handler runs now, inside this call, as GASNet runs it. The caller may wait for
    // it without polling (calling only gasnet_put, say), and a reply to a loopback request runs
    // inside the reply call in turn. The context rules hold as for a polled handler: a request is
    // made outside handlers, NIS and HSLs (checked above), and the handler runs with its token as
    // the thread's handler context.
    m.head = h;
    m.offset = place.offset;
    m.body = nullptr;
    m.body_size = 0;
    if (h.category == kLong && nbytes != 0 &&
        engine::put(GlobalRank{dest}, place.segment, place.offset, src, nbytes, engine::Complete::remote, nullptr) !=
            GASPI_SUCCESS)
      fatal(call, "the Long payload could not be placed in this rank's segment");
    if (h.category == kMedium) {
      alignas(16) char copy[kMaxMedium]; // the handler's own buffer, aligned, which it may write to
      if (nbytes != 0)
        std::memcpy(copy, src, nbytes);
      run(call, s.mynode, m, copy);
    } else {
      run(call, s.mynode, m, nullptr);
    }
    return GASNET_OK;
  }
  const am::Placement placement{place.segment, place.offset};
  deliver(call, dest, reply_to == nullptr ? am::Lane::request : am::Lane::reply, encode(h, argv, place.offset), body,
          body_size, h.category == kLong ? &placement : nullptr);
  return GASNET_OK;
}

void am_internal(gasnet_node_t dest, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs, bool reply) {
  AmHead h{};
  h.flags = static_cast<std::uint8_t>(kInternal | (reply ? kReply : 0));
  h.category = kShort;
  h.handler = handler;
  h.nargs = static_cast<std::uint8_t>(nargs);
  deliver("gasnet", dest, reply ? am::Lane::reply : am::Lane::request, encode(h, args, 0), nullptr, 0);
}

} // namespace hygaspi::gasnet

extern "C" {

// GASNet-1's AMs are GASNet-EX's on the primordial team, as in GASNet-EX's own legacy layer: local
// completion at return (GEX_EVENT_NOW; a LongAsync is a Long with GEX_EVENT_GROUP, whose payload is
// complete at return here too), no flags.
int gasnet_hyg_AMRequest(int category, gasnet_node_t dest, gasnet_handler_t handler, void *source_addr, size_t nbytes,
                         void *dest_addr, int numargs, ...) {
  static const char *const names[][kMaxArgs + 2] = {
      HYG_AM_NAMES("gasnet_AMRequestShort"), HYG_AM_NAMES("gasnet_AMRequestMedium"),
      HYG_AM_NAMES("gasnet_AMRequestLong"), HYG_AM_NAMES("gasnet_AMRequestLongAsync")};
  if (category < 0 || category > kLongAsync)
    fatal("gasnet_AMRequest", "unknown category %d", category);
  const char *const call = names[category][name_index(numargs)];
  require_messaging(call);
  if (dest >= state().nodes)
    fatal(call, "node %u is not in the job (%u nodes)", dest, state().nodes);
  std::va_list args;
  va_start(args, numargs);
  const int rc = ex::am_request(call, category == kLongAsync ? kLong : category, &ex::ex_state().tm_object, dest,
                                handler, source_addr, nbytes, dest_addr,
                                category == kLongAsync ? GEX_EVENT_GROUP : GEX_EVENT_NOW, 0, numargs, args);
  va_end(args);
  return rc;
}

int gasnet_hyg_AMReply(int category, gasnet_token_t token, gasnet_handler_t handler, void *source_addr, size_t nbytes,
                       void *dest_addr, int numargs, ...) {
  static const char *const names[][kMaxArgs + 2] = {
      HYG_AM_NAMES("gasnet_AMReplyShort"), HYG_AM_NAMES("gasnet_AMReplyMedium"), HYG_AM_NAMES("gasnet_AMReplyLong")};
  if (category < 0 || category > kLong)
    fatal("gasnet_AMReply", "unknown category %d", category);
  std::va_list args;
  va_start(args, numargs);
  const int rc = ex::am_reply(names[category][name_index(numargs)], category, reinterpret_cast<gex_Token_t>(token),
                              handler, source_addr, nbytes, dest_addr, GEX_EVENT_NOW, 0, numargs, args);
  va_end(args);
  return rc;
}

size_t gasnet_AMMaxArgs(void) { return kMaxArgs; }
size_t gasnet_AMMaxMedium(void) { return kMaxMedium; }
size_t gasnet_AMMaxLongRequest(void) { return kMaxLong; }
size_t gasnet_AMMaxLongReply(void) { return kMaxLong; }

int gasnet_AMPoll(void) {
  require_messaging("gasnet_AMPoll");
  require_may_communicate("gasnet_AMPoll"); // not in a handler, an NIS, or holding an HSL
  // A poll that found nothing gives the core away where the node has more ranks than cores (the
  // wait policy spins 0 times there), as Open MPI's progress does when mpirun oversubscribes: a
  // client that polls in a loop of its own for a reply would otherwise keep the core from the
  // very threads and ranks that send it. Measured, 3 ranks of 6 threads (4 senders, a poller and
  // main) on 2 cores exchanging EX AMs in such loops: 8.9-9.0 s before, 0.69-0.70 s after; over
  // MPI 1.8-2.0 s.
  if (!poll() && engine::wait_policy().spin == 0)
    sched_yield();
  return GASNET_OK;
}

void gasnet_hyg_block_step(unsigned looks) {
  require_may_communicate("GASNET_BLOCKUNTIL");
  // The engine's wait policy, one look at a time (core/wait.hpp Backoff): spin while a core is
  // ours, then yield, then sleep on the inbox doorbell, which every node sender rings. A sleep is
  // bounded: the condition may also change by a put, and MPI traffic rings nothing.
  HYG_FAST_TLS thread_local Backoff backoff;
  if (looks <= 1)
    backoff.restart(); // a new wait
  // No pause between looks across nodes: each calls MPI. Measured, EX AM Short round trip over
  // MPI (4 alternating runs): 2.17-2.18x MPI_Send/MPI_Recv against 2.22-2.26x with it.
  backoff.pause(engine::wait_policy(), poll(), am::sleep, !engine::spans_nodes());
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex) {
  if (token == nullptr || srcindex == nullptr)
    return error("gasnet_AMGetMsgSource", GASNET_ERR_BAD_ARG, "a null token or srcindex");
  *srcindex = static_cast<Token *>(token)->source;
  return GASNET_OK;
}

void gasnet_hold_interrupts(void) {
  ThreadContext &ctx = context();
  if (ctx.handler != nullptr || ctx.hsl_held != 0)
    return; // [G1 §2.4.2]: ignored inside a handler and while an HSL is held
  if (ctx.nis)
    fatal("gasnet_hold_interrupts", "no-interrupt sections do not nest [G1 section 2.4.2]");
  ctx.nis = true;
  ctx.publish();
}

void gasnet_resume_interrupts(void) {
  ThreadContext &ctx = context();
  if (ctx.handler != nullptr || ctx.hsl_held != 0)
    return;
  if (!ctx.nis)
    fatal("gasnet_resume_interrupts", "no no-interrupt section is open");
  ctx.nis = false;
  ctx.publish();
}

} // extern "C"
