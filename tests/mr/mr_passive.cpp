// Passive communication (spec §9): many-to-one delivery with every byte, sender and per-sender
// FIFO order checked; fairness between blocked senders; receive timeouts that lose nothing; a
// blocked receiver that sleeps; a send that times out on a full ring and sends nothing;
// truncation, purge and bad input.
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr int kThreads = 2;                // sending threads per rank
constexpr std::uint32_t kPerThread = 1000; // per thread from 4 ranks on (many_to_one: 8000 at least in all)

gaspi_size_t g_max = 0; // passive_transfer_size_max
char *g_base = nullptr; // segment kSeg

// Layout of kSeg: one staging area per sending thread, then the receive area, then a spare area.
gaspi_offset_t stage_off(int t) { return static_cast<gaspi_offset_t>(t) * g_max; }
gaspi_offset_t recv_off() { return kThreads * g_max; }
gaspi_offset_t spare_off() { return (kThreads + 1) * g_max; }

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

// Size of message `i` of thread `t` of rank `s`: mostly small, every 8th anywhere in [1, max],
// every 64th exactly max, and the first of each thread 1 byte.
gaspi_size_t msg_size(gaspi_rank_t s, int t, std::uint32_t i) {
  const std::uint64_t h = mix((std::uint64_t{s} << 40) ^ (std::uint64_t(t) << 32) ^ i);
  if (i == 0)
    return 1;
  if (i % 64 == 0)
    return g_max;
  if (i % 8 == 0)
    return 1 + h % g_max;
  return 1 + h % 512;
}

// Byte j of that message: byte 0 names the thread, bytes 1..4 the index, the rest a pattern.
std::uint8_t msg_byte(gaspi_rank_t s, int t, std::uint32_t i, std::size_t j) {
  if (j == 0)
    return static_cast<std::uint8_t>(t);
  if (j <= 4)
    return static_cast<std::uint8_t>(i >> (8 * (j - 1)));
  return static_cast<std::uint8_t>(s * 131u + i * 7u + static_cast<unsigned>(t) * 31u + j * 13u + (j >> 8));
}

void fill(char *dst, gaspi_rank_t s, int t, std::uint32_t i) {
  const gaspi_size_t n = msg_size(s, t, i);
  for (std::size_t j = 0; j < n; ++j)
    dst[j] = static_cast<char>(msg_byte(s, t, i, j));
}

