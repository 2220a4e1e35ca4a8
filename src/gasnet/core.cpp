// Job control, environment queries and errors [G1 §2.2, §2.1.4], and the front end's entry
// checks. gasnet_init starts (or joins) the engine; gasnet_attach registers the handlers, makes the
// segment, opens the active-message inbox and exchanges every node's segment; gasnet_exit ends
// the whole job.
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "bridge/am_channel.hpp"
#include "bridge/engine.hpp"
#include "bridge/lifecycle.hpp"
#include "core/config.hpp"
#include "bridge/progress.hpp"
#include "core/limits.hpp"
#include "core/log.hpp"
#include "core/no_destroy.hpp"
#include "gasnet/ex_coll.hpp"
#include "gasnet/ex_internal.hpp"

extern char **environ;

using namespace hygaspi;
using namespace hygaspi::gasnet;

namespace hygaspi::gasnet {

namespace {
// Never destroyed (core/no_destroy.hpp): threads of the node may be inside calls as it exits.
NoDestroy<State> g_state;
} // namespace
State &state() noexcept { return g_state.value; }

ThreadContext &context() noexcept {
  HYG_FAST_TLS thread_local ThreadContext ctx;
  return ctx;
}

} // namespace hygaspi::gasnet

// The inline node path's view (gasnet_inline.h): the table gasnet_attach publishes, and the
// thread's rule state, which ThreadContext::publish keeps.
extern "C" {
gasnet_hyg_segment_t *gasnet_hyg_segments_v1 = nullptr;
gasnet_node_t gasnet_hyg_nnodes = 0;
HYG_FAST_TLS __thread unsigned gasnet_hyg_busy = 0;
}
// The library reads and writes these through their exported names only: a client executable
// may hold copies of them (copy relocations), which every reference through the GOT reaches
// and a hidden alias of the library's own storage does not.

