// GPI-2's thread helpers (GASPI_Threads.h): a process-local team of n threads with dense ids,
// a reusable barrier among them, and a barrier that also runs gaspi_barrier among the ranks.
// Usable before gaspi_proc_init (only gaspi_threads_sync_all needs GASPI). Not part of the spec,
// so no pgaspi_* names: GPI-2 has none for them either.
#include <GASPI_Threads.h>

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "gaspi/checks.hpp"

using namespace hygaspi;

// GPI-2 marks most of these deprecated; their definitions call each other.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

// A sense-reversing barrier for a fixed number of threads that is reused round after round.
// The last arriver of a round runs the round's completion step (gaspi_barrier for sync_all),
// publishes its result and opens the next generation; the others wait for the generation to
// change: spin, then yield, then sleep on the futex behind std::atomic::wait.
class TeamBarrier {
public:
  void reset(std::uint32_t parties) noexcept {
    parties_ = parties;
    arrived_.store(0, std::memory_order_relaxed);
    global_arrivals_.store(0, std::memory_order_relaxed);
  }

  // global: the caller is in gaspi_threads_sync_all(group, timeout).
  gaspi_return_t arrive(bool global, gaspi_group_t group, gaspi_timeout_t timeout) noexcept {
    // The generation cannot move before this thread arrives, so this read is the current round.
    const std::uint32_t gen = generation_.load(std::memory_order_acquire);
    if (global)
      global_arrivals_.fetch_add(1, std::memory_order_relaxed);
    // acq_rel: the last arriver's RMW reads the end of the release sequence of every arrival,
    // so it sees every thread's global_arrivals_ increment.
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
      const std::uint32_t globals = global_arrivals_.load(std::memory_order_relaxed);
      gaspi_return_t rc = GASPI_SUCCESS;
      if (globals == parties_) {
        rc = gaspi_barrier(group, timeout);
      } else if (globals != 0) {
        log::error("%u of %u threads called gaspi_threads_sync_all, the others "
                   "gaspi_threads_sync, in the same round",
                   globals, parties_);
        rc = GASPI_ERROR;
      }
      global_arrivals_.store(0, std::memory_order_relaxed);
      arrived_.store(0, std::memory_order_relaxed);
      result_ = rc; // read by the waiters after their acquire of the new generation
      generation_.store(gen + 1, std::memory_order_release);
      generation_.notify_all();
      return rc;
    }
    wait_for_change(gen);
    // No thread can start the next round's completion before this one arrives again, so
    // result_ still holds this round's value.
    return result_;
  }

private:
  void wait_for_change(std::uint32_t gen) noexcept {
    for (int i = 0; i < 256; ++i) {
      if (generation_.load(std::memory_order_acquire) != gen)
        return;
      __builtin_ia32_pause();
    }
    for (int i = 0; i < 16; ++i) {
      if (generation_.load(std::memory_order_acquire) != gen)
        return;
      sched_yield();
    }
    while (generation_.load(std::memory_order_acquire) == gen)
      generation_.wait(gen, std::memory_order_acquire);
  }

  alignas(128) std::atomic<std::uint32_t> arrived_{0};
  alignas(128) std::atomic<std::uint32_t> generation_{0};
  alignas(128) std::atomic<std::uint32_t> global_arrivals_{0};
  std::uint32_t parties_ = 1;
  gaspi_return_t result_ = GASPI_SUCCESS;
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

// Process-wide team state. `next_tid` is -1 while no team exists. A team lives from
// gaspi_threads_init* to gaspi_threads_term; `epoch` tells a thread's registration from a
// registration in an earlier team.
struct ThreadTeam {
  std::mutex lifecycle; // serialises init, term and run
  std::atomic<std::int32_t> next_tid{-1};
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<std::int32_t> total{0};
  // By gaspi_threads_run; joined at term. A program may exit without gaspi_threads_term (GPI-2's
  // gaspi_threads_run is a plain pthread_create, and its programs do): the team is therefore never
  // destroyed, since destroying a joinable std::thread calls std::terminate.
  std::vector<std::thread> started;
  std::vector<unsigned> pin_pus; // OS indices of the PUs to bind started threads to; empty: none
  TeamBarrier barrier;
};
ThreadTeam &g_team = *new ThreadTeam; // never destroyed: started threads may run on past main (see `started`)

struct Registration {
  std::uint64_t epoch = 0;
  std::int32_t tid = -1;
};
thread_local Registration t_reg;

bool team_exists() noexcept {
  if (g_team.next_tid.load(std::memory_order_acquire) < 0) {
    log::error("no thread team: call gaspi_threads_init or gaspi_threads_init_user first");
    return false;
  }
  return true;
}

// The calling thread's id in the current team, or -1.
std::int32_t my_tid() noexcept { return t_reg.epoch == g_team.epoch.load(std::memory_order_acquire) ? t_reg.tid : -1; }