// Every rank, rank 0 included, sends kThreads * per_thread messages to rank 0 from kThreads
// threads; rank 0 receives them all on its main thread and checks sender, size, each byte and the
// order per (sender, thread). Fairness: the receiver is slower than the senders (it checks every
// byte), so the ring is full most of the time and the senders block on it. In the first half of
// the messages received once all threads have started, no sender may fall far behind an even
// share (bounds below). Every job sends at least 8000 messages (each thread 1000 from 4 ranks on,
// 4000 at 1), so that the window spans several scheduler periods at any rank count: at 1 rank and 1000 per
// thread it lasted about a millisecond, and a thread that a loaded machine left off its CPU that
// long delivered nothing in it (0 of 768, three times in a row). Returns whether every rank found
// the window fair: a sender the OS left off
// its CPU for the whole window looks starved too (a 1-rank job on a loaded 2-core machine: 0 of
// 640 messages in a window of about a millisecond), so the caller repeats the measurement, and
// only a sender starved in every attempt (what an unfair ring does) fails the test.
bool many_to_one(gaspi_rank_t me, gaspi_rank_t n) {
  const std::uint32_t per_thread = n < 4 ? kPerThread * 4 / n : kPerThread;
  int fair = 1;
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t)
    senders.emplace_back([me, t, per_thread] {
      char *stage = g_base + stage_off(t);
      for (std::uint32_t i = 0; i < per_thread; ++i) {
        fill(stage, me, t, i);
        MR_OK(gaspi_passive_send(kSeg, stage_off(t), 0, msg_size(me, t, i), GASPI_BLOCK));
      }
    });
  if (me == 0) {
    const std::uint64_t total = std::uint64_t{n} * kThreads * per_thread;
    std::vector<std::uint32_t> next(std::size_t{n} * kThreads, 0); // expected index
    std::vector<std::uint16_t> order;                              // (sender, thread) of each message, in arrival order
    order.reserve(total);
    const auto *got = reinterpret_cast<const std::uint8_t *>(g_base + recv_off());
    for (std::uint64_t k = 0; k < total; ++k) {
      gaspi_rank_t from = 0xffff;
      MR_OK(gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_BLOCK));
      MR_CHECK(from < n);
      const int t = got[0];
      MR_CHECK(t < kThreads);
      std::uint32_t &i = next[std::size_t{from} * kThreads + t];
      MR_CHECK(i < per_thread);
      // A message out of order would have another index in bytes 1..4 (or another size).
      const gaspi_size_t size = msg_size(from, t, i);
      for (std::size_t j = 0; j < size; ++j)
        if (got[j] != msg_byte(from, t, i, j)) {
          std::fprintf(stderr, "message %u of rank %u thread %d: byte %zu of %lu is %u, expected %u\n", i, from, t, j,
                       static_cast<unsigned long>(size), got[j], msg_byte(from, t, i, j));
          MR_CHECK(!"received bytes differ from the sent ones (or FIFO order broken)");
        }
      if (size < g_max) // nothing beyond the message was written
        MR_CHECK(got[size] == 0xEE);
      std::memset(g_base + recv_off(), 0xEE, size);
      order.push_back(static_cast<std::uint16_t>(from * kThreads + t));
      ++i;
    }
    for (std::size_t x = 0; x < next.size(); ++x)
      MR_CHECK(next[x] == per_thread);
    // The window starts once every thread has delivered its first message, so that a thread that
    // the OS started late (2 cores, 8 ranks, other jobs) is not taken for a starved one; it ends
    // halfway through the rest.
    const std::size_t senders_all = next.size();
    std::vector<std::uint64_t> first_at(senders_all, total), last_at(senders_all, 0);
    for (std::uint64_t k = 0; k < total; ++k) {
      first_at[order[k]] = std::min(first_at[order[k]], k);
      last_at[order[k]] = k;
    }
    const std::uint64_t begin = *std::max_element(first_at.begin(), first_at.end());
    const std::uint64_t end = begin + (total - begin) / 2;
    std::vector<std::uint32_t> in_window(senders_all, 0);
    for (std::uint64_t k = begin; k < end; ++k)
      ++in_window[order[k]];
    std::printf("fairness (messages in [%lu, %lu) of %lu, per sender.thread):", static_cast<unsigned long>(begin),
                static_cast<unsigned long>(end), static_cast<unsigned long>(total));
    for (std::size_t x = 0; x < senders_all; ++x)
      std::printf(" %zu.%zu:%u", x / kThreads, x % kThreads, in_window[x]);
    std::printf("\n");
    std::fflush(stdout);
    // Threads still sending at the end of the window ("busy") share it; an even share is
    // window / busy. Each busy thread must have delivered something in the window (a sender the
    // ring starves delivers nothing), and each rank a tenth of its busy threads' even shares.
    // Tighter per-thread bounds measured the OS, not the ring: a thread that the scheduler leaves
    // off the CPU sends nothing, and on a loaded 2-core machine one of two threads of a rank got
    // 47 of 987 messages (a tenth of its share was 49); mpi.mr_passive.n4 failed a fifth-per-rank
    // bound the same way with one core busy.
    std::uint64_t busy = 0;
    for (std::size_t x = 0; x < senders_all; ++x)
      busy += last_at[x] >= end ? 1 : 0;
    MR_CHECK(busy > 0); // the last message received lies beyond the window
    const double even = static_cast<double>(end - begin) / static_cast<double>(busy);
    // With every rank on one CPU (CI's contention pass) the share is the scheduler's: over MPI the
    // remote rank's threads delivered 2-6% of the window against the local ones' 95%, on this tree
    // and on the one before the MPI credits alike. The bound is checked where the ranks have CPUs.
    cpu_set_t mask;
    const bool one_cpu = sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) == 1;
    if (one_cpu) {
      std::printf("fairness: per-rank bound not checked: this rank may use one CPU only\n");
      std::fflush(stdout);
    }
    for (gaspi_rank_t s = 0; s < n && !one_cpu; ++s) {
      std::uint32_t of_rank = 0, busy_in_rank = 0;
      for (int t = 0; t < kThreads; ++t) {
        const std::size_t x = std::size_t{s} * kThreads + t;
        if (last_at[x] < end)
          continue;
        ++busy_in_rank;
        of_rank += in_window[x];
        fair &= in_window[x] >= 1 ? 1 : 0;
      }
      // A rank one of whose threads finished early has a thread the scheduler may have starved
      // for most of the window (CI, first pass: 7 of 1963 messages while its sibling, done by then,
      // had sent 967): only its busy threads' delivering something holds there.
      if (busy_in_rank == kThreads)
        fair &= of_rank >= even * busy_in_rank / 10 ? 1 : 0;
    }
    if (fair == 0) {
      std::printf("fairness: a busy sender fell short in this window\n");
      std::fflush(stdout);
    }
    // Nothing more is pending.
    gaspi_rank_t from = 0;
    MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_TEST));
  }
  for (auto &s : senders)
    s.join();
  int all_fair = 0;
  MR_OK(gaspi_allreduce(&fair, &all_fair, 1, GASPI_OP_MIN, GASPI_TYPE_INT, GASPI_GROUP_ALL, GASPI_BLOCK));
  return all_fair == 1;
}