namespace hygaspi::gasnet {

namespace {

// The rank a message starts with: this node from gasnet_init on; before it, the launcher's
// (hygaspi-run: HYGASPI_RANK; mpirun: OMPI_COMM_WORLD_RANK; a PMIx launcher: PMIX_RANK), so that an
// init that fails on every rank does not read as rank 0's message each time; "?" when none says.
struct RankLabel {
  char text[16];
  RankLabel() noexcept {
    const State &s = state();
    if (s.inited.load(std::memory_order_acquire)) {
      std::snprintf(text, sizeof text, "%u", s.mynode);
      return;
    }
    for (const char *name : {"HYGASPI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
      if (const char *v = std::getenv(name); v != nullptr && *v != '\0' && std::strlen(v) < sizeof text) {
        std::snprintf(text, sizeof text, "%s", v);
        return;
      }
    std::snprintf(text, sizeof text, "?");
  }
};

} // namespace

// The thread that runs gasnet_exit; any other thread that enters a call once the exit began waits
// there until the process ends [G1 §2.1.5: the job terminates], touching nothing.
HYG_FAST_TLS thread_local bool t_exiting = false;

static void park_if_exiting() noexcept {
  if (__builtin_expect(state().exiting.load(std::memory_order_acquire), 0) && !t_exiting)
    wait_for_process_end();
}

void fatal(const char *call, const char *fmt, ...) noexcept {
  // Once this node's exit began, what another thread finds wrong (a collective whose members
  // left with the job's end, say) is moot: the exit's code ends the job, not SIGABRT.
  park_if_exiting();
  char message[512];
  std::va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  std::fflush(stdout);
  std::fprintf(stderr, "[%s] %s: fatal: %s\n", RankLabel().text, call, message);
  std::fflush(stderr);
  std::abort(); // [G1 §1.6]: SIGABRT; the launcher (or mpirun) ends the other nodes
}

int error(const char *call, int code, const char *fmt, ...) noexcept {
  char message[512];
  std::va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  std::fprintf(stderr, "[%s] %s: %s: %s\n", RankLabel().text, call, gasnet_ErrorName(code), message);
  return code;
}

void require_inited(const char *call) noexcept {
  park_if_exiting();
  if (state().finalized_by_mpi.load(std::memory_order_acquire))
    fatal(call, "called after the application finalized MPI (MPI_Finalize): only gasnet_exit, or a return from "
                "main, may follow it");
  if (!state().inited.load(std::memory_order_acquire))
    fatal(call, "called before gasnet_init");
}

void require_attached(const char *call) noexcept {
  park_if_exiting();
  if (!state().attached.load(std::memory_order_acquire))
    fatal(call, "called before gasnet_attach");
}

void require_messaging(const char *call) noexcept {
  park_if_exiting();
  if (!am::is_open())
    fatal(call, "called before gasnet_attach (GASNet-1) or gex_Client_Init (GASNet-EX)");
}

int open_messaging(const char *call) {
  State &s = state();
  {
    std::lock_guard lock(engine::lifecycle());
    if (!am::is_open() && am::open(s.threads) != GASPI_SUCCESS)
      return error(call, GASNET_ERR_RESOURCE, "the active-message inbox cannot be opened");
  }
  // Every node peer has opened its inbox after the first barrier and mapped this one after the
  // second; its name can go then.
  ex::primordial_barrier(call);
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    (void)engine::mapping(GlobalRank{n}, limits::kInbox);
  ex::primordial_barrier(call);
  engine::forget_segment_name(limits::kInbox);
  return GASNET_OK;
}

void require_may_communicate(const char *call) noexcept {
  const ThreadContext &ctx = context();
  if (ctx.handler != nullptr)
    fatal(call, "called inside an AM handler [G1 section 2.4.1]");
  if (ctx.nis)
    fatal(call, "called inside a no-interrupt section [G1 section 2.4.3]");
  if (ctx.hsl_held != 0)
    fatal(call, "called while holding a handler-safe lock [G1 section 2.4.4]");
  require_no_pending_prepare(call);
}

void require_no_pending_prepare(const char *call) noexcept {
  if (const char *prepared = context().prepared; prepared != nullptr)
    fatal(call, "called between %s and its Commit, where every communication call is prohibited", prepared);
}

void handle_internal(const Token &token, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs) {
  State &s = state();
  switch (handler) {
  case kHandlerUnmap:
  case kHandlerUnmapAck:
    handle_unmap(token, handler, args, nargs);
    return;
  case kHandlerSeginfo:
    if (nargs == 4 && token.source < s.nodes) {
      NodeSegment &seg = s.segments[token.source];
      seg.addr = join(args[0], args[1]);
      seg.size = join(args[2], args[3]);
      s.seginfo_got.fetch_add(1, std::memory_order_acq_rel);
    }
    return;
  case kHandlerExit:
    if (nargs == 1 && token.source < s.nodes) {
      s.exiting_ranks[token.source].store(true, std::memory_order_release);
      // [G1 §2.2.4]: a remote exit ends this node too, at a poll after the grace (follow_remote_exit).
      if (!s.remote_exit.exchange(true)) {
        s.exit_code.store(args[0]);
        s.remote_exit_at.store(std::chrono::steady_clock::now().time_since_epoch().count());
      }
    }
    return;
  default:
    fatal("gasnet_AMPoll", "a message from node %u to internal handler %u", token.source, handler);
  }
}

// A node that died without gasnet_exit (hygaspi-run --keep-going lets the others run on; without
// it the launcher or mpirun ends them): GASNet has no way to report it to the client, and a wait
// for that node would never end, so the job ends [G1 §1.6]. Looked at every kDeadCheckEvery polls.
static constexpr unsigned kDeadCheckEvery = 256;
static void end_if_a_node_died() noexcept {
  HYG_FAST_TLS thread_local unsigned polls = 0;
  State &s = state();
  if (++polls % kDeadCheckEvery != 0 || !am::is_open())
    return;
  for (gasnet_node_t n = 0; n < s.nodes; ++n)
    if (!engine::alive(GlobalRank{n}) && !s.exiting_ranks[n].load(std::memory_order_acquire)) {
      std::fprintf(stderr, "[%u] gasnet: node %u died without gasnet_exit; ending the job\n", s.mynode, n);
      exit_job(1);
    }
}

// [G1 §2.1.5]: "GASNet will send a SIGQUIT signal to the node if it detects that a remote node has
// called gasnet_exit ... (in which case the node should catch the signal, perform any
// system-specific shutdown, then call gasnet_exit())", and also when the job receives "a different
// catchable terminate-the-program signal (e.g. SIGTERM, SIGINT)". We raise it only where the client
// caught it: the default action (a core dump) would replace the job's exit code.
static bool client_catches_sigquit() noexcept {
  struct sigaction current {};
  if (sigaction(SIGQUIT, nullptr, &current) != 0)
    return false;
  if ((current.sa_flags & SA_SIGINFO) != 0)
    return true;
  return current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
}

// SIGINT or SIGTERM, where the client left their default: SIGQUIT for its handler, or the default.
static void forward_terminate_signal(int sig) noexcept {
  State &s = state();
  if (s.exiting.load()) // the exit under way ends the process
    return;
  if (client_catches_sigquit()) {
    s.quit_raised.store(true);
    raise(SIGQUIT);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void catch_terminate_signals() noexcept {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL)
      signal(sig, forward_terminate_signal);
  }
}

void follow_remote_exit() noexcept {
  State &s = state();
  if (s.exiting.load() || context().handler != nullptr)
    return;
  end_if_a_node_died();
  if (!s.remote_exit.load(std::memory_order_acquire))
    return;
  if (std::chrono::steady_clock::now().time_since_epoch().count() - s.remote_exit_at.load() < kRemoteExitGraceNs)
    return;
  if (!s.quit_raised.exchange(true) && client_catches_sigquit())
    raise(SIGQUIT); // its handler normally calls gasnet_exit; if it returns, the job ends here
  exit_job(s.exit_code.load());
}

// How long gasnet_exit waits for every node to join its exit before it ends the job itself.
constexpr std::uint64_t kExitJoinMs = 500;

// gasnet_exit's work. Returns only when the job ended cleanly (every node exits): the caller then
// ends the process with `code`, or, at process exit, lets it end.
static void leave_job(int code) noexcept {
  State &s = state();
  std::fflush(stdout);
  std::fflush(stderr);
  if (s.finalized_by_mpi.load(std::memory_order_acquire))
    return; // every node left GASNet in MPI_Finalize (finalize_with_mpi): the process just ends
  if (s.exiting.exchange(true))
    wait_for_process_end(); // another thread of this node is exiting: it ends the process
  t_exiting = true;
  // Following another node's exit: its notice came first and this exit asks for its code. A node
  // whose own gasnet_exit asks for another code ends the job too (the launcher names it).
  const bool asked = !s.remote_exit.load(std::memory_order_acquire) || s.exit_code.load() != code;
  s.exit_code.store(code);
  __atomic_store_n(&gasnet_hyg_segments_v1, nullptr, __ATOMIC_RELEASE); // every put and get to the library
  context() = ThreadContext{};
  context().publish();
  if (!s.inited.load())
    return;
  s.exiting_ranks[s.mynode].store(true);
  bool collective = s.nodes == 1;
  if (!collective && am::is_open()) {
    // Tell every node; each one that polls joins the exit with this code. Then wait, polling, for
    // all of them to join (the usual barrier-then-exit), up to half a second.
    std::vector<bool> told(s.nodes, false);
    told[s.mynode] = true;
    AmHead h{};
    h.category = kShort;
    h.handler = kHandlerExit;
    h.flags = kInternal;
    h.nargs = 1;
    const gasnet_handlerarg_t arg = code;
    const Wire notice = encode(h, &arg, 0);
    auto all_joined = [&] {
      bool all = true;
      for (gasnet_node_t n = 0; n < s.nodes; ++n) {
        if (!told[n])
          told[n] = am::try_send(GlobalRank{n}, am::Lane::request, notice.bytes, notice.size) == GASPI_SUCCESS;
        const bool gone = !engine::alive(GlobalRank{n});
        all &= told[n] && (s.exiting_ranks[n].load() || gone);
      }
      return all;
    };
    // Polling serves the others' exit notices (client handlers no longer run: am.cpp).
    collective = wait_until(
                     all_joined, Deadline(kExitJoinMs), engine::wait_policy(), [] { return poll(); }, Nap{},
                     kAlwaysHealthy) == GASPI_SUCCESS;
  } else if (!collective) {
    // No inbox yet (GASNet-1 before attach): no notice reaches the others. Where every node ends
    // now (gasnet_init, then gasnet_exit or a return from main), all arrive here, and the job ends
    // cleanly rather than by MPI_Abort, whose report reads like a crash.
    collective = engine_all_arrive(std::chrono::milliseconds(kExitJoinMs));
  }
  if (collective) {
    // Every node exits: a clean end. Nothing is torn down: other threads of this node may still be
    // inside calls (GASNET_PAR), and the process ends now anyway. They park at their next entry
    // (require_inited), and MPI_Finalize at exit waits for an MPI call under way (mpi::Env).
    std::lock_guard lock(engine::lifecycle());
    engine_leave_at_exit(kFrontGasnet, code, asked);
    return;
  }
  // Some node does not answer (computing without polling, or before attach): end it. Under mpirun,
  // MPI_Abort ends every process and mpirun reports `code`; a node peer killed first would make it
  // report the kill's 137 instead. Under hygaspi-run the launcher reports the code this rank
  // wrote (end_job), whoever of the exiting ranks kills whom.
  engine::abort_job(code, [&s](std::uint32_t n) { return s.exiting_ranks[n].load(); });
}

[[noreturn]] void exit_job(int code) noexcept {
  leave_job(code);
  std::exit(code);
}

// [G1 §2.1.5]: calling gasnet_exit before the process ends "is not required": a process that
// returns from main or calls exit() ends the job as gasnet_exit(status) would, so that no node is
// left waiting for it.
void exit_at_process_exit(int status) noexcept {
  if (state().exiting.load()) // gasnet_exit is under way, in this thread or another: it ends the job
    return;
  leave_job(status);
}

} // namespace hygaspi::gasnet

namespace {

// The spawner's environment [G1 §2.2.6]: rank 0's, sent to every rank at gasnet_init.
std::vector<std::string> snapshot_environment() {
  std::vector<char> bytes;
  if (engine::rank() == 0)
    for (char **e = environ; e != nullptr && *e != nullptr; ++e)
      bytes.insert(bytes.end(), *e, *e + std::strlen(*e) + 1);
  if (engine_broadcast(bytes) != GASPI_SUCCESS)
    fatal("gasnet_init", "the environment could not be broadcast");
  std::vector<std::string> env;
  if (!engine::mpi_job()) { // one node: every rank has the launcher's environment
    for (char **e = environ; e != nullptr && *e != nullptr; ++e)
      env.emplace_back(*e);
    return env;
  }
  for (std::size_t i = 0; i < bytes.size();) {
    env.emplace_back(bytes.data() + i);
    i += env.back().size() + 1;
  }
  return env;
}

} // namespace

namespace {

// The application calls MPI_Finalize while GASNet is up (a client that started MPI itself, and
// ends it before gasnet_exit or a return from main). Every rank is inside MPI_Finalize then, so
// GASNet leaves the engine as a GASPI term would (its windows' free is collective), and the exit
// that follows only ends the process: MPI can carry nothing more (Open MPI aborts a process that
// calls it after MPI_Finalize).
void finalize_with_mpi() {
  state().finalized_by_mpi.store(true, std::memory_order_release);
  engine_stop(kFrontGasnet);
}

// The largest segment a rank of this host may attach. GASNet's default (GASNET_MAX_SEGSIZE
// "0.85/H"): 85% of the host's physical memory over the ranks of the host, as segments are
// backed at once (posix_fallocate in /dev/shm) and a client often attaches the largest it is
// offered; and no more than the size of /dev/shm, where the segment lives, over those ranks. Sizes
// rather than free space: every rank of the host gets the same answer at whatever moment it asks.
// An attach that finds /dev/shm too full for it then fails with a message.
std::uint64_t segment_limit() {
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  std::uint64_t bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) / 100 * 85 * page;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0)
    bytes = std::min<std::uint64_t>(bytes, static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize);
  const std::uint64_t mine = std::min<std::uint64_t>(bytes / engine::host_ranks(), limits::kMaxObjectBytes);
  return mine / GASNET_PAGESIZE * GASNET_PAGESIZE;
}

int init_mode(int *argc, char ***argv, const char *mode, bool threads) {
  (void)argc;
  (void)argv;
  State &s = state();
  std::lock_guard lock(engine::lifecycle());
  if (s.inited.load())
    return error("gasnet_init", GASNET_ERR_RESOURCE, "gasnet_init may be called only once");
  s.threads = threads;
  log::CallScope scope("gasnet_init");
  Knobs knobs;
  std::string message;
  if (!read_knobs(knobs, message))
    return error("gasnet_init", GASNET_ERR_BAD_ARG, "%s", message.c_str());
  log::set_level(static_cast<log::Level>(knobs.log_level));
  const Deadline deadline(static_cast<std::uint64_t>(knobs.init_timeout_ms));
  // GASNet sends no passive messages; a GASPI front end that joins later gets GASPI's default size.
  const std::uint64_t passive_max = default_config().passive_transfer_size_max;
  gaspi_return_t rc;
  while ((rc = engine_start(kFrontGasnet, knobs, deadline, passive_max)) == GASPI_TIMEOUT &&
         engine::start_resumable() && !deadline.expired()) {
  }
  if (rc != GASPI_SUCCESS) {
    engine_abandon(kFrontGasnet, rc);
    return error("gasnet_init", GASNET_ERR_RESOURCE, "the job could not start (%s mode)", mode);
  }
  s.finalized_by_mpi.store(false, std::memory_order_relaxed);
  engine_on_mpi_finalize(kFrontGasnet, finalize_with_mpi);
  s.mynode = engine::rank();
  s.nodes = engine::size();
  s.max_local = s.max_global = segment_limit();
  if (engine_min(s.max_global) != GASPI_SUCCESS) { // collective, as gasnet_init is
    engine_abandon(kFrontGasnet, GASPI_ERROR);
    return error("gasnet_init", GASNET_ERR_RESOURCE, "the nodes' largest segments could not be compared");
  }
  s.environment = snapshot_environment();
  // Every node's supernode: the first rank of its engine node (mpirun's node map, virtual nodes of
  // HYGASPI_NODE_SIZE included; under hygaspi-run, or alone, all ranks are one node).
  s.supernode = engine::node_firsts();
  s.exiting_ranks = std::vector<std::atomic<bool>>(s.nodes);
  s.segments.assign(s.nodes, NodeSegment{}); // before any peer's kHandlerSeginfo can arrive
  ex::make_primordial();
  s.inited.store(true, std::memory_order_release);
  engine_on_exit(kFrontGasnet, exit_at_process_exit);
  catch_terminate_signals();
  return GASNET_OK;
}

} // namespace

