// Passive messages to a peer whose limits or life differ from the sender's (2 ranks, on one node
// or as two nodes over MPI):
// - rank 1 receives at most 1024 bytes (its own passive_transfer_size_max) while rank 0 may send
//   65535: a larger message returns GASPI_ERR_INV_COMMSIZE at once, with GASPI_TEST and with
//   GASPI_BLOCK, and sends nothing; one of 1024 bytes arrives. Over MPI the sender knew nothing of
//   the target's maximum before (the larger message went out, and the receive truncated it).
// - on one node, rank 1 then leaves with gaspi_proc_term, without receiving, while rank 0 keeps
//   sending with a
//   10 s timeout: once rank 1's ring is full, the send returns GASPI_ERROR ("has left the job"),
//   not GASPI_TIMEOUT after 10 s (nor a hang with GASPI_BLOCK), which is what it did before the
//   sender's health check looked at a departed peer.
#include <chrono>
#include <cstdint>
#include <cstring>

#include "mr_util.hpp"

namespace {
constexpr gaspi_segment_id_t kSeg = 0;
constexpr gaspi_size_t kSmallMax = 1024;
} // namespace

int main() {
  gaspi_rank_t me = 0, n = 0;
  gaspi_config_t c;
  MR_OK(gaspi_config_get(&c));
  // Rank numbers are known only after init: the launcher's environment tells who is rank 1.
  const char *env =
      std::getenv("HYGASPI_RANK") != nullptr ? std::getenv("HYGASPI_RANK") : std::getenv("OMPI_COMM_WORLD_RANK");
  const bool small = env != nullptr && std::strcmp(env, "1") == 0;
  if (small) {
    c.passive_transfer_size_max = kSmallMax;
    MR_OK(gaspi_config_set(c));
  }
  mr_init(me, n);
  MR_CHECK(n == 2);
  MR_CHECK(small == (me == 1));
  MR_OK(gaspi_segment_create(kSeg, 1 << 17, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(kSeg, &p));
  auto *base = static_cast<unsigned char *>(p);
  if (me == 0) {
    std::memset(base, 0x5A, 4096);
    MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_send(kSeg, 0, 1, kSmallMax + 1, GASPI_TEST));
    MR_EXPECT(GASPI_ERR_INV_COMMSIZE, gaspi_passive_send(kSeg, 0, 1, 4096, GASPI_BLOCK));
    MR_OK(gaspi_passive_send(kSeg, 0, 1, kSmallMax, GASPI_BLOCK));
  } else {
    gaspi_rank_t from = 99;
    MR_OK(gaspi_passive_receive(kSeg, 8192, &from, kSmallMax, GASPI_BLOCK));
    MR_CHECK(from == 0);
    for (gaspi_size_t i = 0; i < kSmallMax; ++i)
      MR_CHECK(base[8192 + i] == 0x5A);
    MR_EXPECT(GASPI_TIMEOUT, gaspi_passive_receive(kSeg, 8192, &from, kSmallMax, GASPI_TEST)); // nothing else came
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  gaspi_rank_t local = 0;
  MR_OK(gaspi_proc_local_num(&local));
  if (local != 2) { // two nodes: the departed-peer check is the node path's
    MR_OK(gaspi_proc_term(GASPI_BLOCK));
    if (me == 0)
      std::printf("SUCCESS mr_passive_peers\n");
    return 0;
  }
  if (me == 1) {
    MR_OK(gaspi_proc_term(GASPI_BLOCK)); // leaves, receiving nothing more
    return 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  gaspi_return_t rc = GASPI_SUCCESS;
  long sent = 0;
  while ((rc = gaspi_passive_send(kSeg, 0, 1, 8, 10000)) == GASPI_SUCCESS)
    ++sent;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank 0: %ld sends went into rank 1's ring, then %s after %.2f s\n", sent, gaspi_error_str(rc), s);
  MR_CHECK(rc == GASPI_ERROR);
  MR_CHECK(s < 9.0); // not the send's timeout
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  std::printf("SUCCESS mr_passive_peers\n");
  return 0;
}
