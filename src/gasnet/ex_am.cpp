// GASNet-EX active messages: handler registration (a table per endpoint that serves AMs), the
// fixed-payload Request/Reply calls (am_request, am_reply: GASNet-1's gasnet_AMRequest*/gasnet_AMReply* too, over
// the one send of am.cpp), their limits and gex_Token_Info.
#include <cstdarg>
#include <vector>

#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

constexpr gex_Flags_t kCategoryFlags = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG;
constexpr gex_Flags_t kDirectionFlags = GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY;
// What an injection accepts: IMMEDIATE never makes it a "no op" here; the copy hints are hints.
constexpr gex_Flags_t kInjectFlags = GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO;
// The largest buffer a negotiated-payload Long Prepare allocates (client_buf NULL): what
// gex_AM_Max{Request,Reply}Long answer under GEX_FLAG_AM_PREPARE_LEAST_ALLOC.
constexpr size_t kPreparedLongBuffer = size_t{1} << 20;

// A reply's token: that of the request handler this thread runs, whatever the call ([GEX]: a token
// is valid only inside its handler). Fatal naming `call` otherwise, where the reply itself would
// be refused only later, or a query would answer for a token that means nothing.
Token *own_request_token(const char *call, gex_Token_t token) {
  auto *t = reinterpret_cast<Token *>(token);
  if (token == nullptr || context().handler != t)
    fatal(call, "the token is not that of the handler this thread runs (a token is valid only inside it)");
  if (!t->is_request)
    fatal(call, "the token is a reply handler's: only a request is answered [G1 section 2.4.1]");
  return t;
}

bool valid_registration(const gex_AM_Entry_t &e) {
  const gex_Flags_t category = e.gex_flags & kCategoryFlags;
  const gex_Flags_t direction = e.gex_flags & kDirectionFlags;
  return e.gex_fnptr != nullptr && e.gex_nargs <= kMaxArgs && category != 0 && direction != 0 &&
         (category == GEX_FLAG_AM_SHORT || (category & GEX_FLAG_AM_SHORT) == 0) &&
         (e.gex_flags & ~(kCategoryFlags | kDirectionFlags)) == 0;
}

// lc_opt of a Medium or Long [GEX "Fixed-payload AM", note 2]: NOW, GROUP (requests only) or a
// pointer to an event; DEFER is prohibited. The payload is copied (node ring, MPI buffer) or in
// place (Long on a node) before the send returns, so every choice is complete at return.
void check_lc(const char *call, gex_Event_t *lc_opt, bool request) {
  if (lc_opt == GEX_EVENT_DEFER)
    fatal(call, "lc_opt GEX_EVENT_DEFER is prohibited for active messages");
  if (lc_opt == GEX_EVENT_GROUP && !request)
    fatal(call, "lc_opt GEX_EVENT_GROUP is prohibited for replies");
  if (lc_opt == nullptr)
    fatal(call, "a null lc_opt");
}
void complete_lc(gex_Event_t *lc_opt) {
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID; // already complete [GEX "Events"]
}

const char *am_name(int category, bool request) {
  static const char *const names[2][3] = {{"gex_AM_ReplyShort", "gex_AM_ReplyMedium", "gex_AM_ReplyLong"},
                                          {"gex_AM_RequestShort", "gex_AM_RequestMedium", "gex_AM_RequestLong"}};
  return category >= 0 && category <= 2 ? names[request][category] : request ? "gex_AM_Request" : "gex_AM_Reply";
}

// Where an AM request goes: `rank` of team `tm`, or of a TM-pair [GEX-MK "TM-pairs": a pair is
// valid in the gex_AM_* calls], as a job rank, and the endpoints it travels between: the pair's
// local endpoint, which must serve AMs, and its remote index (on a team: the primordial
// endpoints). Whether the remote endpoint serves AMs is known where it lives, which checks it when
// the message arrives.
struct Destination {
  gex_Rank_t jobrank = 0;
  unsigned from_ep = 0, to_ep = 0;
};
Destination am_destination(const char *call, gex_TM_t tm, gex_Rank_t rank) {
  if (tm == &ex_state().tm_object || !is_pair(tm))
    return {job_rank(call, tm, rank), 0, 0};
  if ((tm->pair_ep->capabilities & GEX_EP_CAPABILITY_AM) == 0)
    fatal(call, "tm %p pairs endpoint %u, created without GEX_EP_CAPABILITY_AM", static_cast<void *>(tm),
          tm->pair_ep->index);
  return {pair_rank(call, rank), tm->pair_ep->index, tm->pair_remote};
}

