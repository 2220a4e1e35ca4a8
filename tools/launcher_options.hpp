// Command line of hygaspi-run: `hygaspi-run [options] -n N [--] prog args...`.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "launcher_bind.hpp"

namespace hygaspi::launcher {

inline constexpr std::uint32_t kMaxLauncherRanks = 4096;

struct Options {
  std::uint32_t nranks = 0;
  bool prefix = false;              // prefix each output line of rank r with "[r] "
  double timeout_s = 0;             // 0: no timeout
  bool keep_going = false;          // a failing rank does not end the job (survivors handle it)
  Bind bind = Bind::none;           // --bind: pin rank r to core r % ncores or NUMA node r % nnuma
  std::vector<std::string> command; // prog and its arguments
};

enum class ParseResult { run, help, error };

// Fills `out`, or `error` with a one-line reason. Options end at the first word that is not an
// option, or at "--", so that the program's own options are never taken for ours.
ParseResult parse_options(int argc, char **argv, Options &out, std::string &error);

void print_usage(std::FILE *to);

} // namespace hygaspi::launcher
