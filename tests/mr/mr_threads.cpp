// GPI-2 compatibility (docs/COMPATIBILITY.md): the thread helpers of GASPI_Threads.h, as GPI-2
// programs use them, and the device parameters of gaspi_dev_config_t, set by name and kept by
// gaspi_config_set / gaspi_config_get.
//  - teams: ids unique and dense, a second register keeps the id, one thread too many is refused;
//  - gaspi_threads_sync is a barrier (every thread sees every other thread's write of the round);
//  - gaspi_threads_sync_all is a barrier across the ranks too (global counter lower bound);
//  - gaspi_threads_term waits for the started threads; a new team can follow;
//  - HYGASPI_THREADS_PIN=1 binds each started thread to one CPU.
#include <GASPI_Threads.h>

#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "mr_util.hpp"

// The helpers are deprecated in GPI-2 (and in our header); this test uses them on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

constexpr gaspi_int kTeam = 4;
constexpr int kLocalRounds = 200;
constexpr int kGlobalRounds = 10;
constexpr gaspi_segment_id_t kSeg = 0;

gaspi_rank_t g_nranks = 1;
std::atomic<unsigned> g_tids_seen{0};
std::atomic<int> g_slots[kTeam];
std::atomic<int> g_failures{0};
std::atomic<int> g_single_cpu{0};

// A check that may fail in any thread: the thread records it, main fails the test after term.
#define TEAM_CHECK(cond)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::fprintf(stderr, "FAIL rank %u %s:%d (team thread): %s\n", mr::g_rank, __FILE__, __LINE__, #cond);           \
      g_failures.fetch_add(1);                                                                                         \
    }                                                                                                                  \
  } while (0)

void *team_member(void *) {
  gaspi_int tid = -1, again = -1, total = 0;
  TEAM_CHECK(gaspi_threads_register(&tid) == GASPI_SUCCESS);
  TEAM_CHECK(tid >= 0 && tid < kTeam);
  if (tid < 0 || tid >= kTeam)
    return nullptr;
  TEAM_CHECK((g_tids_seen.fetch_or(1u << tid) & (1u << tid)) == 0); // unique
  TEAM_CHECK(gaspi_threads_register(&again) == GASPI_SUCCESS && again == tid);
  TEAM_CHECK(gaspi_threads_get_tid(&again) == GASPI_SUCCESS && again == tid);
  TEAM_CHECK(gaspi_threads_get_total(&total) == GASPI_SUCCESS && total == kTeam);

  // Local barrier: after each sync every member's write of this round is visible.
  for (int round = 1; round <= kLocalRounds; ++round) {
    g_slots[tid].store(round, std::memory_order_relaxed);
    gaspi_threads_sync();
    for (gaspi_int t = 0; t < kTeam; ++t)
      TEAM_CHECK(g_slots[t].load(std::memory_order_relaxed) == round);
    gaspi_threads_sync();
  }

  // Global barrier: every thread of every rank adds 1 to rank 0's counter per round; after
  // sync_all of round r, all adds of rounds <= r have happened everywhere.
  const gaspi_atomic_value_t per_round = static_cast<gaspi_atomic_value_t>(g_nranks) * kTeam;
  for (int round = 1; round <= kGlobalRounds; ++round) {
    gaspi_atomic_value_t old = 0;
    TEAM_CHECK(gaspi_atomic_fetch_add(kSeg, 0, 0, 1, &old, GASPI_BLOCK) == GASPI_SUCCESS);
    TEAM_CHECK(gaspi_threads_sync_all(GASPI_GROUP_ALL, GASPI_BLOCK) == GASPI_SUCCESS);
    TEAM_CHECK(gaspi_atomic_fetch_add(kSeg, 0, 0, 0, &old, GASPI_BLOCK) == GASPI_SUCCESS);
    TEAM_CHECK(old >= per_round * static_cast<gaspi_atomic_value_t>(round));
  }
  return nullptr;
}

void *register_and_report(void *out) {
  gaspi_int tid = -1;
  static_cast<std::atomic<int> *>(out)->store(gaspi_threads_register(&tid));
  return nullptr;
}

