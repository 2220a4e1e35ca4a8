// Waiting after a death (docs/DESIGN.md "Failures"). Run under a launcher that lets the survivors go on
// (hygaspi-run --keep-going) or under mpirun, through tests/failure/run_dead_wait.sh:
//
//   dead_wait detect              rank 1 dies; rank 0 (a node peer) blocks in
//                                 gaspi_notify_waitsome(GASPI_BLOCK): it must get GASPI_ERROR, and
//                                 the state vector must show rank 1 CORRUPT (under mpirun
//                                 no launcher marks the death, the node peers must)
//   dead_wait receive_dead        every rank but 0 dies; gaspi_passive_receive(GASPI_BLOCK) must
//                                 return GASPI_ERROR at once, before and after rank 0 acknowledged
//                                 the deaths
//   dead_wait wait_again ACK      the last rank dies; the survivors see notify_waitsome and
//                                 passive_receive(GASPI_BLOCK) fail while the death is
//                                 unacknowledged, acknowledge it (ACK: statevec, purge,
//                                 passive_purge, group), and then block among themselves
//                                 successfully
//   dead_wait dead_sender [purge] rank 1 dies inside gaspi_passive_send to rank 0, between reserving
//                                 its frame and publishing it (HYGASPI_TEST_DIE_IN_PASSIVE_SEND=1);
//                                 the other ranks then send more messages than a ring holds, and
//                                 rank 0 must receive every one of them, in order per sender;
//                                 with "purge" rank 0 first calls gaspi_passive_queue_purge
//
// Rank 0 prints "SUCCESS dead_wait" once its checks passed. Under mpirun Open MPI ends the job soon
// after a death unless started with --enable-recovery; even then its MPI_Finalize waits for the
// dead ranks (a PMIx fence; measured: it hangs at exit in about half the runs), so under mpirun
// the survivors end with _exit after gaspi_proc_term.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "../mr/mr_util.hpp"
#include "../mr/stall_watch.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_timeout_t kLong = 20000;      // ms: survivors' own traffic
constexpr gaspi_notification_id_t kNever = 1; // nobody ever sets it
constexpr gaspi_notification_id_t kReady = 2;
constexpr gaspi_notification_id_t kGo = 3;
constexpr gaspi_offset_t kRecvOff = 0;
constexpr gaspi_offset_t kSendOff = 4096;
constexpr gaspi_offset_t kDataOff = 8192;
constexpr gaspi_size_t kMsg = 96;
constexpr int kMessagesPerSender = 1500; // more than a sender's ring holds (1024 frames of 128 B)

gaspi_rank_t g_me = 0, g_n = 0;
mr::StallWatch *g_watch = nullptr;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

char *seg() {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  return static_cast<char *>(p);
}

unsigned char pattern(gaspi_rank_t from, int msg, gaspi_size_t i) {
  return static_cast<unsigned char>(from * 41 + msg * 7 + i * 3 + 1);
}

// A call that must return `expected` within `limit_ms` (+ any machine stall seen meanwhile).
template <class Call> void expect_within(const char *what, gaspi_return_t expected, double limit_ms, Call &&call) {
  g_watch->reset();
  const auto t0 = Clock::now();
  const gaspi_return_t rc = call();
  const double ms = ms_since(t0);
  std::printf("rank %u: %s -> %s in %.1f ms (machine stall %.1f ms)\n", g_me, what, gaspi_error_str(rc), ms,
              g_watch->max_ms());
  std::fflush(stdout);
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s returned %s, expected %s", what, gaspi_error_str(rc), gaspi_error_str(expected));
  if (rc != expected)
    mr::fail(__FILE__, __LINE__, msg);
  std::snprintf(msg, sizeof msg, "%s took %.1f ms, more than %.0f ms + a stall of %.1f ms", what, ms, limit_ms,
                g_watch->max_ms());
  if (ms > limit_ms + g_watch->max_ms())
    mr::fail(__FILE__, __LINE__, msg);
}