std::int32_t cpus_of_process() noexcept {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return -1;
  return CPU_COUNT(&mask);
}

// HYGASPI_THREADS_PIN (-1 auto, 0 off, 1 on). Auto binds the threads only where that cannot
// pile the threads of several ranks onto the same CPUs: the process's CPU set is narrower than
// the machine (a launcher bound the rank) and has a core for each thread of the team.
// Returns the PU of each started thread (1..n-1: thread 0 is the caller's), one per core first.
std::vector<unsigned> choose_pus(std::int32_t total) {
  Knobs knobs; // read here, not at gaspi_proc_init: the team may come first, or the knob change between teams
  std::string error;
  if (!read_knob(knobs, &Knobs::threads_pin, error)) {
    log::error("%s; not binding threads", error.c_str());
    knobs.threads_pin = 0;
  }
  const std::int64_t mode = knobs.threads_pin;
  std::vector<unsigned> pus;
  if (mode == 0 || total < 2)
    return pus;
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0)
    return pus;
  hwloc_bitmap_t mine = hwloc_bitmap_alloc();
  if (hwloc_topology_load(topo) == 0 && mine != nullptr && hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) == 0) {
    const bool narrower = !hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(topo), mine);
    const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, mine, HWLOC_OBJ_CORE);
    if (mode == 1 || (narrower && cores >= total)) {
      // k-th core's first PU while there are cores, then the remaining PUs, round robin.
      std::vector<unsigned> order;
      for (int c = 0; c < cores; ++c) {
        hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(topo, mine, HWLOC_OBJ_CORE, c);
        hwloc_bitmap_t pu_set = hwloc_bitmap_dup(core->cpuset);
        hwloc_bitmap_and(pu_set, pu_set, mine);
        order.push_back(static_cast<unsigned>(hwloc_bitmap_first(pu_set)));
        hwloc_bitmap_free(pu_set);
      }
      for (int pu = hwloc_bitmap_first(mine); pu >= 0; pu = hwloc_bitmap_next(mine, pu))
        if (std::find(order.begin(), order.end(), static_cast<unsigned>(pu)) == order.end())
          order.push_back(static_cast<unsigned>(pu));
      for (std::int32_t k = 0; k < total && !order.empty(); ++k)
        pus.push_back(order[static_cast<std::size_t>(k) % order.size()]);
    }
  }
  hwloc_bitmap_free(mine);
  hwloc_topology_destroy(topo);
  return pus;
}

void bind_self(unsigned pu) noexcept {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(pu, &one);
  if (int rc = pthread_setaffinity_np(pthread_self(), sizeof one, &one); rc != 0)
    log::warn("cannot bind thread to CPU %u (error %d); it runs unbound", pu, rc);
}

} // namespace

