// Statistics counters (spec §14.1): the table answers in any phase; nothing is counted at the
// default verbosity 0; at level 1 the per-rank byte and operation counters hold exact values for a
// known pattern of writes, reads, notifications, lists, atomics and passive sends; GASPI_QUEUE_FULL
// is counted; the waiting times count only at level 2; reset zeroes; a counter that does not exist,
// or a rank argument out of range, is GASPI_ERROR; the counters stay readable after gaspi_proc_term.
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kSegSize = 1 << 16;
constexpr gaspi_number_t kQueueSize = 32;
constexpr gaspi_offset_t kAtomicOff = 0;
constexpr gaspi_offset_t kDataOff = 1024;
constexpr gaspi_offset_t kPassiveOff = 32768;

gaspi_number_t g_max = 0;

gaspi_statistic_counter_t counter(const char *name) {
  for (gaspi_statistic_counter_t c = 0; c < g_max; ++c) {
    gaspi_statistic_argument_t arg;
    gaspi_string_t cname = nullptr, desc = nullptr;
    gaspi_number_t level = 0;
    MR_OK(gaspi_statistic_counter_info(c, &arg, &cname, &desc, &level));
    if (std::strcmp(cname, name) == 0)
      return c;
  }
  mr::fail(__FILE__, __LINE__, (std::string("no counter named ") + name).c_str());
}

gaspi_ulong get(const char *name, gaspi_number_t arg = 0) {
  gaspi_ulong v = ~0ul;
  MR_OK(gaspi_statistic_counter_get(counter(name), arg, &v));
  return v;
}

const char *const kRankCounters[] = {"bytes_written", "bytes_read", "ops_posted", "atomic_ops", "passive_bytes_sent"};
const char *const kTimes[] = {"wait_time_us", "notify_wait_time_us", "collective_time_us"};

struct Expected {
  std::vector<gaspi_ulong> written, read, ops, atomics, passive;
  explicit Expected(gaspi_rank_t n) : written(n), read(n), ops(n), atomics(n), passive(n) {}
};

void check_rank_counters(const Expected &e, gaspi_rank_t n) {
  for (gaspi_rank_t t = 0; t < n; ++t) {
    MR_CHECK(get("bytes_written", t) == e.written[t]);
    MR_CHECK(get("bytes_read", t) == e.read[t]);
    MR_CHECK(get("ops_posted", t) == e.ops[t]);
    MR_CHECK(get("atomic_ops", t) == e.atomics[t]);
    MR_CHECK(get("passive_bytes_sent", t) == e.passive[t]);
  }
}

// The known pattern: to every rank t a write of 8(t+1) bytes, a read of 4(t+1) bytes and a
// write_notify of 8 bytes; to the next rank a write_list (8 + 16 bytes), a read_list (8 + 8), a
// notify, three fetch_adds, one compare_swap and a 40-byte passive send.
void run_pattern(gaspi_rank_t me, gaspi_rank_t n, Expected &e) {
  const auto to = static_cast<gaspi_rank_t>((me + 1) % n);
  for (gaspi_rank_t t = 0; t < n; ++t) {
    MR_OK(gaspi_write(kSeg, kDataOff, t, kSeg, kDataOff + 512 * me, 8 * (t + 1), 0, GASPI_BLOCK));
    MR_OK(gaspi_read(kSeg, kDataOff + 8192, t, kSeg, kDataOff, 4 * (t + 1), 0, GASPI_BLOCK));
    MR_OK(gaspi_write_notify(kSeg, kDataOff, t, kSeg, kDataOff + 512 * me + 256, 8, me, 1, 0, GASPI_BLOCK));
    e.written[t] += 8 * (t + 1) + 8;
    e.read[t] += 4 * (t + 1);
    e.ops[t] += 3;
  }
  gaspi_segment_id_t segs[2] = {kSeg, kSeg};
  gaspi_offset_t loc[2] = {kDataOff, kDataOff + 64};
  gaspi_offset_t rem[2] = {kDataOff + 512 * me + 128, kDataOff + 512 * me + 192};
  gaspi_size_t sizes[2] = {8, 16};
  MR_OK(gaspi_write_list(2, segs, loc, to, segs, rem, sizes, 0, GASPI_BLOCK));
  e.written[to] += 24;
  gaspi_offset_t loc_r[2] = {kDataOff + 9000, kDataOff + 9100};
  gaspi_size_t sizes_r[2] = {8, 8};
  MR_OK(gaspi_read_list(2, segs, loc_r, to, segs, loc, sizes_r, 0, GASPI_BLOCK));
  e.read[to] += 16;
  MR_OK(gaspi_notify(kSeg, to, 100 + me, 1, 0, GASPI_BLOCK));
  e.ops[to] += 3;
  MR_OK(gaspi_wait(0, GASPI_BLOCK));

  gaspi_atomic_value_t old = 0;
  for (int i = 0; i < 3; ++i)
    MR_OK(gaspi_atomic_fetch_add(kSeg, kAtomicOff, to, 1, &old, GASPI_BLOCK));
  MR_OK(gaspi_atomic_compare_swap(kSeg, kAtomicOff, to, ~0ul, 0, &old, GASPI_BLOCK));
  e.atomics[to] += 4;

  gaspi_rank_t from = 0;
  MR_OK(gaspi_passive_send(kSeg, kPassiveOff, to, 40, GASPI_BLOCK));
  MR_OK(gaspi_passive_receive(kSeg, kPassiveOff + 1024, &from, 40, GASPI_BLOCK));
  MR_CHECK(from == (me + n - 1) % n);
  e.passive[to] += 40;
}

} // namespace

