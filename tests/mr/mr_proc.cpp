// Process management and getters (spec §5, §6, §12, §13): configuration defaults and a granted
// queue_num, every getter, time, error strings, connect/disconnect, the state vector, groups
// (overlapping, re-committed with other members, each checked with a counting barrier), a
// resumable barrier with GASPI_TEST while one rank is late, and a second init/term life cycle.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0; // ring data below 2 KiB, barrier counters from kCounters
constexpr gaspi_offset_t kCounters = 2048;
constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_number_t kQueueNum = 4;

gaspi_rank_t g_me = 0, g_n = 1;

void config_before_init() {
  gaspi_config_t c{};
  MR_OK(gaspi_config_get(&c));
  MR_CHECK(c.queue_num == 8);
  MR_CHECK(c.queue_size_max == 1024);
  MR_CHECK(c.notification_num == 65536);
  MR_CHECK(c.segment_max == 255);
  MR_CHECK(c.group_max == 32);
  MR_CHECK(c.transfer_size_max == (1ul << 30));
  MR_CHECK(c.rw_list_elem_max == 255);
  MR_CHECK(c.allreduce_elem_max == 255);
  MR_CHECK(c.allreduce_buf_size == 2040);
  MR_CHECK(c.passive_transfer_size_max == 65535);
  MR_CHECK(c.passive_queue_size_max == 1024);
  MR_CHECK(c.build_infrastructure == GASPI_TOPOLOGY_STATIC);

  c.queue_num = kQueueNum;
  MR_OK(gaspi_config_set(c));
  gaspi_config_t back{};
  MR_OK(gaspi_config_get(&back));
  MR_CHECK(back.queue_num == kQueueNum && back.queue_size_max == 1024);

  gaspi_number_t inited = 7;
  MR_OK(gaspi_initialized(&inited));
  MR_CHECK(inited == 0);
  // GPI-2 programs call these before gaspi_proc_init.
  gaspi_float mhz = 0;
  MR_OK(gaspi_cpu_frequency(&mhz));
  MR_CHECK(mhz > 0);
  float version = 0;
  MR_OK(gaspi_version(&version));
  MR_CHECK(std::fabs(version - 1.6f) < 1e-4f);
}

void getters() {
  gaspi_rank_t r = 0, n = 0;
  MR_OK(gaspi_proc_rank(&r));
  MR_OK(gaspi_proc_num(&n));
  MR_CHECK(r == g_me && n == g_n && r < n);
  gaspi_number_t inited = 0;
  MR_OK(gaspi_initialized(&inited));
  MR_CHECK(inited == 1);

  gaspi_number_t v = 0;
  MR_OK(gaspi_queue_num(&v));
  MR_CHECK(v == kQueueNum);
  gaspi_config_t c{};
  MR_OK(gaspi_config_get(&c));
  MR_CHECK(c.queue_num == kQueueNum);
  for (gaspi_number_t q = 0; q < kQueueNum; ++q) {
    gaspi_number_t s = 99;
    MR_OK(gaspi_queue_size(static_cast<gaspi_queue_id_t>(q), &s));
    MR_CHECK(s == 0);
  }
  gaspi_number_t s = 0;
  MR_EXPECT(GASPI_ERR_INV_QUEUE, gaspi_queue_size(kQueueNum, &s));

  MR_OK(gaspi_queue_max(&v));
  MR_CHECK(v == 16);
  MR_OK(gaspi_queue_size_max(&v));
  MR_CHECK(v == 1024);
  MR_OK(gaspi_group_max(&v));
  MR_CHECK(v == 32);
  MR_OK(gaspi_segment_max(&v));
  MR_CHECK(v == 255);
  MR_OK(gaspi_notification_num(&v));
  MR_CHECK(v == 65536);
  MR_OK(gaspi_allreduce_elem_max(&v));
  MR_CHECK(v == 255);
  MR_OK(gaspi_rw_list_elem_max(&v));
  MR_CHECK(v == 255);
  v = 99;
  MR_OK(gaspi_build_infrastructure(&v));
  MR_CHECK(v == GASPI_TOPOLOGY_STATIC);
  gaspi_size_t size = 0;
  MR_OK(gaspi_transfer_size_max(&size));
  MR_CHECK(size == (1ul << 30));
  MR_OK(gaspi_transfer_size_min(&size));
  MR_CHECK(size == 0); // size-0 transfers are accepted (GPI-2 1.6 reports 0 too)
  MR_OK(gaspi_passive_transfer_size_max(&size));
  MR_CHECK(size == 65535);
  MR_OK(gaspi_passive_transfer_size_min(&size));
  MR_CHECK(size >= 1 && size <= 65535);
  MR_OK(gaspi_allreduce_buf_size(&size));
  MR_CHECK(size > 0);
  gaspi_atomic_value_t amax = 0;
  MR_OK(gaspi_atomic_max(&amax));
  MR_CHECK(amax >= (1ul << 31));
  gaspi_network_t net = static_cast<gaspi_network_t>(-1);
  MR_OK(gaspi_network_type(&net));
  MR_CHECK(static_cast<int>(net) >= 0 && net <= GASPI_OFI);

  gaspi_rank_t local = 0, local_num = 0;
  MR_OK(gaspi_proc_local_rank(&local));
  MR_OK(gaspi_proc_local_num(&local_num));
  MR_CHECK(local < local_num && local_num >= 1 && local_num <= g_n);
  gaspi_uchar socket = 255; // as GPI-2: an error unless NUMA placement was asked for (gaspi_run -N)
  const char *numa = std::getenv("GASPI_SET_NUMA_SOCKET");
  if (numa != nullptr && std::strcmp(numa, "1") == 0) {
    MR_OK(gaspi_numa_socket(&socket));
    MR_CHECK(socket < 255);
  } else {
    MR_EXPECT(GASPI_ERR_ENV, gaspi_numa_socket(&socket));
  }
  float version = 0;
  MR_OK(gaspi_version(&version));
  MR_CHECK(std::fabs(version - 1.6f) < 1e-4f);
  gaspi_number_t counters = 99;
  MR_OK(gaspi_statistic_counter_max(&counters));
  MR_CHECK(counters < 99);
}