extern "C" {

gaspi_return_t gaspi_threads_get_num_cores(gaspi_int *const cores) {
  log::CallScope scope("gaspi_threads_get_num_cores");
  HYGASPI_CHECK(cores != nullptr, GASPI_ERR_NULLPTR, "cores is NULL");
  const std::int32_t n = cpus_of_process();
  if (n <= 0) {
    log::error("sched_getaffinity failed");
    return GASPI_ERROR;
  }
  *cores = n;
  return GASPI_SUCCESS;
}

gaspi_return_t gaspi_threads_init_user(const unsigned int use_nr_of_threads) {
  return guarded("gaspi_threads_init_user", [&] {
    std::lock_guard lock(g_team.lifecycle);
    if (g_team.next_tid.load(std::memory_order_relaxed) >= 0) {
      log::error("a thread team exists already (call gaspi_threads_term first)");
      return GASPI_ERROR;
    }
    if (use_nr_of_threads < 1 || use_nr_of_threads > static_cast<unsigned>(INT_MAX)) {
      log::error("%u threads: the team needs at least 1 and at most %d", use_nr_of_threads, INT_MAX);
      return GASPI_ERROR;
    }
    const auto total = static_cast<std::int32_t>(use_nr_of_threads);
    g_team.total.store(total, std::memory_order_relaxed);
    g_team.pin_pus = choose_pus(total);
    g_team.barrier.reset(use_nr_of_threads);
    g_team.epoch.fetch_add(1, std::memory_order_relaxed);
    g_team.next_tid.store(0, std::memory_order_release); // publishes total, barrier and epoch
    return GASPI_SUCCESS;
  });
}

gaspi_return_t gaspi_threads_init(gaspi_int *const num) {
  log::CallScope scope("gaspi_threads_init"); // the calls below report as gaspi_threads_init
  HYGASPI_CHECK(num != nullptr, GASPI_ERR_NULLPTR, "num is NULL");
  gaspi_int cores = 0;
  HYGASPI_TRY(gaspi_threads_get_num_cores(&cores));
  HYGASPI_TRY(gaspi_threads_init_user(static_cast<unsigned>(cores)));
  *num = cores;
  return GASPI_SUCCESS;
}

gaspi_return_t gaspi_threads_term(void) {
  return guarded("gaspi_threads_term", [&] {
    std::vector<std::thread> started;
    {
      std::lock_guard lock(g_team.lifecycle);
      if (!team_exists())
        return GASPI_ERROR;
      started.swap(g_team.started);
    }
    // Wait for the started threads outside the lock (one of them may still call into the
    // team); a started thread that ends the team itself cannot wait for itself.
    for (std::thread &t : started) {
      if (t.get_id() == std::this_thread::get_id())
        t.detach();
      else
        t.join();
    }
    std::lock_guard lock(g_team.lifecycle);
    g_team.next_tid.store(-1, std::memory_order_release);
    g_team.epoch.fetch_add(1, std::memory_order_release); // every registration becomes stale
    g_team.total.store(0, std::memory_order_relaxed);
    return GASPI_SUCCESS;
  });
}

gaspi_return_t gaspi_threads_run(void *(*function)(void *), void *arg) {
  return guarded("gaspi_threads_run", [&] {
    HYGASPI_CHECK(function != nullptr, GASPI_ERR_NULLPTR, "function is NULL");
    std::lock_guard lock(g_team.lifecycle);
    if (!team_exists())
      return GASPI_ERROR;
    // Started thread k (1, 2, ...) takes the k-th PU: the caller, thread 0 of the team in the
    // usual pattern, keeps its own CPU set.
    const std::size_t k = g_team.started.size() + 1;
    const bool pin = !g_team.pin_pus.empty();
    const unsigned pu = pin ? g_team.pin_pus[k % g_team.pin_pus.size()] : 0;
    try {
      g_team.started.emplace_back([function, arg, pin, pu] {
        if (pin)
          bind_self(pu);
        (void)function(arg);
      });
    } catch (const std::system_error &e) {
      log::error("cannot start a thread: %s", e.what());
      return GASPI_ERROR;
    }
    return GASPI_SUCCESS;
  });
}

gaspi_return_t gaspi_threads_register(gaspi_int *tid) {
  log::CallScope scope("gaspi_threads_register");
  HYGASPI_CHECK(tid != nullptr, GASPI_ERR_NULLPTR, "tid is NULL");
  if (!team_exists())
    return GASPI_ERROR;
  if (std::int32_t mine = my_tid(); mine >= 0) {
    *tid = mine; // registering again keeps the id
    return GASPI_SUCCESS;
  }
  std::int32_t next = g_team.next_tid.load(std::memory_order_acquire);
  do {
    if (next < 0) {
      log::error("the thread team ended while this thread registered");
      return GASPI_ERROR;
    }
    if (const std::int32_t total = g_team.total.load(std::memory_order_relaxed); next >= total) {
      log::error("the team has %d threads and all of them registered already", total);
      return GASPI_ERROR;
    }
  } while (!g_team.next_tid.compare_exchange_weak(next, next + 1, std::memory_order_acq_rel));
  t_reg = Registration{g_team.epoch.load(std::memory_order_acquire), next};
  *tid = next;
  return GASPI_SUCCESS;
}

gaspi_return_t gaspi_threads_get_tid(gaspi_int *const tid) {
  log::CallScope scope("gaspi_threads_get_tid");
  HYGASPI_CHECK(tid != nullptr, GASPI_ERR_NULLPTR, "tid is NULL");
  if (!team_exists())
    return GASPI_ERROR;
  const std::int32_t mine = my_tid();
  if (mine < 0) {
    log::error("this thread has not called gaspi_threads_register");
    return GASPI_ERROR;
  }
  *tid = mine;
  return GASPI_SUCCESS;
}

gaspi_return_t gaspi_threads_get_total(gaspi_int *const num) {
  log::CallScope scope("gaspi_threads_get_total");
  HYGASPI_CHECK(num != nullptr, GASPI_ERR_NULLPTR, "num is NULL");
  if (!team_exists())
    return GASPI_ERROR;
  *num = g_team.total.load(std::memory_order_relaxed);
  return GASPI_SUCCESS;
}

void gaspi_threads_sync(void) {
  log::CallScope scope("gaspi_threads_sync");
  if (!team_exists())
    return;
  if (my_tid() < 0) {
    log::error("this thread has not called gaspi_threads_register; not waiting");
    return;
  }
  (void)g_team.barrier.arrive(false, 0, GASPI_BLOCK);
}

gaspi_return_t gaspi_threads_sync_all(const gaspi_group_t g, const gaspi_timeout_t timeout_ms) {
  log::CallScope scope("gaspi_threads_sync_all");
  if (!team_exists())
    return GASPI_ERROR;
  if (my_tid() < 0) {
    log::error("this thread has not called gaspi_threads_register");
    return GASPI_ERROR;
  }
  return g_team.barrier.arrive(true, g, timeout_ms);
}

} // extern "C"