// Polls the state vector until every rank in `dead` is CORRUPT (an acknowledgment of the deaths);
// every other rank must stay HEALTHY.
void await_corrupt(const std::vector<gaspi_rank_t> &dead) {
  std::vector<gaspi_state_t> states(g_n);
  const auto t0 = Clock::now();
  for (;;) {
    MR_OK(gaspi_state_vec_get(states.data()));
    bool all = true;
    for (gaspi_rank_t r : dead)
      all = all && states[r] == GASPI_STATE_CORRUPT;
    if (all)
      break;
    MR_CHECK(ms_since(t0) < 10000);
    sched_yield();
  }
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    if (std::find(dead.begin(), dead.end(), r) == dead.end())
      MR_CHECK(states[r] == GASPI_STATE_HEALTHY);
}

gaspi_group_t survivor_group(gaspi_rank_t victim) {
  gaspi_group_t g = 0;
  MR_OK(gaspi_group_create(&g));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    if (r != victim)
      MR_OK(gaspi_group_add(g, r));
  MR_OK(gaspi_group_commit(g, kLong));
  return g;
}

void wait_note(gaspi_notification_id_t id, gaspi_timeout_t timeout) {
  gaspi_notification_id_t got = 0;
  gaspi_notification_t val = 0;
  MR_OK(gaspi_notify_waitsome(kSeg, id, 1, &got, timeout));
  MR_OK(gaspi_notify_reset(kSeg, got, &val));
  MR_CHECK(got == id && val != 0);
}

// Rank 0 reports success; under mpirun every survivor then skips MPI_Finalize (see above).
void finish() {
  if (g_me == 0)
    std::printf("SUCCESS dead_wait\n");
  std::fflush(stdout);
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr)
    _exit(0);
}

// ---- detect: the node peer of a dead rank sees it die.
void detect() {
  MR_CHECK(g_n >= 2);
  if (g_me == 1)
    raise(SIGKILL);
  if (g_me != 0) { // other nodes (hybrid) need not see it; they wait until rank 0 is done
    gaspi_notification_id_t id = 0;
    (void)gaspi_notify_waitsome(kSeg, kGo, 1, &id, kLong);
    _exit(0);
  }
  const auto t0 = Clock::now();
  gaspi_notification_id_t id = 0;
  expect_within("gaspi_notify_waitsome(GASPI_BLOCK) beside a dead rank", GASPI_ERROR, 5000,
                [&] { return gaspi_notify_waitsome(kSeg, kNever, 1, &id, GASPI_BLOCK); });
  std::vector<gaspi_state_t> states(g_n);
  MR_OK(gaspi_state_vec_get(states.data()));
  MR_CHECK(states[1] == GASPI_STATE_CORRUPT);
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_CHECK(r == 1 || states[r] == GASPI_STATE_HEALTHY);
  std::printf("rank 0: saw rank 1 CORRUPT %.1f ms after it died\nSUCCESS dead_wait\n", ms_since(t0));
  std::fflush(stdout);
  for (gaspi_rank_t r = 2; r < g_n; ++r)
    (void)gaspi_notify(kSeg, r, kGo, 1, 0, kLong);
  (void)gaspi_wait(0, kLong);
  _exit(0); // the job is ending (or, under mpirun, may be ended by Open MPI at any moment)
}

// ---- receive_dead: passive_receive(GASPI_BLOCK) with every sender dead.
void receive_dead() {
  if (g_me != 0)
    raise(SIGKILL);
  gaspi_rank_t from = 0;
  // Unacknowledged deaths: the receive fails once a death is seen (a launcher marks it within
  // milliseconds, the 10 ms re-check of the wait notices it).
  expect_within("gaspi_passive_receive(GASPI_BLOCK), deaths unacknowledged", GASPI_ERROR, 2000,
                [&] { return gaspi_passive_receive(kSeg, kRecvOff, &from, kMsg, GASPI_BLOCK); });
  std::vector<gaspi_rank_t> dead;
  for (gaspi_rank_t r = 1; r < g_n; ++r)
    dead.push_back(r);
  await_corrupt(dead);
  // Acknowledged, but no rank is left that could send.
  expect_within("gaspi_passive_receive(GASPI_BLOCK), every sender dead", GASPI_ERROR, 1000,
                [&] { return gaspi_passive_receive(kSeg, kRecvOff, &from, kMsg, GASPI_BLOCK); });
  MR_OK(gaspi_proc_term(kLong));
  finish();
}