void time_and_strings() {
  // gaspi_time_get: milliseconds, never decreasing, and it advances.
  gaspi_time_t t0 = 0, prev = 0;
  MR_OK(gaspi_time_get(&t0));
  MR_CHECK(t0 >= 0);
  prev = t0;
  const auto wall_end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool advanced = false;
  for (long i = 0; !advanced && std::chrono::steady_clock::now() < wall_end; ++i) {
    gaspi_time_t t = 0;
    MR_OK(gaspi_time_get(&t));
    MR_CHECK(t >= prev);
    prev = t;
    advanced = t > t0 + 1.0f; // more than one millisecond later
  }
  MR_CHECK(advanced);

  gaspi_cycles_t c0 = 0, cprev = 0;
  MR_OK(gaspi_time_ticks(&c0));
  cprev = c0;
  bool ticked = false;
  for (int i = 0; i < 1000000 && !ticked; ++i) {
    gaspi_cycles_t c = 0;
    MR_OK(gaspi_time_ticks(&c));
    MR_CHECK(c >= cprev);
    cprev = c;
    ticked = c > c0;
  }
  MR_CHECK(ticked);

  gaspi_string_t a = nullptr, b = nullptr, e = nullptr;
  MR_OK(gaspi_print_error(GASPI_QUEUE_FULL, &a));
  MR_OK(gaspi_print_error(GASPI_QUEUE_FULL, &b));
  MR_OK(gaspi_error_message(GASPI_QUEUE_FULL, &e));
  MR_CHECK(a != nullptr && a[0] != '\0');
  MR_CHECK(a == b && std::strcmp(a, e) == 0); // static, same text
  gaspi_string_t other = nullptr;
  MR_OK(gaspi_print_error(GASPI_ERR_INV_RANK, &other));
  MR_CHECK(other != nullptr && std::strcmp(other, a) != 0);
  MR_OK(gaspi_print_error(static_cast<gaspi_return_t>(12345), &other));
  MR_CHECK(other != nullptr && other[0] != '\0');
  gaspi_string_t str = gaspi_error_str(GASPI_QUEUE_FULL);
  MR_CHECK(str != nullptr && std::strcmp(str, a) == 0);
  for (int code = -1; code <= 28; ++code) {
    gaspi_string_t t = gaspi_error_str(static_cast<gaspi_return_t>(code));
    MR_CHECK(t != nullptr && t[0] != '\0');
  }
  MR_OK(gaspi_pcontrol(nullptr));
  int arg = 1;
  MR_OK(gaspi_pcontrol(&arg));
}

