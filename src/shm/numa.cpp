#include "shm/numa.hpp"

#include <GASPI_types.h>
#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace hygaspi::shm {

namespace {

// One topology per process, loaded at the first NUMA allocation and kept (read-only use of a
// loaded topology is thread-safe).
hwloc_topology_t topology() noexcept {
  static hwloc_topology_t topo = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0)
      return;
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      return;
    }
    topo = t;
  });
  return topo;
}

// The caller's NUMA node(s): those of its CPU binding when that lies within one node, else the
// node of the CPU it last ran on.
bool local_nodes(hwloc_topology_t topo, hwloc_bitmap_t nodes) {
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  if (cpus == nullptr)
    return false;
  bool ok = false;
  if (hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_cpuset_to_nodeset(topo, cpus, nodes);
    ok = hwloc_bitmap_weight(nodes) == 1;
  }
  if (!ok && hwloc_get_last_cpu_location(topo, cpus, HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_cpuset_to_nodeset(topo, cpus, nodes);
    ok = !hwloc_bitmap_iszero(nodes);
  }
  hwloc_bitmap_free(cpus);
  return ok;
}

} // namespace

bool set_numa_policy(void *addr, std::size_t bytes, std::uint64_t policy, std::string &error) {
  const bool local = (policy & GASPI_ALLOC_NUMA_LOCAL) != 0;
  const bool interleave = (policy & GASPI_ALLOC_NUMA_INTERLEAVE) != 0;
  if (!local && !interleave)
    return true;
  hwloc_topology_t topo = topology();
  if (topo == nullptr) {
    error = "hwloc cannot read the topology of this host";
    return false;
  }
  const hwloc_topology_support *support = hwloc_topology_get_support(topo);
  if (support == nullptr || support->membind == nullptr || !support->membind->set_area_membind ||
      (interleave ? !support->membind->interleave_membind : !support->membind->bind_membind)) {
    error = "hwloc cannot bind memory on this system";
    return false;
  }
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == nullptr) {
    error = "out of memory";
    return false;
  }
  bool ok = true;
  if (interleave)
    hwloc_bitmap_copy(nodes, hwloc_get_root_obj(topo)->nodeset); // every node we may use
  else if (!local_nodes(topo, nodes)) {
    error = "cannot tell the NUMA node of the calling thread";
    ok = false;
  }
  if (ok && hwloc_set_area_membind(topo, addr, bytes, nodes, interleave ? HWLOC_MEMBIND_INTERLEAVE : HWLOC_MEMBIND_BIND,
                                   HWLOC_MEMBIND_BYNODESET) != 0) {
    error = std::string("hwloc_set_area_membind: ") + std::strerror(errno);
    ok = false;
  }
  hwloc_bitmap_free(nodes);
  return ok;
}

} // namespace hygaspi::shm
