// The knob table (src/core/knobs.hpp), driven by the table itself: every knob takes its default,
// its edges, and refuses what lies outside them with a message that names it and the bad value.
// README.md's copy of the table is checked by ctest knobs_readme.
#include <doctest/doctest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/knobs.hpp"

using hygaspi::kKnobs;
using hygaspi::Knob;
using hygaspi::Knobs;
using hygaspi::KnobType;
using hygaspi::parse_int;

namespace {

// Unsets every knob for the test's duration and restores what the environment had.
class CleanEnvironment {
public:
  CleanEnvironment() {
    for (const Knob &k : kKnobs) {
      const char *text = hygaspi::knob_env(k);
      saved_.push_back({k.name.data(), text != nullptr, text != nullptr ? text : ""});
      unsetenv(k.name.data());
    }
  }
  ~CleanEnvironment() {
    for (const Saved &s : saved_)
      if (s.set)
        setenv(s.name, s.value.c_str(), 1);
      else
        unsetenv(s.name);
  }
  CleanEnvironment(const CleanEnvironment &) = delete;
  CleanEnvironment &operator=(const CleanEnvironment &) = delete;

private:
  struct Saved {
    const char *name;
    bool set;
    std::string value;
  };
  std::vector<Saved> saved_;
};

// The knob's member of `k` as a string, whatever its type ("" for a string, "0"/"1" for a bool).
std::string value_of(const Knob &k, const Knobs &knobs) {
  switch (k.type) {
  case KnobType::integer:
    return std::to_string(knobs.*std::get<std::int64_t Knobs::*>(k.member));
  case KnobType::boolean:
    return knobs.*std::get<bool Knobs::*>(k.member) ? "1" : "0";
  case KnobType::hex_id:
  case KnobType::path:
    break;
  }
  return knobs.*std::get<std::string Knobs::*>(k.member);
}

// Values outside the knob's range or malformed for its type.
std::vector<std::string> bad_values(const Knob &k) {
  std::vector<std::string> bad{"garbage", "1x", " 1", "1 ", "+1", "0x10"};
  if (k.type == KnobType::hex_id) {
    bad = {std::string(static_cast<std::size_t>(k.max) + 1, 'a'), "../etc", "00FF", "00 ff", "g"};
    return bad;
  }
  if (k.type == KnobType::path)
    return {"", std::string(static_cast<std::size_t>(k.max) + 1, 'a'), "lib\ncuda", "a\tb", "\x7f"};
  bad.push_back("");
  if (k.min > std::numeric_limits<std::int64_t>::min())
    bad.push_back(std::to_string(k.min - 1));
  if (k.max < std::numeric_limits<std::int64_t>::max())
    bad.push_back(std::to_string(k.max + 1));
  bad.push_back("99999999999999999999999");
  return bad;
}

} // namespace

TEST_CASE("parse_int accepts exactly a decimal integer in range") {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  struct Case {
    const char *text;
    std::int64_t lo, hi;
    std::optional<std::int64_t> want;
  };
  const Case cases[] = {
      {"0", 0, 10, 0},
      {"10", 0, 10, 10},
      {"-3", -5, 5, -3},
      {"-0", 0, 0, 0},
      {"007", 0, 10, 7},
      {"11", 0, 10, std::nullopt},
      {"-1", 0, 10, std::nullopt},
      {"", 0, 10, std::nullopt},
      {"-", kMin, kMax, std::nullopt},
      {"4x", 0, 10, std::nullopt},
      {" 4", 0, 10, std::nullopt},
      {"+4", 0, 10, std::nullopt},
      {"--4", kMin, kMax, std::nullopt},
      {"9223372036854775807", kMin, kMax, kMax},
      {"9223372036854775808", kMin, kMax, std::nullopt},
      {"-9223372036854775808", kMin, kMax, kMin},
      {"-9223372036854775809", kMin, kMax, std::nullopt},
      {"99999999999999999999999", kMin, kMax, std::nullopt},
  };
  for (const Case &c : cases) {
    INFO("text '", c.text, "' in [", c.lo, ", ", c.hi, "]");
    CHECK(parse_int(c.text, c.lo, c.hi) == c.want);
  }
  static_assert(parse_int("-42", -100, 0) == -42); // usable at compile time (kKnobs' defaults)
}

TEST_CASE("the knobs and defaults of README.md before the table drove it are unchanged") {
  struct Old {
    std::string_view name, default_value;
  };
  const Old old[] = {{"HYGASPI_JOB", ""},
                     {"HYGASPI_RANK", "0"},
                     {"HYGASPI_NRANKS", "1"},
                     {"HYGASPI_PID", "0"},
                     {"HYGASPI_SPIN", "2000"},
                     {"HYGASPI_YIELDS", "50"},
                     {"HYGASPI_LOG", "1"},
                     {"HYGASPI_INIT_TIMEOUT_MS", "60000"},
                     {"HYGASPI_NODE_SIZE", "0"},
                     {"HYGASPI_SHM", "1"},
                     {"HYGASPI_PROGRESS_THREAD", "-1"},
                     {"HYGASPI_THREADS_PIN", "-1"},
                     {"HYGASPI_TEST_DIE_IN_PASSIVE_SEND", "-1"}};
  for (const Old &o : old) {
    INFO(o.name);
    const Knob *found = nullptr;
    for (const Knob &k : kKnobs)
      if (k.name == o.name)
        found = &k;
    REQUIRE(found != nullptr);
    CHECK(found->default_value == o.default_value);
  }
  // A default-constructed Knobs holds the table's defaults.
  const Knobs defaults;
  CHECK(defaults.spin == 2000);
  CHECK(defaults.nranks == 1);
  CHECK(defaults.shm);
  CHECK_FALSE(defaults.numa_socket);
  CHECK(defaults.job.empty());
}

