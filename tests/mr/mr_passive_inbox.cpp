// A passive_transfer_size_max too large for the host: every rank's message inbox holds, per node
// peer, room for one message of that size, and the inboxes of a node are backed in /dev/shm when
// they are made. Run as 16 ranks on one node with the largest value GASPI allows (2^31 - 1 bytes:
// a 4 GiB ring per sender, 64 GiB per rank, 1 TiB for the node): gaspi_proc_init must return
// GASPI_ERR_MEMALLOC on every rank, after its one-line reason, and the launcher exits 1 as for any
// failed init. Before the check, the ranks' /dev/shm outgrew this host's memory and the OOM killer
// ended the job (8 ranks with 1 GiB: SIGKILL). Only a host of 2 TiB or more could back it.
#include <GASPI.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>

int main() {
  gaspi_config_t c;
  if (gaspi_config_get(&c) != GASPI_SUCCESS)
    return 2;
  c.passive_transfer_size_max = INT_MAX;
  if (gaspi_config_set(c) != GASPI_SUCCESS)
    return 2;
  const gaspi_return_t rc = gaspi_proc_init(GASPI_BLOCK);
  const std::uint64_t host =
      static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t inbox = 16 * (std::uint64_t{1} << 32); // 16 node peers, a 4 GiB passive ring each
  if (inbox > host / 2 / 16) {
    if (rc != GASPI_ERR_MEMALLOC) {
      std::printf("FAIL gaspi_proc_init returned %d, expected GASPI_ERR_MEMALLOC\n", rc);
      return 1;
    }
    std::printf("SUCCESS mr_passive_inbox\n");
    return 0;
  }
  std::printf("SUCCESS mr_passive_inbox (a host of %llu MiB backs it: init returned %d)\n",
              static_cast<unsigned long long>(host >> 20), rc);
  if (rc == GASPI_SUCCESS)
    gaspi_proc_term(GASPI_BLOCK);
  return 0;
}