void connections() {
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    MR_OK(gaspi_connect(r, GASPI_BLOCK));
    MR_OK(gaspi_proc_ping(r, GASPI_BLOCK));
  }
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_connect(g_n, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_disconnect(g_n, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_proc_ping(g_n, GASPI_BLOCK));
  // A sentinel past the end: GASPI_STATE_CORRUPT, which no healthy job reports.
  std::vector<gaspi_state_t> states(g_n + 1, GASPI_STATE_CORRUPT);
  MR_OK(gaspi_state_vec_get(states.data()));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_CHECK(states[r] == GASPI_STATE_HEALTHY);
  MR_CHECK(states[g_n] == GASPI_STATE_CORRUPT); // exactly nranks entries written
  MR_CHECK(gaspi_proc_kill(g_me, GASPI_BLOCK) != GASPI_SUCCESS);
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_proc_kill(g_n, GASPI_BLOCK));
  // Everyone has connected before anyone disconnects.
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_disconnect(r, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_connect(r, GASPI_BLOCK)); // reconnect for the rest of the test
  MR_OK(gaspi_state_vec_get(states.data()));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_CHECK(states[r] == GASPI_STATE_HEALTHY);
}

struct TestGroup {
  gaspi_group_t id = 0;
  std::vector<gaspi_rank_t> members; // sorted
  gaspi_offset_t counter = 0;        // offset of its barrier counter in the leader's kSeg
  long rounds = 0;
  [[nodiscard]] bool has(gaspi_rank_t r) const { return std::find(members.begin(), members.end(), r) != members.end(); }
};

// All ranks create the group (so group ids agree); members are added in the order given.
TestGroup make_group(std::vector<gaspi_rank_t> add_order, gaspi_offset_t counter) {
  TestGroup g;
  MR_OK(gaspi_group_create(&g.id));
  MR_CHECK(g.id != GASPI_GROUP_ALL);
  for (gaspi_rank_t r : add_order)
    MR_OK(gaspi_group_add(g.id, r));
  if (!add_order.empty())
    MR_CHECK(gaspi_group_add(g.id, add_order.front()) != GASPI_SUCCESS); // already a member
  std::sort(add_order.begin(), add_order.end());
  g.members = add_order;
  g.counter = counter;
  return g;
}

void check_group(const TestGroup &g) {
  gaspi_number_t size = 99;
  MR_OK(gaspi_group_size(g.id, &size));
  MR_CHECK(size == g.members.size());
  std::vector<gaspi_rank_t> ranks(g.members.size() + 1, 0xbeef);
  MR_OK(gaspi_group_ranks(g.id, ranks.data()));
  MR_CHECK(ranks.back() == 0xbeef);
  ranks.pop_back();
  std::sort(ranks.begin(), ranks.end());
  MR_CHECK(ranks == g.members);
}

// A barrier that can fail: every member adds 1 to the group's counter on its leader before the
// barrier; after it the counter must hold all members' additions of this round, and at most one
// more round's (no member can pass the next barrier before this rank arrives there).
void counted_barrier(TestGroup &g, gaspi_timeout_t first_timeout = GASPI_BLOCK) {
  const gaspi_rank_t leader = g.members.front();
  const gaspi_atomic_value_t size = g.members.size();
  gaspi_atomic_value_t old = 0;
  MR_OK(gaspi_atomic_fetch_add(kSeg, g.counter, leader, 1, &old, GASPI_BLOCK));
  gaspi_return_t rc = gaspi_barrier(g.id, first_timeout);
  while (rc == GASPI_TIMEOUT) {
    sched_yield();
    rc = gaspi_barrier(g.id, first_timeout);
  }
  MR_OK(rc);
  g.rounds += 1;
  MR_OK(gaspi_atomic_fetch_add(kSeg, g.counter, leader, 0, &old, GASPI_BLOCK));
  const auto want = static_cast<gaspi_atomic_value_t>(g.rounds) * size;
  if (old < want || old >= want + size) {
    std::fprintf(stderr, "group %u round %ld: counter %lu, expected [%lu, %lu)\n", g.id, g.rounds, old, want,
                 want + size);
    MR_CHECK(!"barrier let a rank through early");
  }
}