// ---- wait_again: survivors block among themselves again once the death is acknowledged.
void wait_again(const std::string &ack) {
  MR_CHECK(g_n >= 3);
  const gaspi_rank_t victim = static_cast<gaspi_rank_t>(g_n - 1);
  if (g_me == victim)
    raise(SIGKILL);
  gaspi_notification_id_t id = 0;
  gaspi_rank_t from = 0;
  expect_within("gaspi_notify_waitsome(GASPI_BLOCK), death unacknowledged", GASPI_ERROR, 2000,
                [&] { return gaspi_notify_waitsome(kSeg, kNever, 1, &id, GASPI_BLOCK); });
  expect_within("gaspi_passive_receive(GASPI_BLOCK), death unacknowledged", GASPI_ERROR, 2000,
                [&] { return gaspi_passive_receive(kSeg, kRecvOff, &from, kMsg, GASPI_BLOCK); });

  gaspi_group_t group = 0;
  bool have_group = false;
  if (ack == "statevec") {
    await_corrupt({victim});
  } else if (ack == "purge") {
    MR_OK(gaspi_queue_purge(0, kLong));
  } else if (ack == "passive_purge") {
    MR_OK(gaspi_passive_queue_purge(kLong));
  } else if (ack == "group") {
    group = survivor_group(victim);
    have_group = true;
  } else {
    mr::fail(__FILE__, __LINE__, "unknown acknowledgment");
  }

  // Rank 1 tells rank 0 it is ready, then rank 0 blocks until rank 1 writes and notifies. Rank 1
  // lets 100 ms pass first, only so that rank 0 really sleeps in the wait (the check does not
  // depend on it: the notification is the synchronisation).
  char *base = seg();
  if (g_me == 0) {
    MR_OK(gaspi_notify(kSeg, 1, kReady, 1, 0, kLong));
    MR_OK(gaspi_wait(0, kLong));
    expect_within("gaspi_notify_waitsome(GASPI_BLOCK) between survivors", GASPI_SUCCESS, kLong,
                  [&] { return gaspi_notify_waitsome(kSeg, kGo, 1, &id, GASPI_BLOCK); });
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(kSeg, kGo, &val));
    MR_CHECK(id == kGo && val == 1);
    for (gaspi_size_t i = 0; i < kMsg; ++i)
      MR_CHECK(static_cast<unsigned char>(base[kDataOff + i]) == pattern(1, 0, i));
    expect_within("gaspi_passive_receive(GASPI_BLOCK) between survivors", GASPI_SUCCESS, kLong,
                  [&] { return gaspi_passive_receive(kSeg, kRecvOff, &from, kMsg, GASPI_BLOCK); });
    MR_CHECK(from == 1);
    for (gaspi_size_t i = 0; i < kMsg; ++i)
      MR_CHECK(static_cast<unsigned char>(base[kRecvOff + i]) == pattern(1, 1, i));
  } else if (g_me == 1) {
    expect_within("gaspi_notify_waitsome(GASPI_BLOCK) between survivors", GASPI_SUCCESS, kLong,
                  [&] { return gaspi_notify_waitsome(kSeg, kReady, 1, &id, GASPI_BLOCK); });
    MR_OK(gaspi_notify_reset(kSeg, kReady, nullptr));
    usleep(100000);
    for (gaspi_size_t i = 0; i < kMsg; ++i)
      base[kSendOff + i] = static_cast<char>(pattern(1, 0, i));
    MR_OK(gaspi_write_notify(kSeg, kSendOff, 0, kSeg, kDataOff, kMsg, kGo, 1, 0, kLong));
    MR_OK(gaspi_wait(0, kLong));
    usleep(100000); // again only so that rank 0 sleeps in passive_receive
    for (gaspi_size_t i = 0; i < kMsg; ++i)
      base[kSendOff + i] = static_cast<char>(pattern(1, 1, i));
    MR_OK(gaspi_passive_send(kSeg, kSendOff, 0, kMsg, kLong));
  }
  if (!have_group)
    group = survivor_group(victim);
  MR_OK(gaspi_barrier(group, kLong));
  MR_OK(gaspi_proc_term(kLong));
  finish();
}

