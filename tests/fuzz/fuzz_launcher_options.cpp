// libFuzzer target: hygaspi-run's command line (tools/launcher_options.cpp).
//
// Input: NUL-separated words, given to parse_options as argv[1..] after argv[0] = "hygaspi-run"
// (argv[argc] is nullptr, as from the kernel). Checks: no crash or over-read, an error always
// comes with a message, and a run has 1..kMaxLauncherRanks ranks, a timeout in [0, 1e9] s and a
// non-empty command that is exactly the tail of argv.
#include "fuzz_check.hpp"
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "launcher_options.hpp"

using namespace hygaspi::launcher;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  // Each word in its own heap allocation, so that ASan sees a read past its terminating NUL.
  std::vector<std::unique_ptr<char[]>> words;
  auto add = [&](const char *text, std::size_t n) {
    auto word = std::make_unique<char[]>(n + 1);
    std::memcpy(word.get(), text, n);
    word[n] = '\0';
    words.push_back(std::move(word));
  };
  add("hygaspi-run", 11);
  std::size_t begin = 0;
  while (begin <= size && words.size() < 256) {
    const void *nul = begin < size ? std::memchr(data + begin, 0, size - begin) : nullptr;
    const std::size_t end = nul ? static_cast<std::size_t>(static_cast<const std::uint8_t *>(nul) - data) : size;
    if (begin < size || size == 0)
      add(reinterpret_cast<const char *>(data + begin), end - begin);
    begin = end + 1;
  }
  std::vector<char *> argv;
  for (auto &w : words)
    argv.push_back(w.get());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(words.size());

  Options options;
  std::string error;
  switch (parse_options(argc, argv.data(), options, error)) {
  case ParseResult::error:
    FUZZ_CHECK(!error.empty());
    break;
  case ParseResult::help:
    break;
  case ParseResult::run: {
    FUZZ_CHECK(options.nranks >= 1 && options.nranks <= kMaxLauncherRanks);
    FUZZ_CHECK(std::isfinite(options.timeout_s) && options.timeout_s >= 0 && options.timeout_s <= 1e9);
    FUZZ_CHECK(!options.command.empty());
    FUZZ_CHECK(options.command.size() < words.size());
    const std::size_t first = words.size() - options.command.size();
    for (std::size_t k = 0; k < options.command.size(); ++k)
      FUZZ_CHECK(options.command[k] == words[first + k].get());
    break;
  }
  }
  return 0;
}