// The limits [GEX "AM limits"]; a TM-pair of any endpoints may ask [GEX-MK "TM-pairs"].
size_t max_payload(const char *call, gex_TM_t tm, gex_Rank_t other, unsigned nargs, bool is_long, gex_Flags_t flags) {
  if (is_pair(tm)) {
    if (other != GEX_RANK_INVALID)
      (void)pair_rank(call, other);
  } else if (other == GEX_RANK_INVALID) {
    require_tm(call, tm);
  } else {
    (void)job_rank(call, tm, other);
  }
  if (nargs > kMaxArgs)
    fatal(call, "numargs %u exceeds gex_AM_MaxArgs() = %zu", nargs, kMaxArgs);
  if (is_long && (flags & GEX_FLAG_AM_PREPARE_LEAST_ALLOC) != 0)
    return kPreparedLongBuffer;
  return is_long ? kMaxLong : kMaxMedium;
}

} // namespace

int hygaspi::gasnet::ex::am_request(const char *call, int category, gex_TM_t tm, gex_Rank_t rank,
                                    gex_AM_Index_t handler, const void *source_addr, size_t nbytes, void *dest_addr,
                                    gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, std::va_list args) {
  const Destination to = am_destination(call, tm, rank);
  require_messaging(call);
  require_flags(call, flags, kInjectFlags);
  if (category < kShort || category > kLong)
    fatal(call, "unknown category %d", category);
  if (category != kShort)
    check_lc(call, lc_opt, true);
  const int rc = am_send(call, nullptr, to.jobrank, category, handler, source_addr, nbytes, dest_addr, numargs, args,
                         to.from_ep, to.to_ep);
  if (category != kShort)
    complete_lc(lc_opt);
  return rc;
}

int hygaspi::gasnet::ex::am_reply(const char *call, int category, gex_Token_t token, gex_AM_Index_t handler,
                                  const void *source_addr, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                                  gex_Flags_t flags, int numargs, std::va_list args) {
  require_flags(call, flags, kInjectFlags);
  if (category < kShort || category > kLong)
    fatal(call, "unknown category %d", category);
  if (token == nullptr)
    fatal(call, "a null token");
  if (category != kShort)
    check_lc(call, lc_opt, false);
  const int rc = am_send(call, reinterpret_cast<Token *>(token), 0, category, handler, source_addr, nbytes, dest_addr,
                         numargs, args);
  if (category != kShort)
    complete_lc(lc_opt);
  return rc;
}

