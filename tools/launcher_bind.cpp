#include "launcher_bind.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <string_view>

namespace hygaspi::launcher {

bool parse_bind(const char *text, Bind &out) noexcept {
  const std::string_view word(text);
  if (word == "none")
    out = Bind::none;
  else if (word == "core")
    out = Bind::core;
  else if (word == "numa")
    out = Bind::numa;
  else
    return false;
  return true;
}

const char *bind_name(Bind how) noexcept {
  switch (how) {
  case Bind::core:
    return "core";
  case Bind::numa:
    return "numa";
  case Bind::none:
    break;
  }
  return "none";
}

bool bind_sets(Bind how, std::uint32_t nranks, std::vector<cpu_set_t> &out, std::string &error) {
  out.clear();
  if (how == Bind::none)
    return true;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
    if (topology != nullptr)
      hwloc_topology_destroy(topology);
    error = "--bind: hwloc cannot read the topology of this host";
    return false;
  }
  // Memory-only NUMA nodes (an empty cpuset) cannot run a rank: only objects with CPUs count.
  const hwloc_obj_type_t type = how == Bind::core ? HWLOC_OBJ_CORE : HWLOC_OBJ_NUMANODE;
  std::vector<hwloc_obj_t> places;
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(topology, type, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(topology, type, obj))
    if (obj->cpuset != nullptr && !hwloc_bitmap_iszero(obj->cpuset))
      places.push_back(obj);
  bool ok = !places.empty();
  if (!ok)
    error = std::string("--bind ") + bind_name(how) + ": hwloc finds no such object with CPUs on this host";
  for (std::uint32_t r = 0; ok && r < nranks; ++r) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (hwloc_cpuset_to_glibc_sched_affinity(topology, places[r % places.size()]->cpuset, &set, sizeof set) != 0) {
      error = std::string("--bind ") + bind_name(how) + ": no CPU set for rank " + std::to_string(r);
      ok = false;
      break;
    }
    out.push_back(set);
  }
  hwloc_topology_destroy(topology);
  if (!ok)
    out.clear();
  return ok;
}

} // namespace hygaspi::launcher
