#include "core/knobs.hpp"

#include <algorithm>
#include <cassert>
#include <cstdlib>

namespace hygaspi {

namespace {

// The table's own consistency, checked when this file compiles.
constexpr bool table_is_sound() {
  for (std::size_t i = 0; i < kKnobCount; ++i) {
    const Knob &k = kKnobs[i];
    if (k.name.empty() || k.doc.empty() || k.min > k.max)
      return false;
    const std::size_t member_index = k.type == KnobType::path ? 2 : static_cast<std::size_t>(k.type);
    if (member_index != k.member.index()) // the helper's type matches the member
      return false;
    if (k.doc.find_first_of("|\n") != std::string_view::npos) // one Markdown table cell
      return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kKnobs[j].name == k.name || kKnobs[j].member == k.member)
        return false;
    if (!knob_accepts(k, k.default_value)) // every default parses and lies in its range
      return false;
  }
  return true;
}
static_assert(table_is_sound(), "kKnobs: a name or member repeats, a type or default is wrong, or a doc has '|'");
static_assert(kKnobCount <= 64, "Knobs::from_env has one bit per knob");

// Parses `text` as the value of `k` into its member of `out`. False, with `out` unchanged, when the
// text is malformed or out of range.
bool store_knob(const Knob &k, std::string_view text, Knobs &out) {
  if (!knob_accepts(k, text))
    return false;
  switch (k.type) {
  case KnobType::integer:
    out.*std::get<std::int64_t Knobs::*>(k.member) = *parse_int(text, k.min, k.max);
    break;
  case KnobType::boolean:
    out.*std::get<bool Knobs::*>(k.member) = *parse_int(text, k.min, k.max) == 1; // "01" too
    break;
  case KnobType::hex_id:
  case KnobType::path:
    out.*std::get<std::string Knobs::*>(k.member) = std::string(text);
    break;
  }
  return true;
}

std::string malformed(const Knob &k, std::string_view text) {
  std::string message = std::string(k.name) + "='" + std::string(text) + "' is not ";
  if (k.type == KnobType::hex_id)
    return message + "an id of at most " + std::to_string(k.max) + " lower-case hex digits";
  if (k.type == KnobType::path)
    return message + "a path of 1 to " + std::to_string(k.max) + " bytes without control characters";
  return message + "an integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
}

bool read_one(std::size_t i, Knobs &out, std::string &error) {
  const Knob &k = kKnobs[i];
  const char *text = knob_env(k);
  if (text == nullptr)
    return true;
  if (!store_knob(k, text, out)) {
    error = malformed(k, text);
    return false;
  }
  out.from_env |= std::uint64_t{1} << i;
  return true;
}

} // namespace

Knobs::Knobs() {
  for (const Knob &k : kKnobs)
    (void)store_knob(k, k.default_value, *this); // accepted: table_is_sound
}

const char *knob_env(const Knob &k) noexcept { return std::getenv(k.name.data()); }

const char *env_foreign(const char *name) noexcept {
  assert(std::none_of(std::begin(kKnobs), std::end(kKnobs), [&](const Knob &k) { return k.name == name; }));
  return std::getenv(name);
}

bool read_knobs(Knobs &out, std::string &error) {
  for (std::size_t i = 0; i < kKnobCount; ++i)
    if (!read_one(i, out, error))
      return false;
  if (out.rank >= out.nranks) {
    const Knob &rank = kKnobs[knob_index(&Knobs::rank)];
    error = malformed({rank.name, rank.type, rank.default_value, rank.min, out.nranks - 1, rank.member, rank.doc},
                      std::to_string(out.rank));
    return false;
  }
  if (out.job.empty() && out.nranks != 1) {
    error = "HYGASPI_NRANKS=" + std::to_string(out.nranks) + " but HYGASPI_JOB is not set; start with hygaspi-run";
    return false;
  }
  return true;
}

bool read_knob(Knobs &out, KnobMember member, std::string &error) {
  const std::size_t i = knob_index(member);
  assert(i < kKnobCount);
  return i < kKnobCount && read_one(i, out, error);
}

} // namespace hygaspi