extern "C" {

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries) {
  const char *call = "gex_EP_RegisterHandlers";
  gex_hyg_EP &self = endpoint(call, ep);
  if ((self.capabilities & GEX_EP_CAPABILITY_AM) == 0)
    return error(call, GASNET_ERR_BAD_ARG, "endpoint %u was created without GEX_EP_CAPABILITY_AM", self.index);
  if (numentries > 0 && table == nullptr)
    return error(call, GASNET_ERR_BAD_ARG, "a null table of %zu entries", numentries);
  ExState &x = ex_state();
  std::array<void (*)(), 256> &handlers = *endpoint_handlers(self.index);
  std::array<gex_AM_Entry_t, 256> &entries = self.index == 0 ? x.entries : self.entries;
  std::lock_guard lock(x.registry);
  // Everything is checked before anything is registered: a refused table leaves no trace.
  std::array<bool, 256> used{};
  for (unsigned i = 0; i < 256; ++i)
    used[i] = handlers[i] != nullptr;
  for (size_t i = 0; i < numentries; ++i) {
    const gex_AM_Entry_t &e = table[i];
    if (!valid_registration(e))
      return error(call, GASNET_ERR_BAD_ARG,
                   "entry %zu (%s): no function, more than %zu arguments, or flags %#x that do not name one "
                   "category and Request/Reply",
                   i, e.gex_name != nullptr ? e.gex_name : "unnamed", kMaxArgs, static_cast<unsigned>(e.gex_flags));
    if (e.gex_index == 0)
      continue;
    if (e.gex_index < GEX_AM_INDEX_BASE || used[e.gex_index])
      return error(call, GASNET_ERR_BAD_ARG, "entry %zu: index %u is reserved or registered already", i, e.gex_index);
    used[e.gex_index] = true;
  }
  // [GEX]: "don't care" entries get the highest free index, in table order.
  std::vector<gex_AM_Index_t> assigned(numentries);
  for (size_t i = 0; i < numentries; ++i) {
    if (table[i].gex_index != 0)
      continue;
    unsigned idx = 255;
    while (idx >= GEX_AM_INDEX_BASE && used[idx])
      --idx;
    if (idx < GEX_AM_INDEX_BASE)
      return error(call, GASNET_ERR_BAD_ARG, "entry %zu: no free handler index", i);
    used[idx] = true;
    assigned[i] = static_cast<gex_AM_Index_t>(idx);
  }
  for (size_t i = 0; i < numentries; ++i) {
    if (table[i].gex_index == 0)
      table[i].gex_index = assigned[i];
    gex_AM_Entry_t &e = entries[table[i].gex_index];
    e = table[i];
    // Published last: a poller that sees the function sees its entry (gex_Token_Info).
    __atomic_store_n(&handlers[e.gex_index], reinterpret_cast<void (*)()>(e.gex_fnptr), __ATOMIC_RELEASE);
  }
  return GASNET_OK;
}

int gex_hyg_AMRequest(int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *source_addr,
                      size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, ...) {
  std::va_list args;
  va_start(args, numargs);
  const int rc = am_request(am_name(category, true), category, tm, rank, handler, source_addr, nbytes, dest_addr,
                            lc_opt, flags, numargs, args);
  va_end(args);
  return rc;
}

int gex_hyg_AMReply(int category, gex_Token_t token, gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                    void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, int numargs, ...) {
  std::va_list args;
  va_start(args, numargs);
  const int rc = am_reply(am_name(category, false), category, token, handler, source_addr, nbytes, dest_addr, lc_opt,
                          flags, numargs, args);
  va_end(args);
  return rc;
}

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask) {
  const char *call = "gex_Token_Info";
  if (token == nullptr || info == nullptr)
    fatal(call, "a null token or info");
  const auto *t = reinterpret_cast<const Token *>(token);
  if (context().handler != t)
    fatal(call, "the token is not that of the handler this thread runs");
  (void)mask; // every field is cheap: all are set
  info->gex_srcrank = t->source;
  gex_hyg_EP *ep = t->ep == 0 ? &ex_state().ep_object : created(t->ep);
  info->gex_ep = ep;
  info->gex_entry = t->ep == 0 ? &ex_state().entries[t->handler] : &ep->entries[t->handler];
  info->gex_is_req = t->is_request ? 1 : 0;
  info->gex_is_long = t->category == kLong ? 1 : 0;
  return GEX_TI_ALL;
}

unsigned int gex_AM_MaxArgs(void) { return kMaxArgs; }
size_t gex_AM_LUBRequestLong(void) { return kMaxLong; }
size_t gex_AM_LUBReplyLong(void) { return kMaxLong; }
size_t gex_AM_LUBRequestMedium(void) { return kMaxMedium; }
size_t gex_AM_LUBReplyMedium(void) { return kMaxMedium; }

size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *, gex_Flags_t flags,
                             unsigned int numargs) {
  return max_payload("gex_AM_MaxRequestLong", tm, other_rank, numargs, true, flags);
}
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *, gex_Flags_t flags,
                           unsigned int numargs) {
  return max_payload("gex_AM_MaxReplyLong", tm, other_rank, numargs, true, flags);
}
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *, gex_Flags_t flags,
                               unsigned int numargs) {
  return max_payload("gex_AM_MaxRequestMedium", tm, other_rank, numargs, false, flags);
}
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *, gex_Flags_t flags,
                             unsigned int numargs) {
  return max_payload("gex_AM_MaxReplyMedium", tm, other_rank, numargs, false, flags);
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *, gex_Flags_t flags, unsigned int numargs) {
  (void)own_request_token("gex_Token_MaxReplyLong", token);
  if (numargs > kMaxArgs)
    fatal("gex_Token_MaxReplyLong", "numargs %u above %zu", numargs, kMaxArgs);
  return (flags & GEX_FLAG_AM_PREPARE_LEAST_ALLOC) != 0 ? kPreparedLongBuffer : kMaxLong;
}
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *, gex_Flags_t, unsigned int numargs) {
  (void)own_request_token("gex_Token_MaxReplyMedium", token);
  if (numargs > kMaxArgs)
    fatal("gex_Token_MaxReplyMedium", "numargs %u above %zu", numargs, kMaxArgs);
  return kMaxMedium;
}

} // extern "C"