extern "C" {

int gasnet_hyg_init(int *argc, char ***argv, int mode) {
  static const char *const names[] = {"SEQ", "PARSYNC", "PAR"};
  if (mode < 0 || mode > 2)
    return error("gasnet_init", GASNET_ERR_BAD_ARG, "unknown thread mode %d", mode);
  return init_mode(argc, argv, names[mode], mode == 2);
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize, uintptr_t minheapoffset) {
  (void)minheapoffset; // the segment is a shm object of its own, never carved out of the heap
  const char *call = "gasnet_attach";
  require_inited(call);
  if (numentries < 0 || (numentries > 0 && table == nullptr))
    return error(call, GASNET_ERR_BAD_ARG, "a handler table of %d entries at %p", numentries,
                 static_cast<void *>(table));
  // The client's handlers, registered once the attach's own checks have passed, before any message.
  auto register_table = [&]() -> int {
    // [G1 §2.2.2]: fixed indices first; then each "don't care" entry gets the lowest free client
    // index, in table order, so every node computes the same assignment.
    State &s = state();
    std::array<bool, 256> used{};
    for (int i = 0; i < numentries; ++i) {
      const gasnet_handler_t idx = table[i].index;
      if (idx == 0)
        continue;
      if (idx < kFirstClientHandler || used[idx] || table[i].fnptr == nullptr)
        return error(call, GASNET_ERR_BAD_ARG, "handler index %u is reserved, repeated or has no function", idx);
      used[idx] = true;
    }
    for (int i = 0; i < numentries; ++i) {
      if (table[i].index != 0)
        continue;
      unsigned idx = kFirstClientHandler;
      while (idx < 256 && used[idx])
        ++idx;
      if (idx == 256 || table[i].fnptr == nullptr)
        return error(call, GASNET_ERR_BAD_ARG, "no free handler index for entry %d", i);
      used[idx] = true;
      table[i].index = static_cast<gasnet_handler_t>(idx);
    }
    for (int i = 0; i < numentries; ++i)
      s.handlers[table[i].index] = table[i].fnptr;
    return GASNET_OK;
  };
  return ex::attach_primordial(call, segsize, register_table);
}

void gasnet_exit(int exitcode) { exit_job(exitcode); }

// Before gasnet_init: (gasnet_node_t)-1 and 0, as GASNet's own globals read then.
gasnet_node_t gasnet_mynode(void) { return state().inited.load() ? state().mynode : static_cast<gasnet_node_t>(-1); }
gasnet_node_t gasnet_nodes(void) { return state().inited.load() ? state().nodes : 0; }

uintptr_t gasnet_getMaxLocalSegmentSize(void) {
  require_inited("gasnet_getMaxLocalSegmentSize");
  return max_local_segment();
}

uintptr_t gasnet_getMaxGlobalSegmentSize(void) {
  require_inited("gasnet_getMaxGlobalSegmentSize");
  return static_cast<uintptr_t>(state().max_global);
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries) {
  const State &s = state();
  if (!s.attached.load(std::memory_order_acquire))
    return error("gasnet_getSegmentInfo", GASNET_ERR_NOT_INIT, "called before gasnet_attach");
  if (numentries < 0 || (numentries > 0 && seginfo_table == nullptr))
    return error("gasnet_getSegmentInfo", GASNET_ERR_BAD_ARG, "a table of %d entries at %p", numentries,
                 static_cast<void *>(seginfo_table));
  for (gasnet_node_t n = 0; n < s.nodes && n < static_cast<gasnet_node_t>(numentries); ++n)
    seginfo_table[n] = gasnet_seginfo_t{reinterpret_cast<void *>(s.segments[n].addr), s.segments[n].size};
  return GASNET_OK;
}

// GASNet 1.x answers from gasnet_init on, and clients ask before attach: who shares memory is
// known once the engine has started. A segment's offset is known once gasnet_attach has
// returned; 0 until then.
int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries) {
  const State &s = state();
  if (!s.inited.load(std::memory_order_acquire))
    return error("gasnet_getNodeInfo", GASNET_ERR_NOT_INIT, "called before gasnet_init");
  if (numentries < 0 || (numentries > 0 && nodeinfo_table == nullptr))
    return error("gasnet_getNodeInfo", GASNET_ERR_BAD_ARG, "a table of %d entries", numentries);
  const bool attached = s.attach_done.load(std::memory_order_acquire);
  for (gasnet_node_t n = 0; n < s.nodes && n < static_cast<gasnet_node_t>(numentries); ++n) {
    intptr_t offset = 0;
    if (attached && s.segments[n].mapped != nullptr)
      offset = static_cast<intptr_t>(reinterpret_cast<std::uint64_t>(s.segments[n].mapped) - s.segments[n].addr);
    nodeinfo_table[n] = gasnet_nodeinfo_t{s.supernode[n], s.supernode[n], offset};
  }
  return GASNET_OK;
}

