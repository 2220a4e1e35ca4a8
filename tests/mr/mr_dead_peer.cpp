// A rank dies in the middle of a job; the survivors must notice it within their timeouts, see it
// CORRUPT in the state vector, purge their queues, and go on in a group without it.
//
//   hygaspi-run --keep-going -n N mr_dead_peer MODE [VICTIM]      (N >= 3)
//
// MODE: sigkill  the victim raise(SIGKILL)s itself after the first barrier
//       exit0    the victim _exit(0)s without gaspi_proc_term
//       kill     the lowest survivor kills the victim with gaspi_proc_kill
// VICTIM defaults to the last rank. The lowest survivor prints "SUCCESS mr_dead_peer".
// Every call that involves the victim must end within its timeout + 1 s (measured); what the
// calls that may legitimately succeed on the shm path return is printed as "RECORD ...".
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "mr_util.hpp"
#include "stall_watch.hpp"

namespace {

constexpr gaspi_timeout_t kTimeout = 2000;      // ms, for every call that involves the victim
constexpr gaspi_timeout_t kLongTimeout = 20000; // ms, for the survivors' own traffic
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kSegSize = 1 << 20;
constexpr gaspi_offset_t kPassiveOff = 0;   // passive send / receive buffers
constexpr gaspi_offset_t kAtomicOff = 4096; // one counter per rank's segment
constexpr gaspi_offset_t kDataOff = 8192;   // survivors' ring write: [kDataOff, +kDataLen)
constexpr gaspi_offset_t kSendOff = 65536;  // source of that write
constexpr gaspi_size_t kDataLen = 4096;

using Clock = std::chrono::steady_clock;
gaspi_rank_t g_me = 0;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The bound of a call is its timeout + 1 s + the machine stall seen while it ran (stall_watch.hpp).
using mr::StallWatch;
StallWatch *g_watch = nullptr;

// Runs a call that involves the dead rank: it must fail (GASPI_ERROR or GASPI_TIMEOUT) and end
// within its timeout + 1 s.
template <class Call> void expect_failure_in_time(const char *what, gaspi_timeout_t timeout, Call &&call) {
  g_watch->reset();
  const auto t0 = Clock::now();
  const gaspi_return_t rc = call();
  const double ms = ms_since(t0);
  const double stall = g_watch->max_ms();
  std::printf("rank %u: %s -> %s in %.1f ms (machine stall %.1f ms)\n", g_me, what, gaspi_error_str(rc), ms, stall);
  std::fflush(stdout);
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s returned %d (%s), expected GASPI_ERROR or GASPI_TIMEOUT", what, (int)rc,
                gaspi_error_str(rc));
  if (rc != GASPI_ERROR && rc != GASPI_TIMEOUT)
    mr::fail(__FILE__, __LINE__, msg);
  std::snprintf(msg, sizeof msg, "%s took %.1f ms, more than its timeout %lu ms + 1 s + a stall of %.1f ms", what, ms,
                (unsigned long)timeout, stall);
  if (ms >= static_cast<double>(timeout) + 1000.0 + stall)
    mr::fail(__FILE__, __LINE__, msg);
}

char *seg_ptr() {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  return static_cast<char *>(p);
}

