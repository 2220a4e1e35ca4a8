// Process management (spec §5), connection utilities (§5.4) and the state vector (§5.5).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>

#include <utility>

#include "bridge/engine.hpp"
#include "bridge/engine_groups.hpp"
#include "bridge/failures.hpp"
#include "bridge/lifecycle.hpp"
#include "core/statistics.hpp"
#include "gaspi/checks.hpp"
#include "gaspi/fast_path.hpp"
#include "gaspi/group_ops.hpp"
#include "gaspi/state.hpp"

using namespace hygaspi;

namespace hygaspi::gaspi {
// One namespace-scope instance: state() inlines to its address, with no static-guard check on the
// data path (callgrind showed ~25 instructions per call for the function-local static). It is
// never destroyed.
NoDestroy<State> g_state;
} // namespace hygaspi::gaspi

namespace {

// gaspi_proc_term's work: caller holds the lifecycle lock and has checked that GASPI is
// initialised.
void teardown() {
  gaspi::State &gs = gaspi::state();
  gs.initialized.store(false, std::memory_order_seq_cst);
  fast::publish_atomic_life(); // every atomic to the library, which now says GASPI_ERR_NOINIT
  // Other threads may be inside calls (gaspi/calls.hpp), some blocked in this rank's waits: wake
  // them (each returns GASPI_ERROR at its next look; a waiter re-looks at least every 10 ms), and
  // wait until every call has left before anything is torn down. The doorbell rings again before
  // each nap: a waiter may have gone to sleep after the first ring.
  engine::set_stopping(true);
  calls::wait_for_other_threads([]() noexcept { engine::set_stopping(true); });
  for (gaspi::Group &g : gs.groups.groups)
    if (g.state == gaspi::GroupState::committed)
      engine::drop_group(std::exchange(g.engine, nullptr));
  gs.leaving = false;
  engine_stop(kFrontGaspi);    // the last front end tears the engine down
  engine::set_stopping(false); // for the next life
}

// MPI_Finalize before gaspi_proc_term (bridge/lifecycle.hpp): GASPI is torn down
// as gaspi_proc_term would, and the program's later gaspi_proc_term then succeeds.
void teardown_at_mpi_finalize() {
  if (!gaspi::state().initialized.load(std::memory_order_acquire))
    return;
  teardown();
  gaspi::state().finalized_by_mpi = true;
}

} // namespace