// Receives with GASPI_TEST and with a short timeout find nothing and take nothing: a message sent
// afterwards is received.
void receive_timeout(gaspi_rank_t me, gaspi_rank_t n) {
  gaspi_rank_t from = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_TEST));
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, 20));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  // Everyone sends one 8-byte message to its right neighbour, which receives it.
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((me + 1) % n);
  const gaspi_rank_t left = static_cast<gaspi_rank_t>((me + n - 1) % n);
  const std::uint64_t token = 0xC0FFEE00ull + me;
  std::memcpy(g_base + spare_off(), &token, sizeof token); // the offset need not be aligned
  MR_OK(gaspi_passive_send(kSeg, spare_off(), to, 8, GASPI_BLOCK));
  MR_OK(gaspi_passive_receive(kSeg, recv_off(), &from, 8, GASPI_BLOCK));
  MR_CHECK(from == left);
  std::uint64_t got = 0;
  std::memcpy(&got, g_base + recv_off(), sizeof got);
  MR_CHECK(got == 0xC0FFEE00ull + left);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

double thread_cpu_ms() {
  rusage ru{};
  MR_CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
  auto ms = [](const timeval &tv) { return tv.tv_sec * 1e3 + tv.tv_usec / 1e3; };
  return ms(ru.ru_utime) + ms(ru.ru_stime);
}

// A receiver that waits 500 ms for nothing must sleep: it may use at most 150 ms of CPU, where a
// wait that spins uses all 500 (measured 64-91 ms at 8 ranks on the hybrid path, and 102 ms in 2
// of 21 runs on a loaded 2-core machine, which failed the former bound of 100; not checked under
// ThreadSanitizer, whose instrumentation multiplies the CPU of every wake: 107 ms measured where
// the plain build used 64-88). Then the other ranks send and the receive succeeds.
#if defined(__SANITIZE_THREAD__)
constexpr bool kMeasuresCpu = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kMeasuresCpu = false;
#else
constexpr bool kMeasuresCpu = true;
#endif
#else
constexpr bool kMeasuresCpu = true;
#endif
void blocked_receiver_sleeps(gaspi_rank_t me, gaspi_rank_t n) {
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 0) {
    gaspi_rank_t from = 0;
    const double cpu0 = thread_cpu_ms();
    const auto t0 = std::chrono::steady_clock::now();
    MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, 500));
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = thread_cpu_ms() - cpu0;
    std::printf("blocked receive: %.0f ms wall, %.1f ms CPU\n", wall, cpu);
    MR_CHECK(wall >= 490);
    if (kMeasuresCpu)
      MR_CHECK(cpu < 150);
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  const std::uint32_t token = 1000u + me;
  std::memcpy(g_base + spare_off(), &token, sizeof token);
  if (me != 0 || n == 1)
    MR_OK(gaspi_passive_send(kSeg, spare_off(), 0, 4, GASPI_BLOCK));
  if (me == 0) {
    std::vector<int> seen(n, 0);
    for (gaspi_rank_t k = 0; k < (n == 1 ? 1 : n - 1); ++k) {
      gaspi_rank_t from = 0xffff;
      MR_OK(gaspi_passive_receive(kSeg, recv_off(), &from, 4, GASPI_BLOCK));
      MR_CHECK(from < n && seen[from]++ == 0);
      std::uint32_t got = 0;
      std::memcpy(&got, g_base + recv_off(), sizeof got);
      MR_CHECK(got == 1000u + from);
    }
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

// Each rank fills its own ring: the send that finds it full returns GASPI_TIMEOUT and has sent
// nothing, so exactly the messages sent before it come back, in order. A rank's ring in its own
// inbox holds 128 KiB with the default passive_transfer_size_max: 2048 messages of 4 bytes.
void full_ring_timeout(gaspi_rank_t me) {
  constexpr std::uint32_t kRingFrames = 2048;
  std::uint32_t sent = 0;
  for (;;) {
    std::memcpy(g_base + spare_off(), &sent, sizeof sent); // offsets are deliberately unaligned
    gaspi_return_t rc = gaspi_passive_send(kSeg, spare_off(), me, 4, sent % 2 ? GASPI_TEST : 5);
    if (rc == GASPI_TIMEOUT)
      break;
    MR_OK(rc);
    ++sent;
    MR_CHECK(sent <= kRingFrames);
  }
  MR_CHECK(sent == kRingFrames);
  for (std::uint32_t k = 0; k < sent; ++k) {
    gaspi_rank_t from = 0xffff;
    MR_OK(gaspi_passive_receive(kSeg, recv_off(), &from, 4, GASPI_TEST));
    MR_CHECK(from == me);
    std::uint32_t got = ~0u;
    std::memcpy(&got, g_base + recv_off(), sizeof got);
    MR_CHECK(got == k);
  }
  gaspi_rank_t from = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, 4, GASPI_TEST));
  if (me == 0)
    std::printf("ring of rank 0 held %u messages\n", sent);
}