// Ranks other than the group's leader enter the barrier first with GASPI_TEST and a short timeout:
// both must report GASPI_TIMEOUT, since the leader has not arrived. They then tell the leader so
// (a notification) and keep calling with GASPI_TEST, which resumes the same barrier; the leader
// enters only once all of them have seen the timeout.
void late_barrier(TestGroup &g, gaspi_notification_id_t signal_base) {
  const gaspi_rank_t leader = g.members.front();
  gaspi_atomic_value_t old = 0;
  MR_OK(gaspi_atomic_fetch_add(kSeg, g.counter, leader, 1, &old, GASPI_BLOCK));
  if (g_me == leader) {
    const auto others = static_cast<gaspi_number_t>(g.members.size() - 1);
    for (gaspi_number_t seen = 0; seen < others; ++seen) {
      gaspi_notification_id_t id = 0;
      MR_OK(gaspi_notify_waitsome(kSeg, signal_base, g_n, &id, GASPI_BLOCK));
      gaspi_notification_t val = 0;
      MR_OK(gaspi_notify_reset(kSeg, id, &val));
      MR_CHECK(val == 1 && g.has(static_cast<gaspi_rank_t>(id - signal_base)) && id != signal_base + leader);
    }
    MR_OK(gaspi_barrier(g.id, GASPI_BLOCK));
  } else {
    MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(g.id, GASPI_TEST));
    MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(g.id, 1)); // 1 ms, resumed
    MR_EXPECT(GASPI_TIMEOUT, gaspi_barrier(g.id, GASPI_TEST));
    MR_OK(gaspi_notify(kSeg, leader, signal_base + g_me, 1, kQ, GASPI_BLOCK));
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
    long calls = 0;
    gaspi_return_t rc;
    while ((rc = gaspi_barrier(g.id, GASPI_TEST)) == GASPI_TIMEOUT) {
      ++calls;
      sched_yield();
    }
    MR_OK(rc);
  }
  g.rounds += 1;
  MR_OK(gaspi_atomic_fetch_add(kSeg, g.counter, leader, 0, &old, GASPI_BLOCK));
  const auto want = static_cast<gaspi_atomic_value_t>(g.rounds) * g.members.size();
  MR_CHECK(old >= want && old < want + g.members.size());
  // The barrier's state is consistent afterwards: ordinary barriers still count correctly.
  counted_barrier(g);
  counted_barrier(g, GASPI_TEST);
}

void groups() {
  std::vector<gaspi_rank_t> even, odd, reverse;
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    (r % 2 == 0 ? even : odd).push_back(r);
  for (gaspi_rank_t r = g_n; r-- > 0;)
    reverse.push_back(r);

  TestGroup all;
  all.id = GASPI_GROUP_ALL;
  all.counter = kCounters;
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    all.members.push_back(r);
  check_group(all);

  TestGroup ge = make_group(even, kCounters + 8), go = make_group(odd, kCounters + 16),
            gr = make_group(reverse, kCounters + 24);
  MR_CHECK(ge.id != go.id && go.id != gr.id && ge.id != gr.id);
  gaspi_number_t num = 0;
  MR_OK(gaspi_group_num(&num));
  MR_CHECK(num == 4);
  for (TestGroup *g : {&ge, &go, &gr})
    if (g->has(g_me))
      MR_OK(gaspi_group_commit(g->id, GASPI_BLOCK));
  for (TestGroup *g : {&ge, &go, &gr})
    check_group(*g);
  if (ge.has(g_me))
    MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_group_add(ge.id, 0)); // committed: membership is fixed

  // Interleaved barriers on overlapping groups.
  for (int round = 0; round < 20; ++round) {
    counted_barrier(all);
    for (TestGroup *g : {&ge, &go, &gr})
      if (g->has(g_me))
        counted_barrier(*g);
  }

  // Delete the even group and commit the same id with other members (the first half).
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_group_delete(ge.id));
  MR_EXPECT(GASPI_ERR_INV_GROUP, gaspi_barrier(ge.id, GASPI_BLOCK));
  MR_OK(gaspi_group_num(&num));
  MR_CHECK(num == 3);
  std::vector<gaspi_rank_t> half;
  for (gaspi_rank_t r = 0; r < (g_n + 1) / 2; ++r)
    half.push_back(r);
  TestGroup gh = make_group(half, kCounters + 32);
  MR_CHECK(gh.id == ge.id); // the lowest free id
  if (gh.has(g_me))
    MR_OK(gaspi_group_commit(gh.id, GASPI_BLOCK));
  check_group(gh);
  for (int round = 0; round < 20; ++round) {
    if (gh.has(g_me))
      counted_barrier(gh);
    if (gr.has(g_me))
      counted_barrier(gr);
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // A late leader: on GASPI_GROUP_ALL, on the reversed group, and on the odd group (leader 1).
  late_barrier(all, 100);
  late_barrier(gr, 200);
  if (go.has(g_me))
    late_barrier(go, 300);
  if (gh.has(g_me))
    late_barrier(gh, 400);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  MR_OK(gaspi_group_delete(gh.id));
  MR_OK(gaspi_group_delete(go.id));
  MR_OK(gaspi_group_delete(gr.id));
  MR_OK(gaspi_group_num(&num));
  MR_CHECK(num == 1);
}

