// Process management (spec §5), connection utilities (§5.4) and the state vector (§5.5).
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <sched.h>
#include <numeric>

#include "bridge/runtime.hpp"
#include "bridge/group_ops.hpp"

using namespace hygaspi;

namespace hygaspi {
// One namespace-scope instance: rt() inlines to its address, with no static-guard check on the
// data path (callgrind showed ~25 instructions per call for the function-local static).
Runtime g_runtime;
}  // namespace hygaspi

namespace {
// Spinning only pays when every rank has a core. Oversubscribed, a spinning waiter steals the CPU
// from the rank it waits for (measured: 4 ranks on 2 cores, barrier 225 us with a 2000-poll spin,
// 8.9 us without), so unless HYGASPI_SPIN is set we go straight to yielding.
std::int64_t effective_spin(const Knobs& knobs) {
  if (std::getenv("HYGASPI_SPIN") != nullptr)
    return knobs.spin;
  cpu_set_t set;
  const long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  return knobs.nranks > cpus ? 0 : knobs.spin;
}
}  // namespace

extern "C" {

gaspi_return_t pgaspi_config_get(gaspi_config_t* const config) {
  return guarded("gaspi_config_get", [&] {
    HYGASPI_TRY(check::not_null("gaspi_config_get", config, "config"));
    *config = rt().config;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_config_set(const gaspi_config_t new_config) {
  return guarded("gaspi_config_set", [&] {
    std::lock_guard lock(rt().lifecycle);
    HYGASPI_CHECK(!rt().initialized.load(), GASPI_ERR_INITED, "gaspi_config_set",
                  "the configuration is fixed once gaspi_proc_init has run");
    gaspi_config_t c = new_config;
    std::string error;
    HYGASPI_CHECK(sanitize_config(c, error), GASPI_ERR_CONFIG, "gaspi_config_set", "%s", error.c_str());
    rt().config = c;
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_init(const gaspi_timeout_t timeout) {
  return guarded("gaspi_proc_init", [&] {
    Runtime& r = rt();
    std::lock_guard lock(r.lifecycle);
    HYGASPI_CHECK(!r.initialized.load(), GASPI_ERR_INITED, "gaspi_proc_init", "already initialised");
    Knobs knobs;
    std::string error;
    HYGASPI_CHECK(read_knobs(knobs, error), GASPI_ERR_ENV, "gaspi_proc_init", "%s", error.c_str());
    log::set_level(static_cast<log::Level>(knobs.log_level));
    HYGASPI_CHECK(sanitize_config(r.config, error), GASPI_ERR_CONFIG, "gaspi_proc_init", "%s", error.c_str());
    r.knobs = knobs;
    r.rank = static_cast<std::uint32_t>(knobs.rank);
    r.nranks = static_cast<std::uint32_t>(knobs.nranks);
    log::set_rank(static_cast<int>(r.rank));

    // GASPI_BLOCK would wait forever for a peer that never starts; cap it (HYGASPI_INIT_TIMEOUT_MS).
    const gaspi_timeout_t wait_ms =
        timeout == GASPI_BLOCK ? static_cast<gaspi_timeout_t>(knobs.init_timeout_ms) : timeout;
    shm::NodeOptions options{knobs.job,
                             r.rank,
                             r.nranks,
                             {effective_spin(knobs), knobs.yields},
                             r.config.passive_queue_size_max,
                             r.config.passive_transfer_size_max};
    gaspi_return_t rc = r.node.init(options, Deadline(wait_ms));
    if (rc != GASPI_SUCCESS) {
      r.node.term();
      log::set_rank(-1);
      return rc;
    }
    r.queues.reset(r.config.queue_num, r.config.queue_size_max);
    r.groups.clear();
    Group& all = r.groups.groups[GASPI_GROUP_ALL];
    all.members.resize(r.nranks);
    std::iota(all.members.begin(), all.members.end(), gaspi_rank_t{0});
    all.my_index = r.rank;
    all.tag = r.groups.next_tag(all.members);
    all.state = GroupState::committed;
    r.reduce.clear();
    if (gaspi_return_t area = publish_reduce_area(GASPI_GROUP_ALL); area != GASPI_SUCCESS) {
      r.node.term();
      return area;
    }
    r.start = std::chrono::steady_clock::now();
    r.initialized.store(true, std::memory_order_release);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_term(const gaspi_timeout_t) {
  return guarded("gaspi_proc_term", [&] {
    Runtime& r = rt();
    std::lock_guard lock(r.lifecycle);
    HYGASPI_TRY(check::init("gaspi_proc_term"));
    r.initialized.store(false, std::memory_order_release);
    for (std::uint32_t g = 0; g < limits::kMaxGroups; ++g)
      if (r.groups.groups[g].state == GroupState::committed)
        r.reduce.drop(r.node, g, r.groups.groups[g].my_index == 0);
    r.node.term();
    log::set_rank(-1);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_num(gaspi_rank_t* const proc_num) {
  return guarded("gaspi_proc_num", [&] {
    HYGASPI_TRY(check::init("gaspi_proc_num"));
    HYGASPI_TRY(check::not_null("gaspi_proc_num", proc_num, "proc_num"));
    *proc_num = static_cast<gaspi_rank_t>(rt().nranks);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_rank(gaspi_rank_t* const rank) {
  return guarded("gaspi_proc_rank", [&] {
    HYGASPI_TRY(check::init("gaspi_proc_rank"));
    HYGASPI_TRY(check::not_null("gaspi_proc_rank", rank, "rank"));
    *rank = static_cast<gaspi_rank_t>(rt().rank);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t pgaspi_proc_kill(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_proc_kill", [&] {
    HYGASPI_TRY(check::init("gaspi_proc_kill"));
    HYGASPI_TRY(check::rank("gaspi_proc_kill", rank));
    HYGASPI_CHECK(rank != rt().rank, GASPI_ERR_INV_RANK, "gaspi_proc_kill", "a rank cannot kill itself");
    const std::int32_t pid = rt().node.pid_of(rank);
    HYGASPI_CHECK(pid > 0 && ::kill(pid, SIGKILL) == 0, GASPI_ERROR, "gaspi_proc_kill", "cannot kill rank %u (pid %d)",
                  rank, pid);
    return GASPI_SUCCESS;
  });
}

// Node peers are connected from gaspi_proc_init on; connect and disconnect only validate.
gaspi_return_t pgaspi_connect(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_connect", [&] {
    HYGASPI_TRY(check::init("gaspi_connect"));
    return check::rank("gaspi_connect", rank);
  });
}

gaspi_return_t pgaspi_disconnect(const gaspi_rank_t rank, const gaspi_timeout_t) {
  return guarded("gaspi_disconnect", [&] {
    HYGASPI_TRY(check::init("gaspi_disconnect"));
    return check::rank("gaspi_disconnect", rank);
  });
}

gaspi_return_t pgaspi_state_vec_get(gaspi_state_vector_t state_vector) {
  return guarded("gaspi_state_vec_get", [&] {
    HYGASPI_TRY(check::init("gaspi_state_vec_get"));
    HYGASPI_TRY(check::not_null("gaspi_state_vec_get", state_vector, "state_vector"));
    for (std::uint32_t i = 0; i < rt().nranks; ++i)
      state_vector[i] = rt().node.alive(i) ? GASPI_STATE_HEALTHY : GASPI_STATE_CORRUPT;
    return GASPI_SUCCESS;
  });
}

}  // extern "C"

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
