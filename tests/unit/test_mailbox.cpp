// The MPI path's passive mailbox (src/mpi_rma/mailbox.hpp): round-robin over senders, each
// sender's messages in order. With the FIFO it replaced, a sender that got many messages in first
// delayed every other sender's by all of them.
#include <doctest/doctest.h>

#include <vector>

#include "mpi_rma/mailbox.hpp"

using hygaspi::mpi::Mailbox;
using hygaspi::mpi::Message;

namespace {
Message msg(int from, char index) { return Message{from, std::vector<char>{index}}; }
} // namespace

TEST_CASE("a flooding sender does not delay the others; each sender's order holds") {
  Mailbox box;
  for (char i = 0; i < 5; ++i)
    box.push(msg(3, i));
  box.push(msg(1, 0));
  box.push(msg(2, 0));
  box.push(msg(1, 1));
  const std::vector<std::pair<int, char>> expected{{1, 0}, {2, 0}, {3, 0}, {1, 1}, {3, 1}, {3, 2}, {3, 3}, {3, 4}};
  for (const auto &[from, index] : expected) {
    Message m;
    REQUIRE(box.pop(m));
    CHECK(m.from == from);
    REQUIRE(m.data.size() == 1);
    CHECK(m.data[0] == index);
  }
  Message m;
  CHECK_FALSE(box.pop(m));
}

TEST_CASE("the turn goes on after the last sender served, also when new senders come in between") {
  Mailbox box;
  box.push(msg(5, 0));
  box.push(msg(7, 0));
  Message m;
  REQUIRE(box.pop(m));
  CHECK(m.from == 5);
  box.push(msg(2, 0)); // below the last served: its turn comes after 7's
  box.push(msg(5, 1));
  std::vector<int> order;
  while (box.pop(m))
    order.push_back(m.from);
  CHECK(order == std::vector<int>{7, 2, 5});
  box.push(msg(4, 0));
  box.clear();
  CHECK_FALSE(box.pop(m));
}
