// Process management (spec §5), connection utilities (§5.4) and the state vector (§5.5).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <unistd.h>
#include <numeric>
#include <string>
#include <thread>

#include "bridge/failures.hpp"
#include "bridge/progress.hpp"
#include "gaspi/checks.hpp"
#include "bridge/collectives/collectives.hpp"
#include "bridge/group_ops.hpp"
#include "core/statistics.hpp"
#include "shm/reclaim.hpp"

using namespace hygaspi;

namespace hygaspi {
// One namespace-scope instance: rt() inlines to its address, with no static-guard check on the
// data path (callgrind showed ~25 instructions per call for the function-local static).
Runtime g_runtime;
} // namespace hygaspi

namespace {
// Spinning only pays when every rank has a core. Oversubscribed, a spinning waiter steals the CPU
// from the rank it waits for (measured: 4 ranks on 2 cores, barrier 225 us with a 2000-poll spin,
// 8.9 us without), so unless HYGASPI_SPIN is set we go straight to yielding.
//
// The node's ranks are compared with the CPUs of the host, not with this process's affinity mask:
// a rank pinned to one core (hygaspi-run --bind core, mpirun's default) has a mask of one CPU
// although every rank has a core of its own (measured: treating that as oversubscribed turned a
// 323 ns write_notify into 1167 ns).
std::int64_t effective_spin(const Knobs &knobs, std::uint32_t node_ranks) {
  if (knobs.given(&Knobs::spin))
    return knobs.spin;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return static_cast<long>(node_ranks) > cpus ? 0 : knobs.spin;
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

// Issue 9, item 5: HYGASPI_JOB/RANK/NRANKS are inherited by every process a rank starts
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
gaspi_return_t start_node_job(Runtime &r, Knobs knobs, const Deadline &deadline) {
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
  r.known_dead = std::vector<std::atomic<bool>>(r.nranks);
  shm::NodeOptions options{knobs.job,
                           r.rank,
                           r.nranks,
                           {effective_spin(knobs, r.nranks), knobs.yields},
                           r.config.passive_queue_size_max,
                           r.config.passive_transfer_size_max,
                           members,
                           true};
  return r.node.init(options, deadline);
}

// gaspi_proc_term's work: caller holds r.lifecycle and has checked that GASPI is initialised.
void teardown(Runtime &r) {
  r.initialized.store(false, std::memory_order_seq_cst);
  // Other threads may be blocked in this rank's waits (issue 9 item 2): wake them, each returns
  // GASPI_ERROR at its next look (a waiter re-looks at least every 10 ms), and wait until every
  // counted call (InFlight) has left before anything is torn down.
  r.node.set_stopping(true);
  while (r.in_flight.load(std::memory_order_seq_cst) != 0) {
    r.node.set_stopping(true); // rings again: a waiter may have gone to sleep after the first ring
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (GroupRecord &g : r.groups.groups)
    if (g.state == GroupState::committed)
      collectives::drop(g);
  if (r.mpi.active()) {
    stop_progress_thread();
    r.control.term();
    if (r.rma.active())
      r.rma.term(); // collective: waits for every rank's gaspi_proc_term
    r.mpi.term();
  }
  r.node.term();
  r.segments.clear(); // nothing of a segment survives the life cycle
  r.mpi_transport.reset();
  r.peers.clear();
  r.node.set_stopping(false); // for the next life
  log::set_rank(-1);
}

// Issue 9, item 3: MPI_Finalize before gaspi_proc_term. MPI runs the delete callbacks of
// MPI_COMM_SELF's attributes at the start of MPI_Finalize, while every MPI call still works
// (MPI-3.1 §8.7.1); mpi::Env hangs this function there. It tears GASPI down as gaspi_proc_term
// would (the window free is collective: every rank is in MPI_Finalize too), and the program's
// later gaspi_proc_term then succeeds.
void teardown_at_mpi_finalize() {
  Runtime &r = rt();
  std::lock_guard lock(r.lifecycle);
  if (!r.initialized.load(std::memory_order_acquire))
    return;
  teardown(r);
  r.finalized_by_mpi = true;
}

// Each rank's outcome of an init step, made known to every rank: a step that failed on one rank
// fails on all, and none waits in a later collective for one that gave up (issue 9, item 4).
gaspi_return_t agree(Runtime &r, gaspi_return_t mine) {
  int ok = mine == GASPI_SUCCESS ? 1 : 0, all = 0;
  {
    auto lock = r.mpi.lock();
    HYGASPI_TRY(HYGASPI_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r.mpi.comm())));
  }
  if (mine != GASPI_SUCCESS)
    return mine;
  if (all == 0) {
    log::error("another rank failed its gaspi_proc_init");
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

// Launched by mpirun, or inside an MPI program (spec §5.6): GASPI rank = MPI rank; node peers use
// shm, other nodes MPI. The node's first rank creates the node's job block.
gaspi_return_t start_mpi_job(Runtime &r, const Knobs &knobs, const Deadline &deadline) {
  HYGASPI_TRY(r.mpi.init(mpi::EnvOptions{knobs.node_size, knobs.shm, teardown_at_mpi_finalize}));
  r.rank = static_cast<std::uint32_t>(r.mpi.rank());
  r.nranks = static_cast<std::uint32_t>(r.mpi.size());
  log::set_rank(static_cast<int>(r.rank));
  std::vector<GlobalRank> members;
  for (int g : r.mpi.node_ranks) // ascending
    members.push_back(GlobalRank{static_cast<std::uint32_t>(g)});
  r.peers.build(GlobalRank{r.rank}, r.nranks, members, true);
  const auto node_size = static_cast<std::uint32_t>(members.size());
  r.known_dead = std::vector<std::atomic<bool>>(r.nranks);
  gaspi_return_t rc = GASPI_SUCCESS;
  if (r.mpi.local_rank == 0) {
    shm::reclaim_stale_objects(); // no launcher sweeps /dev/shm after a crashed MPI job
    rc = shm::Node::create_job_block(r.mpi.node_job, node_size, r.bootstrap_job);
  }
  HYGASPI_TRY(agree(r, rc)); // the job blocks exist
  shm::NodeOptions options{r.mpi.node_job,
                           static_cast<std::uint32_t>(r.mpi.local_rank),
                           node_size,
                           {effective_spin(knobs, node_size), knobs.yields},
                           r.config.passive_queue_size_max,
                           r.config.passive_transfer_size_max,
                           members};
  rc = r.node.init(options, deadline);
  if (rc != GASPI_SUCCESS)
    r.node.abandon();        // node peers fail at once; others learn it from agree()
  HYGASPI_TRY(agree(r, rc)); // every rank has its node (Node::init removed the bootstrap names)
  r.bootstrap_job.reset();
  r.control.init(r.mpi, WaitPolicy{effective_spin(knobs, node_size), knobs.yields});
  // One node: everything goes through shm, and MPI is used for nothing after the bootstrap.
  if (r.peers.spans_nodes()) {
    HYGASPI_TRY(r.rma.init(r.mpi)); // from here on, waits drive progress() (bridge/progress.hpp)
    // On by default across nodes: osc/pt2pt (TCP) needs the target's CPU, and a rank that spins
    // on its own memory would otherwise never serve its peers (measured: a deadlock across hosts).
    if (knobs.progress_thread != 0) {
      if (r.mpi.progress_thread_allowed())
        start_progress_thread();
      else if (knobs.progress_thread == 1)
        log::warn("HYGASPI_PROGRESS_THREAD=1 ignored: the application started MPI without MPI_THREAD_MULTIPLE");
    }
  }
  return GASPI_SUCCESS;
}

// A gaspi_proc_init that fails part-way: node peers fail at once, and the launcher reports the
// failure (issue 9, item 4).
gaspi_return_t abandon_init(Runtime &r, gaspi_return_t rc) {
  r.node.abandon();
  r.mpi.term();
  log::set_rank(-1);
  return rc;
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_config_get(gaspi_config_t *const config) {
  return guarded("gaspi_config_get", [&] {
    HYGASPI_TRY(check::not_null(config, "config"));
    *config = rt().config;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_config_set(const gaspi_config_t new_config) {
  return guarded("gaspi_config_set", [&] {
    std::lock_guard lock(rt().lifecycle);
    HYGASPI_CHECK(!rt().initialized.load(), GASPI_ERR_INITED,
                  "the configuration is fixed once gaspi_proc_init has run");
    // spec §5.2.1: a proposal. Only an impossible value fails here; what the machine cannot give
    // is overruled by gaspi_proc_init, which says so, so the proposal is kept as it is.
    gaspi_config_t probe = new_config;
    std::string error;
    HYGASPI_CHECK(sanitize_config(probe, error), GASPI_ERR_CONFIG, "%s", error.c_str());
    rt().config = new_config;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_init(const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_init", [&] {
    Runtime &r = rt();
    std::lock_guard lock(r.lifecycle);
    HYGASPI_CHECK(!r.initialized.load(), GASPI_ERR_INITED, "already initialised");
    Knobs knobs;
    std::string error;
    HYGASPI_CHECK(read_knobs(knobs, error), GASPI_ERR_ENV, "%s", error.c_str());
    log::set_level(static_cast<log::Level>(knobs.log_level));
    std::string overruled;
    HYGASPI_CHECK(sanitize_config(r.config, error, &overruled), GASPI_ERR_CONFIG, "%s", error.c_str());
    r.knobs = knobs;
    // GASPI_BLOCK would wait forever for a peer that never starts; cap it (HYGASPI_INIT_TIMEOUT_MS).
    const gaspi_timeout_t wait_ms =
        timeout == GASPI_BLOCK ? static_cast<gaspi_timeout_t>(knobs.init_timeout_ms) : timeout;
    r.finalized_by_mpi = false;
    r.segments.bind(r.node, r.rma);
    r.mpi_transport.bind(r.rma, r.control, mpi_progress());
    gaspi_return_t rc =
        mpi::wanted(knobs) ? start_mpi_job(r, knobs, Deadline(wait_ms)) : start_node_job(r, knobs, Deadline(wait_ms));
    if (rc == GASPI_TIMEOUT && r.node.resumable())
      return rc; // spec §5.3.1: not initialised yet; the next gaspi_proc_init continues
    if (rc != GASPI_SUCCESS)
      return abandon_init(r, rc);
    if (!overruled.empty()) // one line, after set_rank so that it names the rank
      log::notice("configuration overruled (proposed -> granted): %s", overruled.c_str());
    r.queues.reset(r.config.queue_num, r.config.queue_size_max);
    r.groups.clear();
    GroupRecord &all = r.groups.groups[GASPI_GROUP_ALL];
    all.members.resize(r.nranks);
    std::iota(all.members.begin(), all.members.end(), gaspi_rank_t{0});
    all.my_index = r.rank;
    all.tag = r.groups.next_tag(all.members);
    all.state = GroupState::committed;
    if (gaspi_return_t area = publish_commit(GASPI_GROUP_ALL); area != GASPI_SUCCESS)
      return abandon_init(r, area);
    // Opens the pidfds of the node peers now, while they surely live (shm/liveness.hpp).
    r.node.refresh_liveness();
    stats::start(r.nranks); // per-rank counter arrays, all counters zero
    r.start = std::chrono::steady_clock::now();
    r.initialized.store(true, std::memory_order_release);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_term(const gaspi_timeout_t) {
  return guarded("gaspi_proc_term", [&] {
    Runtime &r = rt();
    std::lock_guard lock(r.lifecycle);
    if (r.finalized_by_mpi) {
      // MPI_Finalize came first and ran the teardown (teardown_at_mpi_finalize): this call asks
      // for what is done already, so it succeeds, once; a further one is GASPI_ERR_NOINIT as
      // after any gaspi_proc_term.
      r.finalized_by_mpi = false;
      return GASPI_SUCCESS;
    }
    HYGASPI_TRY(check::init());
    teardown(r);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_num(gaspi_rank_t *const proc_num) {
  return guarded("gaspi_proc_num", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(proc_num, "proc_num"));
    *proc_num = static_cast<gaspi_rank_t>(rt().nranks);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_rank(gaspi_rank_t *const rank) {
  return guarded("gaspi_proc_rank", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(rank, "rank"));
    *rank = static_cast<gaspi_rank_t>(rt().rank);
    return GASPI_SUCCESS;
  });
}

// spec §5.3.5: GASPI_SUCCESS means "the remote GASPI process has been terminated". A node peer
// gets SIGKILL from us; a rank of another node (whose pid means nothing here) is asked over MPI to
// SIGKILL itself (mpi_rma/control.hpp), which it does when it next makes progress.
gaspi_return_t pgaspi_proc_kill(const gaspi_rank_t rank, const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_kill", [&] {
    HYGASPI_TRY(check::init());
    const Peer *peer = nullptr;
    HYGASPI_TRY(check::peer(rank, peer));
    HYGASPI_CHECK(peer->kind != PeerKind::self, GASPI_ERR_INV_RANK, "a rank cannot kill itself");
    if (!peer->on_node()) {
      const gaspi_return_t rc = rt().control.kill(peer->mpi.value(), Deadline(timeout), progress());
      if (rc == GASPI_SUCCESS)
        rt().known_dead[peer->global.value()].store(true, std::memory_order_release);
      return rc;
    }
    // An intended death (issue 9, item 22): Node::kill marks it so, and the launcher lets the job
    // go on, as GPI-2 does; the survivors see the rank GASPI_STATE_CORRUPT.
    HYGASPI_CHECK(rt().node.kill(peer->node), GASPI_ERROR, "cannot kill rank %u (pid %d): %s", rank,
                  rt().node.pid_of(peer->node), std::strerror(errno));
    return GASPI_SUCCESS;
  });
}

// Node peers are connected from gaspi_proc_init on; connect and disconnect only validate.
gaspi_return_t pgaspi_connect(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_connect", [&] {
    HYGASPI_TRY(check::init());
    return check::rank(rank);
  });
}

gaspi_return_t pgaspi_disconnect(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_disconnect", [&] {
    HYGASPI_TRY(check::init());
    return check::rank(rank);
  });
}

gaspi_return_t pgaspi_state_vec_get(gaspi_state_vector_t state_vector) {
  return guarded("gaspi_state_vec_get", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(state_vector, "state_vector"));
    rt().node.refresh_liveness(); // under mpirun nobody else marks a dead node peer
    // Acknowledged before the vector is read, so every death acknowledged is also reported (one
    // that comes in between is reported but stays unacknowledged: bridge/failures.hpp).
    acknowledge_deaths();
    // What this rank knows (Runtime::alive): node peers from the job block, other nodes' ranks
    // from this rank's own gaspi_proc_kill.
    for (std::uint32_t i = 0; i < rt().nranks; ++i)
      state_vector[i] = rt().alive(GlobalRank{i}) ? GASPI_STATE_HEALTHY : GASPI_STATE_CORRUPT;
    return GASPI_SUCCESS;
  });
}

} // extern "C"

HYGASPI_ALIAS(gaspi_config_get)
HYGASPI_ALIAS(gaspi_config_set)
HYGASPI_ALIAS(gaspi_proc_init)
HYGASPI_ALIAS(gaspi_proc_term)
HYGASPI_ALIAS(gaspi_proc_num)
HYGASPI_ALIAS(gaspi_proc_rank)
HYGASPI_ALIAS(gaspi_proc_kill)
HYGASPI_ALIAS(gaspi_connect)
HYGASPI_ALIAS(gaspi_disconnect)
HYGASPI_ALIAS(gaspi_state_vec_get)
