// The queue of the MPI path's active messages that arrived (src/mpi_rma/arrival_queue.hpp): it
// hands them out in the order of their sequence numbers, whatever order they came in, also after
// it compacted the part it had handed out, and it keeps what it holds across that.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "mpi_rma/arrival_queue.hpp"

using hygaspi::mpi::ArrivalQueue;

namespace {
struct Item {
  std::uint64_t seq;
  int tag;
};
std::vector<std::uint64_t> drain(ArrivalQueue<Item> &q) {
  std::vector<std::uint64_t> out;
  for (; !q.empty(); q.pop_front())
    out.push_back(q.front().seq);
  return out;
}
} // namespace

TEST_CASE("messages leave in the order of their numbers; equal numbers in the order they came") {
  ArrivalQueue<Item> q;
  CHECK(q.empty());
  q.insert({5, 0});
  q.insert({2, 0});
  q.insert({9, 0});
  q.insert({5, 1}); // after the first 5
  q.insert({0, 0});
  CHECK(q.size() == 5);
  REQUIRE(q.front().seq == 0);
  q.pop_front();
  q.insert({1, 0}); // lower than all that is left, higher than what left
  CHECK(q.front().seq == 1);
  std::vector<int> fives;
  for (const Item &item : q)
    if (item.seq == 5)
      fives.push_back(item.tag);
  CHECK(fives == std::vector<int>{0, 1});
  CHECK(drain(q) == std::vector<std::uint64_t>{1, 2, 5, 5, 9});
  CHECK(q.empty());
  CHECK(q.size() == 0);
}

TEST_CASE("a queue that never empties compacts, and keeps what it holds in order") {
  ArrivalQueue<Item> q;
  std::uint64_t next = 0, expect = 0;
  q.insert({next++, 0});
  // One in, one out, with two always waiting: the handed-out prefix grows past the point where
  // insert() drops it, many times over.
  q.insert({next++, 0});
  for (int round = 0; round < 1000; ++round) {
    q.insert({next++, 0});
    REQUIRE(q.size() == 3);
    REQUIRE(q.front().seq == expect);
    q.pop_front();
    ++expect;
  }
  CHECK(drain(q) == std::vector<std::uint64_t>{expect, expect + 1});
}

TEST_CASE("erase takes one message out of the middle") {
  ArrivalQueue<Item> q;
  for (std::uint64_t s : {3, 1, 2})
    q.insert({s, 0});
  q.pop_front(); // 1
  auto it = q.begin();
  REQUIRE(it->seq == 2);
  it = q.erase(it);
  REQUIRE(it != q.end());
  CHECK(it->seq == 3);
  CHECK(drain(q) == std::vector<std::uint64_t>{3});
}
