#include "launcher_options.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/knobs.hpp"

namespace hygaspi::launcher {

void print_usage(std::FILE *to) {
  std::fprintf(to,
               "usage: hygaspi-run [options] -n N [--] prog [args...]\n"
               "Starts N ranks of prog on this node as one GASPI job.\n"
               "  -n, --np N        number of ranks (1..%u), required\n"
               "  -p, --prefix      prefix every output line of rank r with \"[r] \"\n"
               "      --timeout S   kill the job after S seconds (exit code 124)\n"
               "      --keep-going  when a rank fails, let the others run on (they see it dead in\n"
               "                    gaspi_state_vec_get and their waits fail); the exit code is still\n"
               "                    that of the first failed rank\n"
               "      --bind WHAT   pin rank r before exec: core (core r %% ncores), numa (the CPUs\n"
               "                    of NUMA node r %% nnuma) or none (the default)\n"
               "  -h, --help        this text\n"
               "Exit code: that of the first rank that failed (128+signal when killed), 0 if all\n"
               "succeeded, 124 on timeout, 128+signal when the launcher was interrupted. A rank's\n"
               "own non-zero code comes before the 1 of a rank that exited 0 without\n"
               "gaspi_proc_term or gasnet_exit, and before the 0 of another rank's gasnet_exit(0).\n",
               kMaxLauncherRanks);
}

namespace {

// Splits "--name=value" and "-nVALUE" forms; `value` stays null when the word holds none.
struct Word {
  std::string_view name;
  const char *value = nullptr;
};

Word split(const char *arg) {
  std::string_view text(arg);
  if (text.starts_with("--")) {
    if (auto eq = text.find('='); eq != std::string_view::npos)
      return {text.substr(0, eq), arg + eq + 1};
    return {text, nullptr};
  }
  if (text.size() > 2) // "-n4"
    return {text.substr(0, 2), arg + 2};
  return {text, nullptr};
}

bool parse_seconds(const char *text, double &out) {
  char *end = nullptr;
  double value = std::strtod(text, &end);
  // An upper bound keeps the conversion to a time point far from overflow (about 31 years).
  if (end == text || *end != '\0' || !std::isfinite(value) || value <= 0 || value > 1e9)
    return false;
  out = value;
  return true;
}

} // namespace

ParseResult parse_options(int argc, char **argv, Options &out, std::string &error) {
  int i = 1;
  for (; i < argc; ++i) {
    const char *arg = argv[i];
    if (arg[0] != '-' || arg[1] == '\0') // "prog" or "-" (a program named "-" is odd but legal)
      break;
    if (std::string_view(arg) == "--") {
      ++i;
      break;
    }
    Word word = split(arg);
    // Options that take a value read it from the same word or from the next one.
    auto value = [&]() -> const char * {
      if (word.value != nullptr)
        return word.value;
      if (i + 1 < argc)
        return argv[++i];
      return nullptr;
    };
    if (word.name == "-h" || word.name == "--help") {
      return ParseResult::help;
    } else if ((word.name == "-p" && word.value == nullptr) || (word.name == "--prefix" && word.value == nullptr)) {
      out.prefix = true;
    } else if (word.name == "--keep-going" && word.value == nullptr) {
      out.keep_going = true;
    } else if (word.name == "--bind") {
      const char *text = value();
      if (text == nullptr || !parse_bind(text, out.bind)) {
        error = "--bind needs core, numa or none";
        return ParseResult::error;
      }
    } else if (word.name == "-n" || word.name == "--np") {
      const char *text = value();
      auto n = text ? parse_int(text, 1, kMaxLauncherRanks) : std::nullopt;
      if (!n) {
        error = std::string(word.name) + " needs a number of ranks in [1, " + std::to_string(kMaxLauncherRanks) + "]";
        return ParseResult::error;
      }
      out.nranks = static_cast<std::uint32_t>(*n);
    } else if (word.name == "--timeout") {
      const char *text = value();
      if (text == nullptr || !parse_seconds(text, out.timeout_s)) {
        error = "--timeout needs a positive number of seconds";
        return ParseResult::error;
      }
    } else {
      error = std::string("unknown option ") + arg;
      return ParseResult::error;
    }
  }
  if (out.nranks == 0) {
    error = "-n N is required";
    return ParseResult::error;
  }
  if (i >= argc) {
    error = "no program to run";
    return ParseResult::error;
  }
  out.command.assign(argv + i, argv + argc);
  return ParseResult::run;
}

} // namespace hygaspi::launcher