// A message longer than the receive's size: GASPI_ERROR, the first `size` bytes delivered, the
// message consumed. Purge discards what is pending.
void truncate_and_purge(gaspi_rank_t me) {
  char *stage = g_base + spare_off();
  for (gaspi_size_t j = 0; j < g_max; ++j)
    stage[j] = static_cast<char>(j * 3 + 1);
  std::memset(g_base + recv_off(), 0, g_max);
  MR_OK(gaspi_passive_send(kSeg, spare_off(), me, g_max, GASPI_BLOCK));
  gaspi_rank_t from = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_passive_receive(kSeg, recv_off(), &from, 16, GASPI_BLOCK));
  for (int j = 0; j < 16; ++j)
    MR_CHECK(g_base[recv_off() + j] == static_cast<char>(j * 3 + 1));
  MR_CHECK(g_base[recv_off() + 16] == 0);
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_TEST));

  for (int k = 0; k < 3; ++k)
    MR_OK(gaspi_passive_send(kSeg, spare_off(), me, 8, GASPI_BLOCK));
  MR_OK(gaspi_passive_queue_purge(GASPI_BLOCK));
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_TEST));
  // The ring still works after a purge.
  MR_OK(gaspi_passive_send(kSeg, spare_off(), me, 8, GASPI_BLOCK));
  MR_OK(gaspi_passive_receive(kSeg, recv_off(), &from, 8, GASPI_BLOCK));
  MR_CHECK(from == me);
}

void bad_input(gaspi_rank_t me, gaspi_rank_t n) {
  gaspi_rank_t from = 0;
  MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_send(kSeg, 0, me, 0, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_send(kSeg, 0, me, g_max + 1, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_RANK, gaspi_passive_send(kSeg, 0, n, 8, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_passive_send(7, 0, me, 8, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_passive_send(kSeg, spare_off() + g_max, me, 8, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_receive(kSeg, recv_off(), &from, 0, GASPI_TEST));
  MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_receive(kSeg, recv_off(), &from, g_max + 1, GASPI_TEST));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_passive_receive(7, 0, &from, 8, GASPI_TEST));
  MR_EXPECT(GASPI_ERR_NULLPTR, gaspi_passive_receive(kSeg, recv_off(), nullptr, 8, GASPI_TEST));
  // None of the rejected sends left anything behind.
  MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, recv_off(), &from, g_max, GASPI_TEST));
}

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_passive_transfer_size_max(&g_max));
  MR_CHECK(g_max >= 8);
  MR_OK(gaspi_segment_create(kSeg, (kThreads + 2) * g_max, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&g_base)));
  std::memset(g_base + recv_off(), 0xEE, g_max);

  bad_input(me, n);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  bool fair = false;
  for (int attempt = 0; attempt < 3 && !fair; ++attempt)
    fair = many_to_one(me, n);
  MR_CHECK(fair); // starved in three windows in a row: the ring, not the scheduler
  receive_timeout(me, n);
  blocked_receiver_sleeps(me, n);
  full_ring_timeout(me);
  truncate_and_purge(me);
  mr_finish("mr_passive");
  return 0;
}
