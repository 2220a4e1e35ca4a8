// The engine's start and stop (bridge/lifecycle.hpp): hygaspi-run or a standalone process (one
// node, no MPI), or an MPI job (mpirun, or inside an MPI program: spec §5.6).
#include "bridge/lifecycle.hpp"

#include <unistd.h>

#include <array>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <mutex>

#include "bridge/am_channel.hpp"
#include "bridge/device_rma.hpp"
#include "bridge/failures.hpp"
#include "bridge/progress.hpp"
#include "bridge/remote_device.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "mpi_rma/leaders.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "shm/reclaim.hpp"

namespace hygaspi {

namespace {

unsigned g_users = 0; // FrontEnd bits of the front ends using the engine; under Runtime::lifecycle
// engine_ready_to_stop's barrier, pending across a term that timed out; under Runtime::lifecycle.
MPI_Request g_stop_barrier = MPI_REQUEST_NULL;

// What each front end does when the process ends its use of MPI or ends itself with the front end
// still up; indexed by the front end's bit number.
struct FrontEndHooks {
  void (*at_mpi_finalize)() = nullptr;
  void (*at_exit)(int status) = nullptr;
};
constexpr unsigned kFrontEnds = 32; // one per bit of a FrontEnd
std::array<FrontEndHooks, kFrontEnds> g_hooks{};
constexpr unsigned index_of(unsigned front) noexcept { return static_cast<unsigned>(__builtin_ctz(front)); }
std::once_flag g_exit_handler_registered;

// The process exits (return from main, exit()) while a front end is still up. Each such front end
// first does what its API asks (GASNet: the job ends as with gasnet_exit(status)). If the engine is
// still in use after that, the process leaves a running job without term: its peers must see it
// dead at once rather than wait for it forever, and nothing here may wait for them (MPI_Win_free
// and MPI_Finalize synchronise with every other process). So: the progress thread stops (it must
// not call MPI while the process ends), the rank is marked dead on its node, and MPI is left
// unfinalized, which mpirun reports by ending the job. Nothing is unmapped: other threads of the
// process may still be inside calls (core/no_destroy.hpp).
void at_process_exit(int status, void *) noexcept {
  for (unsigned i = 0; i < kFrontEnds; ++i)
    if ((g_users & (1u << i)) != 0 && g_hooks[i].at_exit != nullptr)
      g_hooks[i].at_exit(status);
  if (g_users == 0)
    return;
  Runtime &r = rt();
  log::error("the process exits (code %d) without gaspi_proc_term: the other ranks see this rank dead", status);
  stop_progress_thread();
  // Node peers see the mark below; the other nodes hear it from this process itself, which may be
  // the only or the last live rank of its node.
  if (r.mpi.active() && r.peers.spans_nodes())
    tell_own_death();
  r.node.leave_at_exit();
  r.mpi.leave_at_exit();
}

// Spinning only pays when every rank has a core. Oversubscribed, a spinning waiter steals the CPU
// from the rank it waits for (measured: 4 ranks on 2 cores, barrier 225 us with a 2000-poll spin,
// 8.9 us without), so unless HYGASPI_SPIN is set we go straight to yielding.
//
// The host's ranks (under mpirun, those of every virtual node on it: HYGASPI_NODE_SIZE) are
// compared with the CPUs of the host, not with this process's affinity mask: a rank pinned to one
// core (hygaspi-run --bind core, mpirun's default) has a mask of one CPU although every rank has a
// core of its own (measured: treating that as oversubscribed turned a 323 ns write_notify into
// 1167 ns). Counting a virtual node's ranks instead let 32 ranks spin on 2 CPUs.
std::int64_t effective_spin(const Knobs &knobs, std::uint32_t host_ranks) {
  if (knobs.given(&Knobs::spin))
    return knobs.spin;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const std::int64_t spin = static_cast<long>(host_ranks) > cpus ? 0 : knobs.spin;
  log::debug("waits spin %lld looks before they yield (%u ranks on this host, %ld CPUs)", static_cast<long long>(spin),
             host_ranks, cpus);
  return spin;
}

// True when `pid` is this process's parent, grandparent, ... (read from /proc).
bool is_ancestor(pid_t pid) {
  for (pid_t p = getppid(); p > 1;) {
    if (p == pid)
      return true;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(p));
    std::FILE *f = std::fopen(path, "r");
    if (f == nullptr)
      return false;
    char buffer[512];
    const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
    std::fclose(f);
    buffer[n] = '\0';
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const char *paren = std::strrchr(buffer, ')');
    char state = 0;
    int ppid = 0;
    if (paren == nullptr || std::sscanf(paren + 1, " %c %d", &state, &ppid) != 2)
      return false;
    p = ppid;
  }
  return false;
}

// HYGASPI_JOB/RANK/NRANKS are inherited by every process a rank starts
// (system(), fork+exec). Only the process hygaspi-run started (HYGASPI_PID) takes the rank, or a
// process it started before taking the rank itself (a wrapper that forks: /usr/bin/time, strace
// -f, sh -c 'a; b'). Any other process is a standalone 1-rank job.
bool takes_launcher_rank(const Knobs &knobs) {
  if (knobs.job.empty() || knobs.launched_pid == 0 || knobs.launched_pid == getpid())
    return true;
  return is_ancestor(static_cast<pid_t>(knobs.launched_pid)) &&
         shm::Node::slot_unclaimed(knobs.job, static_cast<std::uint32_t>(knobs.nranks),
                                   static_cast<std::uint32_t>(knobs.rank));
}

// One node, started by hygaspi-run (or alone): global rank = node-local index.
gaspi_return_t start_node_job(Runtime &r, Knobs knobs, const Deadline &deadline, std::uint64_t passive_max) {
  if (!takes_launcher_rank(knobs)) {
    log::debug("HYGASPI_JOB is inherited from rank %lld (pid %lld) of another job: running as a standalone 1-rank job",
               static_cast<long long>(knobs.rank), static_cast<long long>(knobs.launched_pid));
    knobs.job.clear();
    knobs.rank = 0;
    knobs.nranks = 1;
  }
  if (knobs.job.empty())
    shm::reclaim_stale_objects(); // a standalone process: nobody else sweeps
  r.rank = static_cast<std::uint32_t>(knobs.rank);
  r.nranks = static_cast<std::uint32_t>(knobs.nranks);
  log::set_rank(static_cast<int>(r.rank));
  std::vector<GlobalRank> members(r.nranks);
  for (std::uint32_t i = 0; i < r.nranks; ++i)
    members[i] = GlobalRank{i};
  r.peers.build(GlobalRank{r.rank}, r.nranks, members, false);
  shm::NodeOptions options{
      knobs.job, r.rank, r.nranks,          {effective_spin(knobs, r.nranks), knobs.yields, &r.served},
      members,   true,   knobs.cuda_library};
  HYGASPI_TRY(r.node.init(options, deadline));
  return am::open_inbox(passive_max);
}

// Each rank's outcome of a start step, made known to every rank: a step that failed on one rank
// fails on all, and none waits in a later collective for one that gave up.
gaspi_return_t agree(Runtime &r, gaspi_return_t mine) {
  int ok = mine == GASPI_SUCCESS ? 1 : 0, all = 0;
  {
    auto lock = r.mpi.lock();
    HYGASPI_TRY(HYGASPI_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r.mpi.comm())));
  }
  if (mine != GASPI_SUCCESS)
    return mine;
  if (all == 0) {
    log::error("another rank failed its start");
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

// MPI_Finalize before the front ends' term. MPI runs the delete callbacks of
// MPI_COMM_SELF's attributes at the start of MPI_Finalize, while every MPI call still works
// (MPI-3.1 §8.7.1); mpi::Env hangs this function there. Each front end still up runs its hook,
// which leaves the engine as its term would (the window free is collective: every rank is in
// MPI_Finalize too).
void at_mpi_finalize() {
  for (unsigned i = 0; i < kFrontEnds; ++i)
    if ((g_users & (1u << i)) != 0 && g_hooks[i].at_mpi_finalize != nullptr)
      g_hooks[i].at_mpi_finalize();
}

// Launched by mpirun, or inside an MPI program (spec §5.6): rank = MPI rank; node peers use shm,
// other nodes MPI. The node's first rank creates the node's job block.
gaspi_return_t start_mpi_job(Runtime &r, const Knobs &knobs, const Deadline &deadline, std::uint64_t passive_max) {
  HYGASPI_TRY(r.mpi.init(mpi::EnvOptions{knobs.node_size, knobs.shm, at_mpi_finalize}));
  r.rank = static_cast<std::uint32_t>(r.mpi.rank());
  r.nranks = static_cast<std::uint32_t>(r.mpi.size());
  log::set_rank(static_cast<int>(r.rank));
  std::vector<GlobalRank> members;
  for (int g : r.mpi.node_ranks) // ascending
    members.push_back(GlobalRank{static_cast<std::uint32_t>(g)});
  r.peers.build(GlobalRank{r.rank}, r.nranks, members, true);
  const auto node_size = static_cast<std::uint32_t>(members.size());
  const std::int64_t spin = effective_spin(knobs, static_cast<std::uint32_t>(std::max(1, r.mpi.host_ranks)));
  gaspi_return_t rc = GASPI_SUCCESS;
  if (r.mpi.local_rank == 0) {
    shm::reclaim_stale_objects(); // no launcher sweeps /dev/shm after a crashed MPI job
    rc = shm::Node::create_job_block(r.mpi.node_job, node_size, r.bootstrap_job);
  }
  HYGASPI_TRY(agree(r, rc)); // the job blocks exist
  shm::NodeOptions options{r.mpi.node_job,    static_cast<std::uint32_t>(r.mpi.local_rank),
                           node_size,         {spin, knobs.yields, &r.served},
                           members,           false,
                           knobs.cuda_library};
  rc = r.node.init(options, deadline);
  if (rc != GASPI_SUCCESS)
    r.node.abandon();        // node peers fail at once; others learn it from agree()
  HYGASPI_TRY(agree(r, rc)); // every rank has its node (Node::init removed the bootstrap names)
  r.bootstrap_job.reset();
  // Before MPI RMA and the progress thread, which a failed start would leave running.
  HYGASPI_TRY(agree(r, am::open_inbox(passive_max)));
  r.control.init(r.mpi, WaitPolicy{spin, knobs.yields, &r.served});
  // One node: everything goes through shm, and MPI is used for nothing after the bootstrap.
  if (r.peers.spans_nodes()) {
    HYGASPI_TRY(r.rma.init(r.mpi)); // from here on, waits drive progress() (bridge/progress.hpp)
    if (knobs.death_ring)
      r.control.ring().open(r.mpi); // collective; before the progress thread, which looks at it
    // On by default across nodes: osc/pt2pt (TCP) needs the target's CPU, and a rank that spins
    // on its own memory would otherwise never serve its peers (measured: a deadlock across hosts).
    if (knobs.progress_thread != 0) {
      if (r.mpi.progress_thread_allowed())
        start_progress_thread(std::chrono::microseconds(knobs.progress_nap_us));
      else if (knobs.progress_thread == 1)
        // Said at the level that is printed by default: the user asked for the thread by name.
        log::error("HYGASPI_PROGRESS_THREAD=1 is not honoured: the application started MPI without "
                   "MPI_THREAD_MULTIPLE, and the thread's MPI calls would run beside the application's");
    }
  }
  return GASPI_SUCCESS;
}

void teardown(Runtime &r) noexcept {
  g_stop_barrier = MPI_REQUEST_NULL; // completed, or of a session whose communicator goes below
  r.node.leaving();                  // node peers stop waiting for this rank's part in their collectives
  // A transfer with another node's device memory still in flight now (never waited for) is given
  // up: its owner may be in the collective end of MPI RMA below already, and serves no more.
  engine::stop_remote_device(true);
  engine::drop_queued_copies(); // none runs on into the next life cycle, nor into memory unmapped below
  am::close_inbox();
  if (r.mpi.active()) {
    stop_progress_thread();
    r.control.ring().close(); // every rank has reached its term: the ranks watching this one stop
    r.control.term();
    mpi::forget_departures(); // the next session's groups start afresh
    if (r.rma.active())
      r.rma.term(); // collective: waits for every rank's last front end
    r.mpi.term();
  }
  r.node.term();
  r.segments.clear(); // nothing of a segment survives the life cycle
  r.mpi_transport.reset();
  r.peers.clear();
  engine::stop_remote_device(false); // the next life cycle's transfers start afresh
  log::set_rank(-1);
}

} // namespace