// ---- dead_sender: a sender dies between reserving a frame in rank 0's inbox and publishing it.
void dead_sender(bool purge) {
  MR_CHECK(g_n >= 3);
  const gaspi_rank_t victim = 1;
  char *base = seg();
  if (g_me == victim) {
    // HYGASPI_TEST_DIE_IN_PASSIVE_SEND=1 makes this send kill the process after its reservation.
    std::memset(base + kSendOff, 0x77, kMsg);
    (void)gaspi_passive_send(kSeg, kSendOff, 0, kMsg, kLong);
    std::fprintf(stderr, "rank %u: the test hook did not kill this rank inside gaspi_passive_send\n", g_me);
    raise(SIGKILL);
  }
  await_corrupt({victim}); // the victim reserved its frame before it died
  if (g_me == 0) {
    if (purge) {
      MR_OK(gaspi_passive_queue_purge(kLong));
      for (gaspi_rank_t r = 2; r < g_n; ++r)
        MR_OK(gaspi_notify(kSeg, r, kGo, 1, 0, kLong));
      MR_OK(gaspi_wait(0, kLong));
    }
    std::vector<int> next(g_n, 0);
    const int total = kMessagesPerSender * (g_n - 2);
    for (int k = 0; k < total; ++k) {
      gaspi_rank_t from = 0;
      std::memset(base + kRecvOff, 0, kMsg);
      const gaspi_return_t rc = gaspi_passive_receive(kSeg, kRecvOff, &from, kMsg, 5000);
      if (rc != GASPI_SUCCESS) {
        std::fprintf(stderr, "rank 0: message %d of %d: gaspi_passive_receive -> %s (ring wedged?)\n", k, total,
                     gaspi_error_str(rc));
        MR_CHECK(rc == GASPI_SUCCESS);
      }
      MR_CHECK(from >= 2 && from < g_n && next[from] < kMessagesPerSender);
      for (gaspi_size_t i = 0; i < kMsg; ++i)
        MR_CHECK(static_cast<unsigned char>(base[kRecvOff + i]) == pattern(from, next[from], i));
      ++next[from];
    }
    std::printf("rank 0: received all %d messages of the %d live senders\n", total, g_n - 2);
  } else {
    if (purge)
      wait_note(kGo, kLong);
    for (int m = 0; m < kMessagesPerSender; ++m) {
      for (gaspi_size_t i = 0; i < kMsg; ++i)
        base[kSendOff + i] = static_cast<char>(pattern(g_me, m, i));
      MR_OK(gaspi_passive_send(kSeg, kSendOff, 0, kMsg, kLong));
    }
  }
  const gaspi_group_t group = survivor_group(victim);
  MR_OK(gaspi_barrier(group, kLong));
  MR_OK(gaspi_proc_term(kLong));
  finish();
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string arg = argc > 2 ? argv[2] : "";
  mr_init(g_me, g_n);
  mr::StallWatch watch;
  g_watch = &watch;
  MR_OK(gaspi_segment_create(kSeg, 1 << 16, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (mode == "detect")
    detect();
  else if (mode == "receive_dead")
    receive_dead();
  else if (mode == "wait_again")
    wait_again(arg);
  else if (mode == "dead_sender")
    dead_sender(arg == "purge");
  else
    mr::fail(__FILE__, __LINE__, "usage: dead_wait detect|receive_dead|wait_again ACK|dead_sender [purge]");
  return 0;
}