// ---- negotiated-payload AMs [GEX "Negotiated-payload Active Messages"]. A Prepare records the
// destination and returns this thread's one source descriptor: the client's buffer, or a buffer
// of the library's, aligned for any type. Commit sends through the same am_send as the fixed-
// payload calls, which copies the payload (or places it, Long on a node) before it returns, so
// local completion is at Commit. Prepare/Commit pairs do not nest and belong to one thread.
struct gex_hyg_SrcDesc {
  bool pending = false;
  bool request = false;
  int category = 0;                // kMedium or kLong
  gex_Rank_t rank = 0;             // a request's job rank
  unsigned from_ep = 0, to_ep = 0; // a request's endpoints
  Token *token = nullptr;          // a reply's token
  void *addr = nullptr;            // gex_AM_SrcDescAddr
  size_t size = 0;                 // gex_AM_SrcDescSize
  void *dest_addr = nullptr;       // a Long's Prepare-time destination, or null
  gex_Event_t *lc_opt = nullptr;   // where Commit reports local completion
  unsigned numargs = 0;
  const char *prepare = nullptr;     // the Prepare call's name
  std::vector<std::max_align_t> own; // the library's buffer, grown as needed and kept
};

namespace {

// One descriptor per thread for requests and one for replies: a request handler that runs inside
// a request's Commit (a request to this rank runs at once) may Prepare its reply while the
// request's payload, perhaps in the request descriptor's buffer, is still its `buf`.
gex_hyg_SrcDesc &thread_desc(bool request) {
  static thread_local gex_hyg_SrcDesc desc[2];
  return desc[request ? 1 : 0];
}
const char *prepare_name(int category, bool request) {
  if (category == kMedium)
    return request ? "gex_AM_PrepareRequestMedium" : "gex_AM_PrepareReplyMedium";
  return request ? "gex_AM_PrepareRequestLong" : "gex_AM_PrepareReplyLong";
}
const char *commit_name(int category, bool request) {
  if (category == kMedium)
    return request ? "gex_AM_CommitRequestMedium" : "gex_AM_CommitReplyMedium";
  return request ? "gex_AM_CommitRequestLong" : "gex_AM_CommitReplyLong";
}

gex_AM_SrcDesc_t prepare(int category, bool request, Destination to, Token *token, const void *client_buf, size_t least,
                         size_t most, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned numargs) {
  const char *call = prepare_name(category, request);
  require_messaging(call);
  require_flags(call, flags, kInjectFlags);
  // [GEX "Negotiated-payload Active Messages"]: "in the interval between a Prepare and Commit, the
  // client is bound by the same restrictions as in an Active Message Reply handler (ie all
  // communication calls are prohibited). Prepare/commit pairs do not nest." A Prepare is
  // permitted where its fixed-payload call is.
  ThreadContext &ctx = context();
  if (ctx.prepared != nullptr)
    fatal(call, "a Prepare is pending on this thread (from %s): Prepare/Commit pairs do not nest", ctx.prepared);
  if (request)
    require_may_communicate(call);
  gex_hyg_SrcDesc &d = thread_desc(request);
  if (numargs > kMaxArgs)
    fatal(call, "numargs %u exceeds gex_AM_MaxArgs() = %zu", numargs, kMaxArgs);
  const size_t max = category == kMedium ? kMaxMedium : kMaxLong;
  if (least > max)
    fatal(call, "least_payload %zu exceeds the largest payload, %zu", least, max);
  if (most < least)
    fatal(call, "most_payload %zu is less than least_payload %zu", most, least);
  if (client_buf == nullptr && lc_opt != nullptr)
    fatal(call, "lc_opt must be NULL when client_buf is NULL");
  if (client_buf != nullptr)
    check_lc(call, lc_opt, request);
  size_t size = std::min(most, max);
  if (client_buf == nullptr && category == kLong) {
    if (least > kPreparedLongBuffer)
      fatal(call, "least_payload %zu exceeds the largest buffer the library allocates, %zu", least,
            kPreparedLongBuffer);
    size = std::max(least, std::min(size, kPreparedLongBuffer));
  }
  if (client_buf == nullptr) {
    const size_t units = (size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (d.own.size() < units)
      d.own.resize(units);
  }
  d.pending = true;
  d.request = request;
  d.category = category;
  d.rank = to.jobrank;
  d.from_ep = to.from_ep;
  d.to_ep = to.to_ep;
  d.token = token;
  d.addr = client_buf != nullptr ? const_cast<void *>(client_buf) : static_cast<void *>(d.own.data());
  d.size = size;
  d.dest_addr = dest_addr;
  d.lc_opt = lc_opt;
  d.numargs = numargs;
  d.prepare = call;
  ctx.prepared = call;
  ctx.publish();
  return &d;
}

gex_hyg_SrcDesc &described(const char *call, gex_AM_SrcDesc_t sd) {
  if (sd == GEX_AM_SRCDESC_NO_OP)
    fatal(call, "GEX_AM_SRCDESC_NO_OP is no source descriptor");
  if ((sd != &thread_desc(true) && sd != &thread_desc(false)) || !sd->pending)
    fatal(call, "%p is not the source descriptor of this thread's pending Prepare", static_cast<void *>(sd));
  return *sd;
}

} // namespace

extern "C" {

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least_payload,
                                             size_t most_payload, gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs) {
  return prepare(kMedium, true, am_destination(prepare_name(kMedium, true), tm, rank), nullptr, client_buf,
                 least_payload, most_payload, nullptr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf, size_t least_payload,
                                           size_t most_payload, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  return prepare(kMedium, false, {}, own_request_token(prepare_name(kMedium, false), token), client_buf, least_payload,
                 most_payload, nullptr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf, size_t least_payload,
                                           size_t most_payload, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  return prepare(kLong, true, am_destination(prepare_name(kLong, true), tm, rank), nullptr, client_buf, least_payload,
                 most_payload, dest_addr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf, size_t least_payload,
                                         size_t most_payload, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                         unsigned int numargs) {
  return prepare(kLong, false, {}, own_request_token(prepare_name(kLong, false), token), client_buf, least_payload,
                 most_payload, dest_addr, lc_opt, flags, numargs);
}

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) { return described("gex_AM_SrcDescAddr", sd).addr; }
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) { return described("gex_AM_SrcDescSize", sd).size; }

void gex_hyg_AMCommit(int category, int request, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                      void *dest_addr, int numargs, ...) {
  const char *call = commit_name(category, request != 0);
  gex_hyg_SrcDesc &d = described(call, sd);
  if (d.category != category || d.request != (request != 0))
    fatal(call, "the pending Prepare is %s", d.prepare);
  if (static_cast<unsigned>(numargs) != d.numargs)
    fatal(call, "%d arguments, but the Prepare announced %u", numargs, d.numargs);
  if (nbytes > d.size)
    fatal(call, "nbytes %zu exceeds gex_AM_SrcDescSize() = %zu", nbytes, d.size);
  if (category == kLong && d.dest_addr != nullptr && dest_addr != d.dest_addr)
    fatal(call, "dest_addr %p differs from the Prepare's %p", dest_addr, d.dest_addr);
  d.pending = false; // consumed, whatever the send does
  ThreadContext &ctx = context();
  ctx.prepared = nullptr;
  ctx.publish();
  std::va_list args;
  va_start(args, numargs);
  (void)am_send(call, d.token, d.rank, category, handler, d.addr, nbytes, dest_addr, numargs, args, d.from_ep, d.to_ep);
  va_end(args);
  if (d.lc_opt != nullptr)
    complete_lc(d.lc_opt);
}

} // extern "C"