void *pinned_member(void *) {
  gaspi_int tid = -1;
  TEAM_CHECK(gaspi_threads_register(&tid) == GASPI_SUCCESS);
  cpu_set_t mask;
  TEAM_CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
  if (CPU_COUNT(&mask) == 1)
    g_single_cpu.fetch_add(1);
  gaspi_threads_sync();
  return nullptr;
}

void check_dev_config_round_trip() {
  gaspi_config_t config;
  MR_OK(gaspi_config_get(&config));
  MR_CHECK(config.dev_config.params.tcp.port == 19000); // GPI-2's default
  config.dev_config.network_type = GASPI_ETHERNET;
  config.dev_config.params.tcp.port = 23456;
  config.dev_config.params.ib.mtu = 2048;
  config.dev_config.params.ofi.use_shm = 0;
  MR_OK(gaspi_config_set(config));
  gaspi_config_t back;
  MR_OK(gaspi_config_get(&back));
  MR_CHECK(back.dev_config.params.tcp.port == 23456);
  MR_CHECK(back.dev_config.params.ib.mtu == 2048);
  MR_CHECK(back.dev_config.params.ofi.use_shm == 0);
}

} // namespace

int main() {
  check_dev_config_round_trip();

  gaspi_int tid = -1, n = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_threads_get_tid(&tid)); // no team yet
  MR_EXPECT(GASPI_ERROR, gaspi_threads_register(&tid));
  MR_EXPECT(GASPI_ERROR, gaspi_threads_run(team_member, nullptr));
  MR_EXPECT(GASPI_ERROR, gaspi_threads_term());
  MR_EXPECT(GASPI_ERROR, gaspi_threads_init_user(0));

  gaspi_rank_t rank = 0;
  mr_init(rank, g_nranks);
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));

  cpu_set_t mask;
  MR_CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
  gaspi_int cores = 0;
  MR_OK(gaspi_threads_get_num_cores(&cores));
  MR_CHECK(cores == CPU_COUNT(&mask));

  // Team of 4: three started threads and main, as GPI-2's own tests do it.
  MR_OK(gaspi_threads_init_user(kTeam));
  MR_EXPECT(GASPI_ERROR, gaspi_threads_init_user(kTeam)); // a team exists
  MR_EXPECT(GASPI_ERROR, gaspi_threads_get_tid(&tid));    // main has not registered yet
  for (gaspi_int i = 1; i < kTeam; ++i)
    MR_OK(gaspi_threads_run(team_member, nullptr));
  team_member(nullptr);
  MR_OK(gaspi_threads_term()); // waits for the three
  MR_CHECK(g_failures.load() == 0);
  MR_CHECK(g_tids_seen.load() == (1u << kTeam) - 1); // 0..3, each once
  MR_EXPECT(GASPI_ERROR, gaspi_threads_get_total(&n));
  MR_EXPECT(GASPI_ERROR, gaspi_threads_get_tid(&tid)); // the old registration is stale

  // A team of one: the second thread to register is refused.
  MR_OK(gaspi_threads_init_user(1));
  MR_OK(gaspi_threads_register(&tid));
  MR_CHECK(tid == 0);
  gaspi_threads_sync(); // a team of one never waits
  MR_OK(gaspi_threads_sync_all(GASPI_GROUP_ALL, GASPI_BLOCK));
  std::atomic<int> extra{GASPI_SUCCESS};
  MR_OK(gaspi_threads_run(register_and_report, &extra));
  MR_OK(gaspi_threads_term());
  MR_CHECK(extra.load() == GASPI_ERROR);

  // gaspi_threads_init: one thread per CPU; with HYGASPI_THREADS_PIN=1 each started thread is bound
  // to a single CPU.
  MR_CHECK(setenv("HYGASPI_THREADS_PIN", "1", 1) == 0);
  MR_OK(gaspi_threads_init(&n));
  MR_CHECK(n == cores);
  for (gaspi_int i = 1; i < n; ++i)
    MR_OK(gaspi_threads_run(pinned_member, nullptr));
  MR_OK(gaspi_threads_register(&tid));
  gaspi_threads_sync();
  MR_OK(gaspi_threads_term());
  MR_CHECK(g_failures.load() == 0);
  MR_CHECK(g_single_cpu.load() == n - 1);

  mr_finish("mr_threads");
  return 0;
}