gaspi_return_t engine_start(unsigned front, const Knobs &knobs, const Deadline &deadline, std::uint64_t passive_max) {
  Runtime &r = rt();
  if (g_users != 0) {
    g_users |= front;
    return GASPI_SUCCESS;
  }
  r.knobs = knobs;
  r.deaths_acknowledged.store(0);
  r.node_deaths_told.store(0);
  r.segments.bind(r.node, r.rma);
  r.mpi_transport.bind(r.rma, r.control, mpi_progress(), mpi_health());
  const gaspi_return_t rc = mpi::wanted(knobs) ? start_mpi_job(r, knobs, deadline, passive_max)
                                               : start_node_job(r, knobs, deadline, passive_max);
  if (rc == GASPI_SUCCESS) {
    // Opens the pidfds of the node peers now, while they surely live (shm/liveness.hpp).
    r.node.refresh_liveness();
    g_users = front;
    // After the start, so that it runs before the handler MPI's start registered (mpi_env.cpp).
    std::call_once(g_exit_handler_registered, [] { on_exit(at_process_exit, nullptr); });
  }
  return rc;
}

gaspi_return_t engine_abandon(unsigned front, gaspi_return_t rc) {
  Runtime &r = rt();
  g_users &= ~front;
  if (g_users != 0)
    return rc;
  am::close_inbox();
  r.node.abandon();
  r.control.ring().close();
  r.mpi.term();
  log::set_rank(-1);
  return rc;
}

