// Regression test for the "needs a flush" race (mpi_rma/transport.hpp): one
// thread posts gaspi_write on queue kQ while another calls gaspi_wait(kQ) in a loop. Once the
// poster's own gaspi_wait(kQ) has returned, every one of its writes must be at the target. With
// the flag set BEFORE the MPI_Put, a concurrent wait could clear it and flush between the flag and
// the put; the poster's wait then found it clear and returned with the put unflushed. The flag is
// now set after the put (mpi_rma/transport.hpp). The race window is a few instructions wide, so
// this test can pass by luck on the old code; it is here to catch the regression when it shows.
// The check after gaspi_wait uses no notification (a notify flushes its target itself and would
// hide a missing flush): the barrier is MPI collectives, which complete no RMA.
#include <atomic>
#include <cstdint>
#include <thread>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_queue_id_t kQ = 1;
constexpr std::uint32_t kWrites = 4096; // one 8-byte word each
constexpr std::uint32_t kRounds = 8;
} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  const auto to = static_cast<gaspi_rank_t>((me + 1) % n);
  const auto from = static_cast<gaspi_rank_t>((me + n - 1) % n);
  // [0, kWrites): source words; [kWrites, 2 kWrites): written by `from`.
  MR_OK(gaspi_segment_create(kSeg, 2 * kWrites * 8, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  auto *words = static_cast<std::uint64_t *>(p);

  for (std::uint32_t round = 1; round <= kRounds; ++round) {
    for (std::uint32_t i = 0; i < kWrites; ++i)
      words[i] = (std::uint64_t{me} << 40) | (std::uint64_t{round} << 20) | i;
    std::atomic<bool> done{false};
    std::thread waiter([&] {
      while (!done.load(std::memory_order_acquire)) {
        const gaspi_return_t rc = gaspi_wait(kQ, GASPI_BLOCK);
        if (rc != GASPI_SUCCESS)
          mr::fail(__FILE__, __LINE__, "concurrent gaspi_wait failed");
        std::this_thread::yield();
      }
    });
    for (std::uint32_t i = 0; i < kWrites; ++i) {
      gaspi_return_t rc;
      while ((rc = gaspi_write(kSeg, i * 8, to, kSeg, (kWrites + i) * 8, 8, kQ, GASPI_BLOCK)) == GASPI_QUEUE_FULL)
        MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
      MR_OK(rc);
    }
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK)); // the poster's own wait: every write is complete after it
    done.store(true, std::memory_order_release);
    waiter.join();
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    for (std::uint32_t i = 0; i < kWrites; ++i)
      if (words[kWrites + i] != ((std::uint64_t{from} << 40) | (std::uint64_t{round} << 20) | i))
        MR_CHECK(!"a write was not complete after the poster's gaspi_wait");
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // everyone checked before the next round
  }
  mr_finish("mr_wait_race");
  return 0;
}
