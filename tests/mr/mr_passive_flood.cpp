// Passive messages flooding a receiver that computes (spec §9): every other rank sends kCount
// messages of kBytes to rank 0, which meanwhile computes for kComputeSeconds without a GASPI call,
// then receives them all. Rank 0 checks every byte, each sender's order (none lost, none twice)
// and that its peak resident set grew by less than kFixedBytes + kPerSenderBytes per sender.
// Senders send with a 10 ms timeout and retry on GASPI_TIMEOUT, which must have sent nothing (a
// message that timed out and still arrived breaks the order check). On a node, a full receive
// ring holds senders back; across nodes the credits of the MPI path must (mpi_rma/credits.hpp:
// 128 KiB outstanding per sender; 1 MiB per sender leaves room for MPI's own bookkeeping).
// Before them, rank 0 took everything into memory while it computed (its progress thread moves
// what MPI holds into the mailbox).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSeg = 0;
constexpr std::uint32_t kCount = 6000;
constexpr gaspi_size_t kBytes = 1000;
constexpr double kComputeSeconds = 3.0;
constexpr long kFixedBytes = 8l << 20;
constexpr long kPerSenderBytes = 1l << 20;

unsigned char byte_of(gaspi_rank_t src, std::uint32_t seq, std::size_t j) {
  return static_cast<unsigned char>(src * 31u + seq * 7u + j);
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

long status_bytes(const char *field) {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  MR_CHECK(f != nullptr);
  char line[256];
  long kb = -1;
  const std::size_t len = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, field, len) == 0 && line[len] == ':')
      kb = std::strtol(line + len + 1, nullptr, 10);
  std::fclose(f);
  MR_CHECK(kb >= 0);
  return kb * 1024;
}

double compute(double seconds) {
  const double end = now() + seconds;
  double x = 1.0;
  while (now() < end)
    for (int i = 0; i < 100000; ++i)
      x = x * 1.0000001 + 1e-9;
  return x;
}

} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_OK(gaspi_segment_create(kSeg, kBytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *buf = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&buf)));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (me == 0) {
    const long before = status_bytes("VmRSS");
    (void)compute(kComputeSeconds);
    const long after_compute = status_bytes("VmHWM");
    std::vector<std::uint32_t> next(n, 0);
    for (std::uint64_t k = 0; k < std::uint64_t{kCount} * (n - 1u); ++k) {
      gaspi_rank_t from = 0;
      MR_OK(gaspi_passive_receive(kSeg, 0, &from, kBytes, 60000));
      MR_CHECK(from > 0 && from < n);
      std::uint32_t seq = 0;
      std::memcpy(&seq, buf, sizeof seq);
      MR_CHECK(seq == next[from]); // in order, none lost, none twice
      ++next[from];
      for (std::size_t j = sizeof seq; j < kBytes; ++j)
        MR_CHECK(buf[j] == byte_of(from, seq, j));
    }
    const long peak = status_bytes("VmHWM");
    const long bound = kFixedBytes + kPerSenderBytes * (n - 1);
    std::printf("mr_passive_flood: %u senders x %u messages of %lu B; rank 0 resident %.1f MB before, peak %.1f MB "
                "after %.0f s of computing, %.1f MB after receiving; growth bound %.1f MB\n",
                n - 1, kCount, static_cast<unsigned long>(kBytes), before / 1e6, after_compute / 1e6, kComputeSeconds,
                peak / 1e6, bound / 1e6);
    std::fflush(stdout);
    MR_CHECK(peak - before < bound);
  } else {
    std::uint64_t timeouts = 0;
    for (std::uint32_t seq = 0; seq < kCount; ++seq) {
      std::memcpy(buf, &seq, sizeof seq);
      for (std::size_t j = sizeof seq; j < kBytes; ++j)
        buf[j] = byte_of(me, seq, j);
      gaspi_return_t rc;
      while ((rc = gaspi_passive_send(kSeg, 0, 0, kBytes, 10)) == GASPI_TIMEOUT)
        ++timeouts;
      MR_OK(rc);
    }
    if (me == 1) {
      std::printf("mr_passive_flood: rank 1 saw %lu timeouts\n", static_cast<unsigned long>(timeouts));
      std::fflush(stdout);
    }
  }
  mr_finish("mr_passive_flood");
  return 0;
}
