#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "core/queues.hpp"

TEST_CASE("a post that would exceed queue_size_max is refused whole") {
  hygaspi::QueueTable t;
  t.reset(2, 4);
  CHECK(t.exists(0));
  CHECK(t.exists(1));
  CHECK_FALSE(t.exists(2));
  CHECK(t.reserve(0, 2) == GASPI_SUCCESS);
  CHECK(t.reserve(0, 2) == GASPI_SUCCESS);
  CHECK(t.reserve(0, 1) == GASPI_QUEUE_FULL);
  CHECK(t[0].outstanding() == 4);      // the refused post took nothing
  t.release_to(0, t[0].posted.load()); // gaspi_wait: everything posted so far
  CHECK(t.reserve(0, 3) == GASPI_SUCCESS);
  CHECK(t.reserve(0, 2) == GASPI_QUEUE_FULL); // write_notify needs 2 entries, only 1 left
  CHECK(t.reserve(1, 4) == GASPI_SUCCESS);    // queues are independent
}

TEST_CASE("concurrent posters never overfill a queue") {
  hygaspi::QueueTable t;
  t.reset(1, 1000);
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      for (int k = 0; k < 1000; ++k)
        if (t.reserve(0, 1) == GASPI_SUCCESS)
          granted.fetch_add(1);
    });
  for (auto &th : threads)
    th.join();
  CHECK(granted.load() == 1000);
  CHECK(t[0].outstanding() == 1000);
}

TEST_CASE("created queues take the lowest free id") {
  hygaspi::QueueTable t;
  t.reset(2, 8);
  CHECK(t.create() == 2);
  t.destroy(0);
  CHECK(t.create() == 0);
  CHECK(t.count() == 3);
}

TEST_CASE("any single post fits an empty queue, even one larger than queue_size_max") {
  hygaspi::QueueTable t;
  t.reset(1, 1);
  CHECK(t.reserve(0, 2) == GASPI_SUCCESS); // write_notify into a queue of 1: no livelock
  CHECK(t[0].outstanding() == 2);
  CHECK(t.reserve(0, 1) == GASPI_QUEUE_FULL); // not empty any more
  t.release_to(0, t[0].posted.load());
  CHECK(t.reserve(0, 1) == GASPI_SUCCESS);
  CHECK(t.reserve(0, 1) == GASPI_QUEUE_FULL);
  t.release_to(0, t[0].posted.load());
  // A list of UINT32_MAX elements plus its notification: the count must not wrap to 0.
  const std::uint64_t entries = std::uint64_t{UINT32_MAX} + 1;
  CHECK(t.reserve(0, entries) == GASPI_SUCCESS);
  CHECK(t[0].outstanding() == entries);
  CHECK(t.reserve(0, 1) == GASPI_QUEUE_FULL);
}