char *gasnet_getenv(const char *name) {
  require_inited("gasnet_getenv");
  if (name == nullptr)
    return nullptr;
  const std::size_t len = std::strlen(name);
  for (std::string &e : state().environment)
    if (e.size() > len && e.compare(0, len, name) == 0 && e[len] == '=')
      return e.data() + len + 1;
  return nullptr;
}

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK && wait_mode != GASNET_WAIT_SPINBLOCK)
    return error("gasnet_set_waitmode", GASNET_ERR_BAD_ARG, "unknown wait mode %d", wait_mode);
  return GASNET_OK; // waits spin, yield, then nap on the doorbell, whatever the mode (a hint [G1 §3.6])
}

const char *gasnet_ErrorName(int errval) {
  switch (errval) {
  case GASNET_OK:
    return "GASNET_OK";
  case GASNET_ERR_NOT_INIT:
    return "GASNET_ERR_NOT_INIT";
  case GASNET_ERR_RESOURCE:
    return "GASNET_ERR_RESOURCE";
  case GASNET_ERR_BAD_ARG:
    return "GASNET_ERR_BAD_ARG";
  case GASNET_ERR_NOT_READY:
    return "GASNET_ERR_NOT_READY";
  case GASNET_ERR_BARRIER_MISMATCH:
    return "GASNET_ERR_BARRIER_MISMATCH";
  default:
    return "*unknown*";
  }
}

const char *gasnet_ErrorDesc(int errval) {
  switch (errval) {
  case GASNET_OK:
    return "no error";
  case GASNET_ERR_NOT_INIT:
    return "GASNet is not initialised (gasnet_init, gasnet_attach)";
  case GASNET_ERR_RESOURCE:
    return "a resource or communication failure";
  case GASNET_ERR_BAD_ARG:
    return "an illegal argument";
  case GASNET_ERR_NOT_READY:
    return "not ready yet (try again)";
  case GASNET_ERR_BARRIER_MISMATCH:
    return "the barrier ids or flags did not match";
  default:
    return "no such GASNet error code";
  }
}

} // extern "C"