unsigned char pattern(gaspi_rank_t from, gaspi_size_t i) { return static_cast<unsigned char>(from * 37 + i * 11 + 5); }

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "sigkill" && mode != "exit0" && mode != "kill") {
    std::fprintf(stderr, "usage: %s sigkill|exit0|kill [victim]\n", argv[0]);
    return 2;
  }
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  g_me = me;
  StallWatch watch;
  g_watch = &watch;
  MR_CHECK(n >= 3); // two survivors at least, to form a group
  const gaspi_rank_t victim =
      argc > 2 ? static_cast<gaspi_rank_t>(std::atoi(argv[2])) : static_cast<gaspi_rank_t>(n - 1);
  MR_CHECK(victim < n);
  std::vector<gaspi_rank_t> survivors;
  for (gaspi_rank_t r = 0; r < n; ++r)
    if (r != victim)
      survivors.push_back(r);
  const gaspi_rank_t first = survivors.front();

  MR_OK(gaspi_segment_create(kSeg, kSegSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  if (me == victim) {
    if (mode == "sigkill")
      raise(SIGKILL);
    if (mode == "exit0")
      _exit(0);
    for (;;) // "kill": wait to be killed; the launcher's timeout bounds this if nobody does
      pause();
  }
  if (mode == "kill") {
    // The killer must not kill before every survivor has left the barrier above: each one
    // notifies it (id 2n + rank) after the barrier.
    if (me != first) {
      MR_OK(gaspi_notify(kSeg, first, static_cast<gaspi_notification_id_t>(2 * n + me), 1, 1, kLongTimeout));
      MR_OK(gaspi_wait(1, kLongTimeout));
    } else {
      for (gaspi_rank_t r : survivors) {
        if (r == first)
          continue;
        gaspi_notification_id_t id = 0;
        gaspi_notification_t val = 0;
        MR_OK(gaspi_notify_waitsome(kSeg, static_cast<gaspi_notification_id_t>(2 * n + r), 1, &id, kLongTimeout));
        MR_OK(gaspi_notify_reset(kSeg, id, &val));
        MR_CHECK(val == 1);
      }
    }
  }
  if (mode == "kill" && me == first) {
    const auto t0 = Clock::now();
    MR_OK(gaspi_proc_kill(victim, kTimeout));
    std::printf("rank %u: gaspi_proc_kill(%u) -> GASPI_SUCCESS in %.1f ms\n", me, victim, ms_since(t0));
  }

  // 1. A barrier entered while the victim is dying or dead.
  expect_failure_in_time("gaspi_barrier(GASPI_GROUP_ALL)", kTimeout,
                         [] { return gaspi_barrier(GASPI_GROUP_ALL, kTimeout); });

  // 2. The state vector: the victim CORRUPT (once the launcher has seen it die), the rest HEALTHY.
  {
    std::vector<gaspi_state_t> states(n, GASPI_STATE_HEALTHY);
    const auto t0 = Clock::now();
    for (;;) {
      MR_OK(gaspi_state_vec_get(states.data()));
      if (states[victim] == GASPI_STATE_CORRUPT)
        break;
      MR_CHECK(ms_since(t0) < 5000); // the launcher marks it dead within milliseconds
      usleep(1000);
    }
    for (gaspi_rank_t r = 0; r < n; ++r)
      MR_CHECK(states[r] == (r == victim ? GASPI_STATE_CORRUPT : GASPI_STATE_HEALTHY));
  }

  // 3. Collectives and waits that need the victim.
  {
    std::uint64_t in = me + 1, out = 0;
    expect_failure_in_time("gaspi_allreduce(GASPI_GROUP_ALL)", kTimeout, [&] {
      return gaspi_allreduce(&in, &out, 1, GASPI_OP_SUM, GASPI_TYPE_ULONG, GASPI_GROUP_ALL, kTimeout);
    });
  }
  {
    gaspi_notification_id_t id = 0;
    expect_failure_in_time("gaspi_notify_waitsome(victim's notification)", kTimeout,
                           [&] { return gaspi_notify_waitsome(kSeg, victim, 1, &id, kTimeout); });
  }
  {
    std::memset(seg_ptr() + kPassiveOff, 0x5a, 64);
    expect_failure_in_time("gaspi_passive_send(victim)", kTimeout,
                           [&] { return gaspi_passive_send(kSeg, kPassiveOff, victim, 64, kTimeout); });
    gaspi_rank_t from = 0;
    expect_failure_in_time("gaspi_passive_receive", kTimeout,
                           [&] { return gaspi_passive_receive(kSeg, kPassiveOff, &from, 64, kTimeout); });
  }

  // 4. Calls that may complete on the shm path, because the victim's memory is still mapped:
  //    recorded, and bounded in time.
  {
    gaspi_atomic_value_t old = 0;
    g_watch->reset();
    auto t0 = Clock::now();
    gaspi_return_t rc = gaspi_atomic_fetch_add(kSeg, kAtomicOff, victim, 1, &old, kTimeout);
    double ms = ms_since(t0);
    std::printf("RECORD rank %u: gaspi_atomic_fetch_add(dead rank %u) -> %s (old %lu) in %.1f ms\n", me, victim,
                gaspi_error_str(rc), (unsigned long)old, ms);
    MR_CHECK(ms < kTimeout + 1000.0 + g_watch->max_ms());

    g_watch->reset();
    t0 = Clock::now();
    gaspi_return_t wrc = gaspi_write(kSeg, kSendOff, victim, kSeg, kDataOff, kDataLen, 0, kTimeout);
    gaspi_return_t waitrc = wrc == GASPI_SUCCESS ? gaspi_wait(0, kTimeout) : GASPI_SUCCESS;
    ms = ms_since(t0);
    std::printf("RECORD rank %u: gaspi_write(dead rank) -> %s, gaspi_wait -> %s in %.1f ms\n", me, gaspi_error_str(wrc),
                gaspi_error_str(waitrc), ms);
    MR_CHECK(ms < 2.0 * kTimeout + 1000.0 + g_watch->max_ms());
    // As with GPI-2 (whose fault-tolerance tests rely on it): the post to a rank known dead is
    // accepted, and the wait reports the failure; the queue is empty and usable after it.
    MR_CHECK(wrc == GASPI_SUCCESS);
    MR_CHECK(waitrc == GASPI_ERROR);
    gaspi_number_t left = 1;
    MR_OK(gaspi_queue_size(0, &left));
    MR_CHECK(left == 0);
    MR_OK(gaspi_wait(0, kTimeout));
    // The list and notify forms too; a purge drops the failed requests without an error.
    gaspi_segment_id_t seg_l[2] = {kSeg, kSeg}, seg_r[2] = {kSeg, kSeg};
    gaspi_offset_t off_l[2] = {kSendOff, kSendOff}, off_r[2] = {kDataOff, kDataOff};
    gaspi_size_t sizes[2] = {8, 8};
    MR_OK(gaspi_write_list_notify(2, seg_l, off_l, victim, seg_r, off_r, sizes, kSeg, 0, 1, 0, kTimeout));
    MR_EXPECT(GASPI_ERROR, gaspi_wait(0, kTimeout));
    MR_OK(gaspi_notify(kSeg, victim, 0, 1, 1, kTimeout));
    MR_OK(gaspi_read(kSeg, kSendOff, victim, kSeg, kDataOff, 8, 1, kTimeout));
    MR_OK(gaspi_queue_size(1, &left));
    MR_CHECK(left == 2);
    std::fflush(stdout);
  }

  // 5. Purges succeed and leave the queues usable.
  for (gaspi_queue_id_t q = 0; q < 2; ++q)
    MR_OK(gaspi_queue_purge(q, kTimeout));
  MR_OK(gaspi_passive_queue_purge(kTimeout));
  {
    gaspi_number_t size = 1;
    MR_OK(gaspi_queue_size(0, &size));
    MR_CHECK(size == 0);
  }

  // 6. The survivors form a group without the victim and work in it.
  gaspi_group_t group = 0;
  MR_OK(gaspi_group_create(&group));
  for (gaspi_rank_t r : survivors)
    MR_OK(gaspi_group_add(group, r));
  MR_OK(gaspi_group_commit(group, kLongTimeout));
  MR_OK(gaspi_barrier(group, kLongTimeout));
  {
    std::uint64_t in[2] = {me + 1u, 1}, out[2] = {0, 0};
    MR_OK(gaspi_allreduce(in, out, 2, GASPI_OP_SUM, GASPI_TYPE_ULONG, group, kLongTimeout));
    std::uint64_t expect = 0;
    for (gaspi_rank_t r : survivors)
      expect += r + 1u;
    MR_CHECK(out[0] == expect && out[1] == survivors.size());
  }

  // 7. Queues after the purge: each survivor writes a block with a notification to the next one
  //    (write_notify on queue 0, gaspi_wait) and verifies what the previous one wrote.
  {
    const auto pos = static_cast<std::size_t>(std::find(survivors.begin(), survivors.end(), me) - survivors.begin());
    const gaspi_rank_t next = survivors[(pos + 1) % survivors.size()];
    const gaspi_rank_t prev = survivors[(pos + survivors.size() - 1) % survivors.size()];
    char *base = seg_ptr();
    for (gaspi_size_t i = 0; i < kDataLen; ++i)
      base[kSendOff + i] = static_cast<char>(pattern(me, i));
    const gaspi_notification_id_t note = static_cast<gaspi_notification_id_t>(n + me); // n + sender
    MR_OK(gaspi_write_notify(kSeg, kSendOff, next, kSeg, kDataOff, kDataLen, note, 1, 0, kLongTimeout));
    MR_OK(gaspi_wait(0, kLongTimeout));
    gaspi_notification_id_t got = 0;
    MR_OK(gaspi_notify_waitsome(kSeg, static_cast<gaspi_notification_id_t>(n + prev), 1, &got, kLongTimeout));
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(kSeg, got, &val));
    MR_CHECK(got == n + prev && val == 1);
    for (gaspi_size_t i = 0; i < kDataLen; ++i)
      MR_CHECK(static_cast<unsigned char>(base[kDataOff + i]) == pattern(prev, i));

    // Passive messages among survivors after gaspi_passive_queue_purge.
    MR_OK(gaspi_barrier(group, kLongTimeout)); // everyone has purged and written before anyone sends
    for (gaspi_size_t i = 0; i < 64; ++i)
      base[kPassiveOff + i] = static_cast<char>(pattern(me, i));
    MR_OK(gaspi_passive_send(kSeg, kPassiveOff, next, 64, kLongTimeout));
    gaspi_rank_t from = 0;
    MR_OK(gaspi_passive_receive(kSeg, kPassiveOff + 128, &from, 64, kLongTimeout));
    MR_CHECK(from == prev);
    for (gaspi_size_t i = 0; i < 64; ++i)
      MR_CHECK(static_cast<unsigned char>(base[kPassiveOff + 128 + i]) == pattern(prev, i));

    // Atomics among survivors: every survivor adds its rank + 1 to the first survivor's counter.
    gaspi_atomic_value_t old = 0;
    MR_OK(gaspi_atomic_fetch_add(kSeg, kAtomicOff + 8, first, me + 1u, &old, kLongTimeout));
    MR_OK(gaspi_barrier(group, kLongTimeout));
    if (me == first) {
      std::uint64_t expect = 0;
      for (gaspi_rank_t r : survivors)
        expect += r + 1u;
      std::uint64_t v = 0;
      std::memcpy(&v, base + kAtomicOff + 8, sizeof v);
      MR_CHECK(v == expect);
    }
  }

  // 8. A clean end: gaspi_proc_term must not wait for the dead rank.
  MR_OK(gaspi_barrier(group, kLongTimeout));
  const auto t0 = Clock::now();
  MR_OK(gaspi_proc_term(kTimeout));
  std::printf("rank %u: gaspi_proc_term -> GASPI_SUCCESS in %.1f ms\n", me, ms_since(t0));
  if (me == first)
    std::printf("SUCCESS mr_dead_peer\n");
  return 0;
}