void engine_stop(unsigned front) noexcept {
  Runtime &r = rt();
  if ((g_users & front) == 0)
    return;
  g_users &= ~front;
  if (g_users == 0)
    teardown(r);
}

void engine_leave_at_exit(unsigned front, int code, bool asked) noexcept {
  Runtime &r = rt();
  if ((g_users & front) == 0)
    return;
  r.node.note_job_end(code, asked);
  if (r.mpi.active()) {
    if (deaths() > 0) {
      // MPI_Finalize would wait forever for the dead rank's part of the windows' collective end
      // (docs/mpi-failures.md): the process ends without it, as after an exit without term.
      log::error("a rank of the job is dead: this rank exits without MPI_Finalize");
      r.mpi.leave_at_exit();
    } else {
      r.mpi.finalize_at_process_exit(); // also where the client started MPI: it cannot finalize it now
    }
  }
  g_users = 0;
  stop_progress_thread();
  r.control.ring().close(); // the job ends in order: the ranks watching this one stop
  r.node.leave_at_exit(true);
}

gaspi_return_t engine_broadcast(std::vector<char> &bytes) {
  Runtime &r = rt();
  if (!r.mpi.active())
    return GASPI_SUCCESS;
  auto lock = r.mpi.lock();
  std::uint64_t size = bytes.size();
  HYGASPI_TRY(HYGASPI_MPI(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, r.mpi.comm())));
  if (size > static_cast<std::uint64_t>(INT_MAX)) {
    log::error("a broadcast of %llu bytes exceeds what one MPI message carries", static_cast<unsigned long long>(size));
    return GASPI_ERROR;
  }
  bytes.resize(size);
  return HYGASPI_MPI(MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, r.mpi.comm()));
}

