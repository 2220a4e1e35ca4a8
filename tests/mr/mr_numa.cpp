// NUMA allocation policies: gaspi_segment_alloc/create with GASPI_ALLOC_NUMA_LOCAL and
// GASPI_ALLOC_NUMA_INTERLEAVE succeed, hold correct data (zeroed, then written remotely), and
// both flags together are refused. Rank 0 reports the placement from /proc/self/numa_maps. Where
// the kernel lets this process call mbind (a container's seccomp filter may not), the policy
// shown there must be the one asked for; with more than one NUMA node the pages must be spread
// (interleave) or on one node (local). On a single-node machine the placement is trivially right.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "mr_util.hpp"

namespace {

constexpr gaspi_size_t kSize = 4u << 20; // 1024 pages
constexpr int kMpolInterleave = 3;
constexpr unsigned long kMpolFMemsAllowed = 1ul << 2;

// The NUMA nodes this process may use, and whether mbind is allowed at all (probed on an
// anonymous page with the same kind of call hwloc makes).
struct Numa {
  int nodes = 0;
  bool mbind_ok = false;
};

Numa probe() {
  Numa n;
  unsigned long mask[16] = {};
  if (syscall(SYS_get_mempolicy, nullptr, mask, sizeof mask * 8, nullptr, kMpolFMemsAllowed) != 0)
    return n;
  for (unsigned long word : mask)
    n.nodes += __builtin_popcountl(word);
  const long page = sysconf(_SC_PAGESIZE);
  void *p = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    n.mbind_ok = syscall(SYS_mbind, p, page, kMpolInterleave, mask, sizeof mask * 8, 0) == 0;
    munmap(p, static_cast<std::size_t>(page));
  }
  return n;
}

// The numa_maps line of the mapping that starts at `addr` ("" when there is none).
std::string numa_maps_line(const void *addr) {
  std::ifstream maps("/proc/self/numa_maps");
  std::ostringstream want;
  want << std::hex << reinterpret_cast<std::uintptr_t>(addr) << ' ';
  for (std::string line; std::getline(maps, line);)
    if (line.rfind(want.str(), 0) == 0)
      return line;
  return "";
}

// The nodes "N<k>=<pages>" of a numa_maps line.
std::set<int> nodes_of(const std::string &line) {
  std::set<int> nodes;
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (word.size() > 1 && word[0] == 'N' && word.find('=') != std::string::npos)
      nodes.insert(std::stoi(word.substr(1)));
  return nodes;
}

} // namespace

int main() {
  gaspi_rank_t rank = 0;
  gaspi_rank_t nranks = 0;
  mr_init(rank, nranks);
  const gaspi_rank_t right = static_cast<gaspi_rank_t>((rank + 1) % nranks);
  const gaspi_rank_t left = static_cast<gaspi_rank_t>((rank + nranks - 1) % nranks);

  MR_OK(gaspi_segment_alloc(0, kSize, GASPI_ALLOC_NUMA_LOCAL));
  MR_OK(gaspi_segment_alloc(1, kSize, GASPI_ALLOC_NUMA_INTERLEAVE));
  MR_OK(gaspi_segment_create(2, kSize, GASPI_GROUP_ALL, GASPI_BLOCK,
                             GASPI_ALLOC_NUMA_INTERLEAVE | GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_segment_create(3, kSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_ALLOC_NUMA_LOCAL));
  MR_EXPECT(GASPI_ERROR, gaspi_segment_alloc(4, kSize, GASPI_ALLOC_NUMA_LOCAL | GASPI_ALLOC_NUMA_INTERLEAVE));
  gaspi_pointer_t none = nullptr;
  MR_CHECK(gaspi_segment_ptr(4, &none) != GASPI_SUCCESS); // nothing was created
  for (gaspi_rank_t r = 0; r < nranks; ++r) {
    MR_OK(gaspi_segment_register(0, r, GASPI_BLOCK));
    MR_OK(gaspi_segment_register(1, r, GASPI_BLOCK));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // Zeroed at creation; then every word touched (which also maps the pages for numa_maps).
  std::uint64_t *seg[4] = {};
  for (gaspi_segment_id_t s = 0; s < 4; ++s) {
    gaspi_pointer_t p = nullptr;
    MR_OK(gaspi_segment_ptr(s, &p));
    seg[s] = static_cast<std::uint64_t *>(p);
    for (std::size_t i = 0; i < kSize / 8; ++i)
      MR_CHECK(seg[s][i] == 0);
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // everyone checked before anyone writes
  for (std::size_t i = 0; i < kSize / 8; ++i) {
    seg[0][i] = (std::uint64_t{rank} << 40) | i;            // source of the write into the right's 1
    seg[2][i] = (std::uint64_t{rank} << 40) | (i ^ 0x5a5a); // source of the write into the right's 3
  }
  MR_OK(gaspi_write_notify(0, 0, right, 1, 0, kSize, 0, 1, 0, GASPI_BLOCK));
  MR_OK(gaspi_write_notify(2, 0, right, 3, 0, kSize, 0, 1, 0, GASPI_BLOCK));
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  for (gaspi_segment_id_t s : {gaspi_segment_id_t{1}, gaspi_segment_id_t{3}}) {
    gaspi_notification_id_t id = 0;
    MR_OK(gaspi_notify_waitsome(s, 0, 1, &id, GASPI_BLOCK));
    gaspi_notification_t value = 0;
    MR_OK(gaspi_notify_reset(s, id, &value));
    MR_CHECK(value == 1);
  }
  for (std::size_t i = 0; i < kSize / 8; ++i) {
    MR_CHECK(seg[1][i] == ((std::uint64_t{left} << 40) | i));
    MR_CHECK(seg[3][i] == ((std::uint64_t{left} << 40) | (i ^ 0x5a5a)));
  }

  if (rank == 0) {
    const Numa numa = probe();
    std::printf("NUMA nodes allowed: %d, mbind permitted: %s\n", numa.nodes, numa.mbind_ok ? "yes" : "no");
    std::fflush(stdout);
    // hwloc's HWLOC_MEMBIND_BIND without STRICT is MPOL_PREFERRED_MANY ("prefer (many):") on
    // kernels that have it (5.15+), MPOL_BIND ("bind:") before.
    const bool interleaved[4] = {false, true, true, false};
    for (int s = 0; s < 4; ++s) {
      const std::string line = numa_maps_line(seg[s]);
      std::printf("segment %d: %s\n", s, line.empty() ? "(no numa_maps)" : line.c_str());
      std::fflush(stdout);
      if (line.empty() || !numa.mbind_ok)
        continue; // no way to see, or the policy could not be set (the library warned)
      if (interleaved[s])
        MR_CHECK(line.find(" interleave:") != std::string::npos);
      else
        MR_CHECK(line.find(" bind:") != std::string::npos || line.find(" prefer") != std::string::npos);
      const std::set<int> nodes = nodes_of(line);
      MR_CHECK(!nodes.empty());
      if (numa.nodes > 1 && s == 1)
        MR_CHECK(nodes.size() > 1); // interleaved over several nodes (local writes placed them)
      if (s == 0 || s == 3)
        MR_CHECK(nodes.size() == 1); // all on the caller's node
    }
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  for (gaspi_segment_id_t s = 0; s < 4; ++s)
    MR_OK(gaspi_segment_delete(s));
  mr_finish("mr_numa");
  return 0;
}