TEST_CASE("every knob parses its default, and a default-constructed Knobs holds it") {
  CleanEnvironment clean;
  const Knobs defaults;
  CHECK(defaults.from_env == 0);
  for (const Knob &k : kKnobs) {
    INFO(k.name);
    setenv(k.name.data(), std::string(k.default_value).c_str(), 1);
    Knobs got;
    std::string error;
    CHECK(hygaspi::read_knob(got, k.member, error));
    CHECK(error.empty());
    CHECK(value_of(k, got) == value_of(k, defaults));
    CHECK(value_of(k, defaults) == (k.type == KnobType::hex_id || k.type == KnobType::path
                                        ? std::string(k.default_value)
                                        : std::to_string(*parse_int(k.default_value, k.min, k.max))));
    CHECK(std::visit([&](auto member) { return got.given(member); }, k.member)); // set, though to the default
    CHECK_FALSE(std::visit([&](auto member) { return defaults.given(member); }, k.member));
    unsetenv(k.name.data());
  }
}

TEST_CASE("every knob takes the edges of its range") {
  CleanEnvironment clean;
  for (const Knob &k : kKnobs) {
    const std::vector<std::string> edges =
        k.type == KnobType::hex_id ? std::vector<std::string>{"", "0123456789abcdef", std::string(k.max, 'f')}
        : k.type == KnobType::path ? std::vector<std::string>{"x", "/opt/a b/libcuda.so.1", std::string(k.max, 'p')}
                                   : std::vector<std::string>{std::to_string(k.min), std::to_string(k.max)};
    for (const std::string &text : edges) {
      INFO(k.name, "='", text, "'");
      setenv(k.name.data(), text.c_str(), 1);
      Knobs got;
      std::string error;
      CHECK(hygaspi::read_knob(got, k.member, error));
      CHECK(value_of(k, got) == text);
    }
    unsetenv(k.name.data());
  }
}

TEST_CASE("every knob rejects below min, above max and garbage, naming itself and the value") {
  CleanEnvironment clean;
  for (const Knob &k : kKnobs) {
    for (const std::string &text : bad_values(k)) {
      INFO(k.name, "='", text, "'");
      setenv(k.name.data(), text.c_str(), 1);
      Knobs one;
      std::string error;
      CHECK_FALSE(hygaspi::read_knob(one, k.member, error));
      CHECK(value_of(k, one) == value_of(k, Knobs{})); // unchanged
      const std::string named = std::string(k.name) + "='" + text + "'";
      CHECK(error.find(named) == 0);
      Knobs all; // read_knobs stops at the same knob with the same message
      std::string all_error;
      CHECK_FALSE(hygaspi::read_knobs(all, all_error));
      CHECK(all_error == error);
    }
    unsetenv(k.name.data());
  }
}

TEST_CASE("read_knobs checks the knobs against each other") {
  CleanEnvironment clean;
  hygaspi::Knobs k;
  std::string error;
  setenv("HYGASPI_JOB", "00ff", 1);
  setenv("HYGASPI_NRANKS", "4", 1);
  setenv("HYGASPI_RANK", "4", 1);
  CHECK_FALSE(hygaspi::read_knobs(k, error)); // rank must be < nranks
  CHECK(error == "HYGASPI_RANK='4' is not an integer in [0, 3]");
  setenv("HYGASPI_RANK", "3", 1);
  hygaspi::Knobs ok;
  CHECK(hygaspi::read_knobs(ok, error));
  CHECK(ok.rank == 3);
  CHECK(ok.nranks == 4);
  CHECK(ok.job == "00ff");
  CHECK(ok.given(&Knobs::job));
  CHECK_FALSE(ok.given(&Knobs::spin));
  unsetenv("HYGASPI_JOB");
  unsetenv("HYGASPI_RANK");
  hygaspi::Knobs no_job;
  CHECK_FALSE(hygaspi::read_knobs(no_job, error)); // several ranks but no job
  CHECK(error.find("HYGASPI_NRANKS=4") == 0);
  unsetenv("HYGASPI_NRANKS");
  hygaspi::Knobs solo;
  CHECK(hygaspi::read_knobs(solo, error));
  CHECK(solo.from_env == 0);
}

TEST_CASE("every knob in the table has a name, a default and a meaning") {
  for (const Knob &k : kKnobs) {
    INFO(k.name);
    CHECK((k.name.rfind("HYGASPI_", 0) == 0 || k.name.rfind("GASPI_", 0) == 0));
    CHECK(k.doc.size() > 10);
    CHECK(hygaspi::knob_index(k.member) == static_cast<std::size_t>(&k - kKnobs));
  }
  CHECK(hygaspi::kKnobCount >= 14);
}