extern "C" {

gaspi_return_t pgaspi_config_get(gaspi_config_t *const config) {
  return guarded("gaspi_config_get", [&] {
    HYGASPI_TRY(check::not_null(config, "config"));
    *config = gaspi::state().config;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_config_set(const gaspi_config_t new_config) {
  return guarded("gaspi_config_set", [&] {
    std::lock_guard lock(engine::lifecycle());
    HYGASPI_CHECK(!gaspi::state().initialized.load(), GASPI_ERR_INITED,
                  "the configuration is fixed once gaspi_proc_init has run");
    // spec §5.2.1: a proposal. Only an impossible value fails here; what the machine cannot give
    // is overruled by gaspi_proc_init, which says so, so the proposal is kept as it is.
    gaspi_config_t probe = new_config;
    std::string error;
    HYGASPI_CHECK(sanitize_config(probe, error), GASPI_ERR_CONFIG, "%s", error.c_str());
    gaspi::state().config = new_config;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_init(const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_init", [&] {
    gaspi::State &gs = gaspi::state();
    std::lock_guard lock(engine::lifecycle());
    HYGASPI_CHECK(!gs.initialized.load(), GASPI_ERR_INITED, "already initialised");
    Knobs knobs;
    std::string error;
    HYGASPI_CHECK(read_knobs(knobs, error), GASPI_ERR_ENV, "%s", error.c_str());
    log::set_level(static_cast<log::Level>(knobs.log_level));
    std::string overruled;
    HYGASPI_CHECK(sanitize_config(gs.config, error, &overruled), GASPI_ERR_CONFIG, "%s", error.c_str());
    // GASPI_BLOCK would wait forever for a peer that never starts; cap it (HYGASPI_INIT_TIMEOUT_MS).
    const gaspi_timeout_t wait_ms =
        timeout == GASPI_BLOCK ? static_cast<gaspi_timeout_t>(knobs.init_timeout_ms) : timeout;
    gs.finalized_by_mpi = false;
    engine_on_mpi_finalize(kFrontGaspi, teardown_at_mpi_finalize);
    gaspi_return_t rc = engine_start(kFrontGaspi, knobs, Deadline(wait_ms), gs.config.passive_transfer_size_max);
    if (rc == GASPI_TIMEOUT && engine::start_resumable())
      return rc; // spec §5.3.1: not initialised yet; the next gaspi_proc_init continues
    if (rc != GASPI_SUCCESS)
      return engine_abandon(kFrontGaspi, rc);
    if (!overruled.empty()) // one line, after set_rank so that it names the rank
      log::notice("configuration overruled (proposed -> granted): %s", overruled.c_str());
    gs.queues.reset(gs.config.queue_num, gs.config.queue_size_max);
    gs.groups.clear();
    gaspi::Group &all = gs.groups.groups[GASPI_GROUP_ALL];
    all.members.resize(engine::size());
    std::iota(all.members.begin(), all.members.end(), gaspi_rank_t{0});
    all.tag = gs.groups.next_tag(all.members);
    all.state = gaspi::GroupState::committed;
    if (gaspi_return_t area = publish_commit(GASPI_GROUP_ALL); area != GASPI_SUCCESS)
      return engine_abandon(kFrontGaspi, area);
    stats::start(engine::size()); // per-rank counter arrays, all counters zero
    gs.life.fetch_add(1, std::memory_order_relaxed);
    gs.initialized.store(true, std::memory_order_release);
    fast::publish_atomic_life();
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_term(const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_term", [&] {
    std::lock_guard lock(engine::lifecycle());
    if (gaspi::state().finalized_by_mpi) {
      // MPI_Finalize came first and ran the teardown (teardown_at_mpi_finalize): this call asks
      // for what is done already, so it succeeds, once; a further one is GASPI_ERR_NOINIT as
      // after any gaspi_proc_term.
      gaspi::state().finalized_by_mpi = false;
      return GASPI_SUCCESS;
    }
    HYGASPI_TRY(check::init());
    // First the others learn that this rank leaves, so that none of their collectives waits for
    // it (as it waits for them below); once per session, a later call after GASPI_TIMEOUT goes on.
    gaspi::State &gs = gaspi::state();
    if (!std::exchange(gs.leaving, true)) {
      for (gaspi::Group &g : gs.groups.groups)
        if (g.state == gaspi::GroupState::committed && g.engine != nullptr)
          engine::depart_group(*g.engine);
      engine_leaving(kFrontGaspi);
    }
    // Across nodes the teardown ends MPI's one-sided windows collectively: first every rank gets
    // here, within the timeout. GASPI_TIMEOUT leaves everything up, and a later call goes on.
    HYGASPI_TRY(engine_ready_to_stop(kFrontGaspi, Deadline(timeout)));
    teardown();
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_num(gaspi_rank_t *const proc_num) {
  return guarded("gaspi_proc_num", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(proc_num, "proc_num"));
    *proc_num = static_cast<gaspi_rank_t>(engine::size());
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_rank(gaspi_rank_t *const rank) {
  return guarded("gaspi_proc_rank", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::not_null(rank, "rank"));
    *rank = static_cast<gaspi_rank_t>(engine::rank());
    return GASPI_SUCCESS;
  });
}

// spec §5.3.5: GASPI_SUCCESS means "the remote GASPI process has been terminated" (engine::kill).
gaspi_return_t pgaspi_proc_kill(const gaspi_rank_t rank, const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_kill", [&] {
    HYGASPI_TRY(check::init());
    HYGASPI_TRY(check::rank(rank));
    HYGASPI_CHECK(rank != engine::rank(), GASPI_ERR_INV_RANK, "a rank cannot kill itself");
    return engine::kill(GlobalRank{rank}, timeout);
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
    engine::refresh_liveness(); // under mpirun nobody else marks a dead node peer
    // Acknowledged before the vector is read, so every death acknowledged is also reported (one
    // that comes in between is reported but stays unacknowledged: bridge/failures.hpp).
    acknowledge_deaths();
    // What this rank knows (engine::alive): node peers from the job block, other nodes' ranks
    // from this rank's own gaspi_proc_kill.
    for (std::uint32_t i = 0; i < engine::size(); ++i)
      state_vector[i] = engine::alive(GlobalRank{i}) ? GASPI_STATE_HEALTHY : GASPI_STATE_CORRUPT;
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
