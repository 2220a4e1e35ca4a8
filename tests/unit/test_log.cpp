// hlog::CallScope and the message prefix (callees do not name entry points; the
// entry point records the call's name in a thread-local and the log reads it).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>

#include "core/log.hpp"

namespace hlog = hygaspi::log;

namespace {

std::string prefix(const char *tag = "") {
  char buf[256];
  const int n = hlog::format_prefix(buf, sizeof buf, tag);
  REQUIRE(n >= 0);
  return std::string(buf, static_cast<std::size_t>(n));
}

// Runs `body` with stderr redirected into a pipe; returns what it wrote.
template <class Body> std::string captured_stderr(Body &&body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int saved = ::dup(STDERR_FILENO);
  REQUIRE(saved >= 0);
  REQUIRE(::dup2(fds[1], STDERR_FILENO) >= 0);
  body();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fds[1]);
  std::string out;
  char chunk[512];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;)
    out.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  return out;
}

struct RankGuard {
  explicit RankGuard(int rank) { hlog::set_rank(rank); }
  ~RankGuard() { hlog::set_rank(-1); }
};

} // namespace

TEST_CASE("the prefix carries the rank and the current call") {
  RankGuard rank(3);
  CHECK(prefix() == std::string("[hygaspi rank 3] ") + hlog::kNoCall + ": ");
  {
    hlog::CallScope call("gaspi_write");
    CHECK(std::string(hlog::current_call()) == "gaspi_write");
    CHECK(prefix() == "[hygaspi rank 3] gaspi_write: ");
    CHECK(prefix("warning: ") == "[hygaspi rank 3] warning: gaspi_write: ");
  }
  CHECK(std::string(hlog::current_call()) == hlog::kNoCall);
}

TEST_CASE("before init the prefix names the process") {
  hlog::set_rank(-1);
  hlog::CallScope call("gaspi_proc_init");
  CHECK(prefix() == "[hygaspi pid " + std::to_string(::getpid()) + "] gaspi_proc_init: ");
}

TEST_CASE("a nested call keeps the outer name, and each scope restores what it found") {
  RankGuard rank(0);
  {
    hlog::CallScope outer("gaspi_threads_init");
    {
      hlog::CallScope inner("gaspi_threads_init_user");
      CHECK(std::string(hlog::current_call()) == "gaspi_threads_init");
    }
    CHECK(std::string(hlog::current_call()) == "gaspi_threads_init");
  }
  CHECK(std::string(hlog::current_call()) == hlog::kNoCall);
  hlog::CallScope progress("progress"); // a helper thread names itself
  CHECK(prefix() == "[hygaspi rank 0] progress: ");
}

TEST_CASE("the call's name is per thread") {
  RankGuard rank(1);
  hlog::CallScope call("gaspi_barrier");
  std::string other;
  std::thread([&] { other = hlog::current_call(); }).join();
  CHECK(other == hlog::kNoCall);
  CHECK(std::string(hlog::current_call()) == "gaspi_barrier");
}

TEST_CASE("a message is one line: prefix, then the callee's text") {
  RankGuard rank(2);
  const std::string out = captured_stderr([] {
    hlog::CallScope call("gaspi_segment_create");
    hlog::error("segment lookup: rank %d segment %d: %s", 5, 7, "gone");
    hlog::notice("configuration overruled");
    hlog::debug("not shown at the default level");
  });
  CHECK(out == "[hygaspi rank 2] gaspi_segment_create: segment lookup: rank 5 segment 7: gone\n"
               "[hygaspi rank 2] note: gaspi_segment_create: configuration overruled\n");
}

TEST_CASE("a prefix that does not fit is refused") {
  RankGuard rank(4);
  hlog::CallScope call("gaspi_allreduce_user");
  char small[8];
  CHECK(hlog::format_prefix(small, sizeof small) == -1);
}
