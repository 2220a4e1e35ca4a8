// libFuzzer target: the environment knobs (the table kKnobs, src/core/knobs.hpp).
//
// Input: NUL-separated entries. Each entry's first byte picks a knob of the table (or, past its
// end, an unknown name, which read_knobs must ignore); the rest is the value given to setenv.
// Every run starts from an environment without any knob. Checks: read_knobs never crashes, fails
// only with a message, and on success every value lies in its documented range. parse_int is also
// fuzzed directly with bounds taken from the input.
#include "fuzz_check.hpp"
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/knobs.hpp"

using namespace hygaspi;

namespace {

std::vector<const char *> knob_names() {
  std::vector<const char *> names;
  for (const Knob &k : kKnobs)
    names.push_back(k.name.data());
  return names;
}

bool decimal(std::string_view text) {
  if (!text.empty() && text[0] == '-')
    text.remove_prefix(1);
  if (text.empty())
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  return true;
}

void fuzz_parse_int(const std::uint8_t *data, std::size_t size) {
  if (size < 16)
    return;
  std::int64_t lo, hi;
  std::memcpy(&lo, data, 8);
  std::memcpy(&hi, data + 8, 8);
  std::string_view text(reinterpret_cast<const char *>(data + 16), size - 16);
  auto value = parse_int(text, lo, hi);
  if (value) {
    FUZZ_CHECK(lo <= *value && *value <= hi);
    FUZZ_CHECK(decimal(text));
  }
  // The ranges read_knobs uses, on the same text.
  if (auto v = parse_int(text, 0, 3))
    FUZZ_CHECK(*v >= 0 && *v <= 3);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const std::vector<const char *> names = knob_names();
  fuzz_parse_int(data, size);

  for (const char *name : names)
    unsetenv(name);
  std::vector<std::string> unknown;
  std::size_t begin = 0;
  while (begin < size) {
    const void *nul = std::memchr(data + begin, 0, size - begin);
    const std::size_t end = nul ? static_cast<std::size_t>(static_cast<const std::uint8_t *>(nul) - data) : size;
    if (end > begin) {
      const std::size_t pick = data[begin] % (names.size() + 1);
      std::string value(reinterpret_cast<const char *>(data + begin + 1), end - begin - 1);
      if (pick < names.size()) {
        setenv(names[pick], value.c_str(), 1);
      } else {
        setenv("HYGASPI_FUZZ_UNKNOWN", value.c_str(), 1); // not a knob: ignored
      }
    }
    begin = end + 1;
  }

  Knobs knobs;
  std::string error;
  if (!read_knobs(knobs, error)) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  FUZZ_CHECK(error.empty());
  FUZZ_CHECK(knobs.job.size() <= 32);
  for (char c : knobs.job)
    FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  FUZZ_CHECK(knobs.nranks >= 1 && knobs.nranks <= 65535);
  FUZZ_CHECK(knobs.rank >= 0 && knobs.rank < knobs.nranks);
  FUZZ_CHECK(!knobs.job.empty() || knobs.nranks == 1);
  FUZZ_CHECK(knobs.spin >= 0 && knobs.spin <= (1 << 30));
  FUZZ_CHECK(knobs.yields >= 0 && knobs.yields <= (1 << 30));
  FUZZ_CHECK(knobs.log_level >= 0 && knobs.log_level <= 3);
  FUZZ_CHECK(knobs.init_timeout_ms >= 1 && knobs.init_timeout_ms <= (1ll << 40));
  FUZZ_CHECK(knobs.node_size >= 0 && knobs.node_size <= 65535);
  for (const Knob &k : kKnobs) // every integer knob in its range, whether set or not
    if (k.type == KnobType::integer) {
      const std::int64_t value = knobs.*std::get<std::int64_t Knobs::*>(k.member);
      FUZZ_CHECK(value >= k.min && value <= k.max);
    }
  return 0;
}
