#include <doctest/doctest.h>

#include <cstdlib>

#include "core/knobs.hpp"

using hygaspi::parse_int;

TEST_CASE("parse_int accepts exactly a decimal integer in range") {
  CHECK(parse_int("0", 0, 10) == 0);
  CHECK(parse_int("10", 0, 10) == 10);
  CHECK(parse_int("-3", -5, 5) == -3);
  CHECK_FALSE(parse_int("11", 0, 10));
  CHECK_FALSE(parse_int("", 0, 10));
  CHECK_FALSE(parse_int("4x", 0, 10));
  CHECK_FALSE(parse_int(" 4", 0, 10));
  CHECK_FALSE(parse_int("99999999999999999999999", 0, 10));
}

TEST_CASE("read_knobs rejects malformed values with the knob's name") {
  hygaspi::Knobs k;
  std::string error;
  setenv("HYGASPI_SPIN", "lots", 1);
  CHECK_FALSE(hygaspi::read_knobs(k, error));
  CHECK(error.find("HYGASPI_SPIN") != std::string::npos);
  unsetenv("HYGASPI_SPIN");

  setenv("HYGASPI_JOB", "../etc", 1);
  CHECK_FALSE(hygaspi::read_knobs(k, error));
  CHECK(error.find("HYGASPI_JOB") != std::string::npos);

  setenv("HYGASPI_JOB", "00ff", 1);
  setenv("HYGASPI_NRANKS", "4", 1);
  setenv("HYGASPI_RANK", "4", 1);
  CHECK_FALSE(hygaspi::read_knobs(k, error)); // rank must be < nranks
  setenv("HYGASPI_RANK", "3", 1);
  hygaspi::Knobs ok;
  CHECK(hygaspi::read_knobs(ok, error));
  CHECK(ok.rank == 3);
  CHECK(ok.nranks == 4);
  CHECK(ok.job == "00ff");
  unsetenv("HYGASPI_JOB");
  unsetenv("HYGASPI_RANK");
  hygaspi::Knobs no_job;
  CHECK_FALSE(hygaspi::read_knobs(no_job, error)); // several ranks but no job
  unsetenv("HYGASPI_NRANKS");
  hygaspi::Knobs solo;
  CHECK(hygaspi::read_knobs(solo, error));
}

TEST_CASE("every knob in the table has a name, a default and a meaning") {
  int n = 0;
  for (auto *k = hygaspi::knob_table(); k->name != nullptr; ++k, ++n) {
    CHECK(std::string(k->name).rfind("HYGASPI_", 0) == 0);
    CHECK(k->default_value != nullptr);
    CHECK(std::string(k->meaning).size() > 10);
  }
  CHECK(n >= 5);
}
