// --bind: the CPU set of every rank, from the hwloc topology of this host.
#pragma once
#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hygaspi::launcher {

enum class Bind { none, core, numa };

// Parses "none", "core" or "numa".
bool parse_bind(const char *text, Bind &out) noexcept;
const char *bind_name(Bind how) noexcept;

// Rank r gets core r % ncores (Bind::core) or the CPUs of NUMA node r % nnuma (Bind::numa); a core
// with several hardware threads gives all of them. Only CPUs this process may use count (hwloc
// leaves out the others). Bind::none leaves `out` empty. On failure `error` says why.
bool bind_sets(Bind how, std::uint32_t nranks, std::vector<cpu_set_t> &out, std::string &error);

} // namespace hygaspi::launcher