// A complete ring exchange through a fresh segment: proves the job works in this life cycle.
void ring_check(unsigned tag) {
  MR_OK(gaspi_segment_create(kSeg, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  auto *mem = static_cast<unsigned char *>(p);
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const gaspi_rank_t from = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  for (int i = 0; i < 64; ++i)
    mem[i] = static_cast<unsigned char>(g_me * 3 + tag + i);
  MR_OK(gaspi_write_notify(kSeg, 0, to, kSeg, 1024, 64, 5, tag, kQ, GASPI_BLOCK));
  gaspi_notification_id_t id = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, 5, 1, &id, GASPI_BLOCK));
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_reset(kSeg, id, &val));
  MR_CHECK(val == tag);
  for (int i = 0; i < 64; ++i)
    MR_CHECK(mem[1024 + i] == static_cast<unsigned char>(from * 3 + tag + i));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

void second_life() {
  // An atomic on a segment that term leaves to tear down: the thread's cached target of it (the
  // inline path of GASPI_inline.h) must not outlive the life, whose mappings term removes.
  constexpr gaspi_segment_id_t kKept = 1;
  const gaspi_rank_t next = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  MR_OK(gaspi_segment_create(kKept, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_atomic_value_t old = 1;
  for (int i = 0; i < 2; ++i) // the first looks the target up, the second takes the cached one
    MR_OK(gaspi_atomic_fetch_add(kKept, 8, next, 1, &old, GASPI_BLOCK));
  MR_CHECK(old == 1);
  MR_OK(gaspi_segment_delete(kSeg));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  gaspi_number_t inited = 1;
  MR_OK(gaspi_initialized(&inited));
  MR_CHECK(inited == 0);
  gaspi_rank_t r = 0;
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_proc_rank(&r));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_atomic_fetch_add(kKept, 8, next, 1, &old, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_NOINIT, gaspi_atomic_compare_swap(kKept, 8, next, 2, 3, &old, GASPI_BLOCK));

  gaspi_rank_t n = 0;
  MR_OK(gaspi_proc_init(GASPI_BLOCK));
  MR_OK(gaspi_proc_rank(&r));
  MR_OK(gaspi_proc_num(&n));
  MR_CHECK(r == g_me && n == g_n);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  gaspi_number_t num = 99;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 0); // nothing survives from the first life
  MR_OK(gaspi_group_num(&num));
  MR_CHECK(num == 1);
  MR_OK(gaspi_queue_num(&num));
  MR_CHECK(num == kQueueNum); // the configuration stays as set
  ring_check(9);
  TestGroup all;
  all.id = GASPI_GROUP_ALL;
  all.counter = kCounters;
  for (gaspi_rank_t q = 0; q < g_n; ++q)
    all.members.push_back(q);
  for (int i = 0; i < 5; ++i)
    counted_barrier(all);
}

} // namespace

int main() {
  config_before_init();
  mr_init(g_me, g_n);
  getters();
  time_and_strings();
  connections();
  ring_check(3); // also creates kSeg, which holds the counters (zeroed)
  groups();
  second_life();
  mr_finish("mr_proc");
  return 0;
}