gaspi_return_t engine_min(std::uint64_t &value) {
  Runtime &r = rt();
  if (!r.mpi.active())
    return GASPI_SUCCESS;
  auto lock = r.mpi.lock();
  return HYGASPI_MPI(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MIN, r.mpi.comm()));
}

bool engine_all_arrive(std::chrono::milliseconds within) noexcept {
  Runtime &r = rt();
  if (!r.mpi.active())
    return false;
  MPI_Request request = MPI_REQUEST_NULL;
  {
    auto lock = r.mpi.lock();
    if (HYGASPI_MPI(MPI_Ibarrier(r.mpi.collective_comm(), &request)) != GASPI_SUCCESS)
      return false;
  }
  bool failed = false;
  auto arrived = [&] { return r.mpi.test(request, failed); };
  // A request still open at the deadline stays with MPI: the caller then ends the job.
  return wait_until(arrived, Deadline(static_cast<std::uint64_t>(within.count())), r.node.wait_policy(), NoProgress{},
                    Nap{}, kAlwaysHealthy) == GASPI_SUCCESS &&
         !failed;
}

void engine_leaving(unsigned front) noexcept {
  if ((g_users & ~front) == 0)
    rt().node.leaving();
}

gaspi_return_t engine_ready_to_stop(unsigned front, const Deadline &deadline) {
  Runtime &r = rt();
  if (g_users != front || !r.rma.active())
    return GASPI_SUCCESS;
  if (g_stop_barrier == MPI_REQUEST_NULL) {
    auto lock = r.mpi.lock();
    HYGASPI_TRY(HYGASPI_MPI(MPI_Ibarrier(r.mpi.collective_comm(), &g_stop_barrier)));
  }
  bool failed = false;
  auto arrived = [&] { return r.mpi.test(g_stop_barrier, failed); };
  std::uint32_t dead = 0;
  auto healthy = [&] {
    for (dead = 0; dead < r.nranks; ++dead)
      if (!r.alive(GlobalRank{dead}))
        return false;
    return true;
  };
  const gaspi_return_t rc = wait_until(arrived, deadline, r.node.wait_policy(), progress(), Nap{}, healthy);
  if (rc == GASPI_ERROR && !failed)
    log::error("rank %u is dead: the collective end of MPI's one-sided windows cannot complete, and this rank "
               "leaves them as they are (exit without MPI_Finalize)",
               dead);
  return failed ? GASPI_ERROR : rc;
}

void engine_abort(int code) noexcept {
  Runtime &r = rt();
  if (r.mpi.active())
    (void)HYGASPI_MPI(MPI_Abort(r.mpi.comm(), code)); // returns only if the abort itself failed (logged)
}

void engine_on_mpi_finalize(unsigned front, void (*hook)()) noexcept {
  g_hooks[index_of(front)].at_mpi_finalize = hook;
}

void engine_on_exit(unsigned front, void (*hook)(int status)) noexcept { g_hooks[index_of(front)].at_exit = hook; }

} // namespace hygaspi