int main() {
  // Any phase: the table is there before gaspi_proc_init.
  MR_OK(gaspi_statistic_counter_max(&g_max));
  MR_CHECK(g_max == 9);
  for (gaspi_statistic_counter_t c = 0; c < g_max; ++c) {
    gaspi_statistic_argument_t arg = GASPI_STATISTIC_ARGUMENT_NONE;
    gaspi_string_t name = nullptr, desc = nullptr;
    gaspi_number_t level = 0;
    MR_OK(gaspi_statistic_counter_info(c, &arg, &name, &desc, &level));
    MR_CHECK(name != nullptr && desc != nullptr && std::strlen(name) > 0 && std::strlen(desc) > 0);
    MR_CHECK(level >= 1); // spec §14.1.2
    MR_CHECK(arg == GASPI_STATISTIC_ARGUMENT_NONE || arg == GASPI_STATISTIC_ARGUMENT_RANK);
  }
  for (const char *name : kRankCounters) {
    gaspi_statistic_argument_t arg;
    gaspi_string_t cname, desc;
    gaspi_number_t level;
    MR_OK(gaspi_statistic_counter_info(counter(name), &arg, &cname, &desc, &level));
    MR_CHECK(arg == GASPI_STATISTIC_ARGUMENT_RANK && level == 1);
  }
  for (const char *name : kTimes) {
    gaspi_statistic_argument_t arg;
    gaspi_string_t cname, desc;
    gaspi_number_t level;
    MR_OK(gaspi_statistic_counter_info(counter(name), &arg, &cname, &desc, &level));
    MR_CHECK(arg == GASPI_STATISTIC_ARGUMENT_NONE && level == 2);
  }
  {
    gaspi_statistic_argument_t arg;
    gaspi_string_t cname, desc;
    gaspi_number_t level;
    gaspi_ulong v = 0;
    MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_info(g_max, &arg, &cname, &desc, &level));
    MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_info(~0u, &arg, &cname, &desc, &level));
    MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_get(g_max, 0, &v));
    MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_reset(g_max));
    MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_get(counter("bytes_written"), 0, &v)); // no ranks yet
    MR_OK(gaspi_statistic_counter_get(counter("queue_full"), 0, &v));
    MR_CHECK(v == 0);
  }

  gaspi_config_t config;
  MR_OK(gaspi_config_get(&config));
  config.queue_size_max = kQueueSize;
  MR_OK(gaspi_config_set(config));
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSeg, kSegSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_ulong v = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_statistic_counter_get(counter("bytes_written"), n, &v)); // rank out of range
  MR_OK(gaspi_statistic_counter_get(counter("queue_full"), 12345, &v));                 // argument ignored

  // Level 0 (the default): nothing is counted.
  Expected zero(n);
  run_pattern(me, n, zero);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  check_rank_counters(Expected(n), n);
  for (const char *name : kTimes)
    MR_CHECK(get(name) == 0);

  // Level 1: exact counts; the times (level 2) stay 0.
  MR_OK(gaspi_statistic_verbosity_level(1));
  Expected e(n);
  run_pattern(me, n, e);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  check_rank_counters(e, n);
  for (const char *name : kTimes)
    MR_CHECK(get(name) == 0);
  MR_CHECK(get("queue_full") == 0);

  // Refused posts: a full queue 1 refuses two more, and those count only as queue_full.
  for (gaspi_number_t i = 0; i < kQueueSize; ++i)
    MR_OK(gaspi_write(kSeg, kDataOff, me, kSeg, kDataOff + 4096, 1, 1, GASPI_BLOCK));
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_write(kSeg, kDataOff, me, kSeg, kDataOff + 4096, 1, 1, GASPI_BLOCK));
  MR_EXPECT(GASPI_QUEUE_FULL, gaspi_notify(kSeg, me, 200, 1, 1, GASPI_BLOCK));
  MR_OK(gaspi_wait(1, GASPI_BLOCK));
  e.written[me] += kQueueSize;
  e.ops[me] += kQueueSize;
  MR_CHECK(get("queue_full") == 2);
  check_rank_counters(e, n);

  // Level 2: the waiting times. Nobody sets notification 300, so the 30 ms wait times out; rank 0
  // enters the barrier 50 ms late, so the other ranks usually wait there. What is checked is that
  // the counter grew by the time this rank measured around its own barrier call (a loaded machine
  // may deschedule a rank past rank 0's delay, so that time is not assumed).
  MR_OK(gaspi_statistic_verbosity_level(2));
  gaspi_notification_id_t first = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kSeg, 300, 1, &first, 30));
  MR_CHECK(get("notify_wait_time_us") >= 25000);
  MR_CHECK(get("notify_wait_time_us") < 10000000);
  if (me == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const gaspi_ulong before_barrier = get("collective_time_us");
  const auto barrier_start = std::chrono::steady_clock::now();
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  const auto barrier_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - barrier_start).count();
  const gaspi_ulong coll = get("collective_time_us");
  // The library's timer runs inside the call: at most the call's time, and all of it but the entry
  // and exit (1 ms of slack for a preemption at either end).
  MR_CHECK(coll - before_barrier <= static_cast<gaspi_ulong>(barrier_us) + 1000);
  MR_CHECK(coll - before_barrier + 1000 >= static_cast<gaspi_ulong>(barrier_us) * 9 / 10);
  long sum = 0, mine = me;
  MR_OK(gaspi_allreduce(&mine, &sum, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(sum == static_cast<long>(n) * (n - 1) / 2);
  MR_CHECK(get("collective_time_us") >= coll);
  MR_OK(gaspi_write(kSeg, kDataOff, me, kSeg, kDataOff + 4096, 1, 0, GASPI_BLOCK));
  MR_OK(gaspi_wait(0, GASPI_BLOCK)); // counted; too short to check a value
  e.written[me] += 1;
  e.ops[me] += 1;
  check_rank_counters(e, n); // level 2 keeps the level-1 counters going

  // Back to 0: nothing moves; reading is still allowed (spec §14.1.4).
  MR_OK(gaspi_statistic_verbosity_level(0));
  const gaspi_ulong notify_wait = get("notify_wait_time_us");
  run_pattern(me, n, zero);
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kSeg, 300, 1, &first, 5));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  check_rank_counters(e, n);
  MR_CHECK(get("notify_wait_time_us") == notify_wait);

  // Reset: one counter, then all of them.
  MR_OK(gaspi_statistic_counter_reset(counter("bytes_written")));
  for (gaspi_rank_t t = 0; t < n; ++t)
    MR_CHECK(get("bytes_written", t) == 0 && get("bytes_read", t) == e.read[t]);
  for (gaspi_statistic_counter_t c = 0; c < g_max; ++c)
    MR_OK(gaspi_statistic_counter_reset(c));
  check_rank_counters(Expected(n), n);
  for (const char *name : kTimes)
    MR_CHECK(get(name) == 0);
  MR_CHECK(get("queue_full") == 0);

  // Counted once more, then read after gaspi_proc_term.
  MR_OK(gaspi_statistic_verbosity_level(1));
  MR_OK(gaspi_write(kSeg, kDataOff, me, kSeg, kDataOff + 4096, 100, 0, GASPI_BLOCK));
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  MR_CHECK(get("bytes_written", me) == 100 && get("ops_posted", me) == 1);
  if (me == 0)
    std::printf("SUCCESS mr_statistics\n");
  return 0;
}
