#include <doctest/doctest.h>

#include "core/config.hpp"
#include "core/limits.hpp"

TEST_CASE("defaults match GPI-2") {
  gaspi_config_t c = hygaspi::default_config();
  CHECK(c.queue_num == 8);
  CHECK(c.queue_size_max == 1024);
  CHECK(c.group_max == 32);
  CHECK(c.segment_max == 255);
  CHECK(c.transfer_size_max == (1ul << 30));
  CHECK(c.notification_num == 65536);
  CHECK(c.passive_queue_size_max == 1024);
  CHECK(c.passive_transfer_size_max == 65535);
  CHECK(c.allreduce_buf_size == 2040);
  CHECK(c.allreduce_elem_max == 255);
  CHECK(c.rw_list_elem_max == 255);
  CHECK(c.build_infrastructure == GASPI_TOPOLOGY_STATIC);
  // GPI-2's device parameters, by name: GPI-2's TCP-build defaults.
  CHECK(c.dev_config.network_type == GASPI_ETHERNET);
  CHECK(c.dev_config.params.ib.netdev_id == -1);
  CHECK(c.dev_config.params.ib.port_check == 1);
  CHECK(c.dev_config.params.tcp.port == 19000);
  CHECK(c.dev_config.params.ofi.use_shm == 1);
  CHECK(c.dev_config.params.ofi.progress_auto == 1);
}

TEST_CASE("device parameters are kept as proposed and never rejected") {
  std::string error;
  gaspi_config_t c = hygaspi::default_config();
  c.dev_config.params.tcp.port = 23456;
  c.dev_config.params.ib.mtu = 4096;
  c.dev_config.params.ofi.provider_info = 1;
  REQUIRE(hygaspi::sanitize_config(c, error));
  CHECK(c.dev_config.params.tcp.port == 23456);
  CHECK(c.dev_config.params.ib.mtu == 4096);
  CHECK(c.dev_config.params.ofi.provider_info == 1);
}

TEST_CASE("proposals above a limit are clamped; impossible ones are rejected") {
  std::string error;
  gaspi_config_t c = hygaspi::default_config();
  c.queue_num = 1000;
  c.segment_max = 100000;
  REQUIRE(hygaspi::sanitize_config(c, error));
  CHECK(c.queue_num == hygaspi::limits::kMaxQueues);
  CHECK(c.segment_max == hygaspi::limits::kMaxSegments);

  gaspi_config_t zero = hygaspi::default_config();
  zero.queue_num = 0;
  CHECK_FALSE(hygaspi::sanitize_config(zero, error));
  CHECK(error.find("queue_num") != std::string::npos);

  gaspi_config_t bad = hygaspi::default_config();
  bad.build_infrastructure = static_cast<gaspi_topology_t>(7);
  CHECK_FALSE(hygaspi::sanitize_config(bad, error));
}

TEST_CASE("values the machine can give are granted; type widths clamp and are named once") {
  std::string error, overruled;
  gaspi_config_t c = hygaspi::default_config();
  c.allreduce_elem_max = 1000000;
  c.transfer_size_max = 1ul << 40;
  c.notification_num = 1u << 24;
  c.rw_list_elem_max = 1u << 20;
  c.queue_size_max = 1u << 24;
  c.passive_transfer_size_max = 1ul << 24;
  c.allreduce_buf_size = 1ul << 24;
  REQUIRE(hygaspi::sanitize_config(c, error, &overruled));
  CHECK(overruled.empty());
  CHECK(c.allreduce_elem_max == 1000000);
  CHECK(c.transfer_size_max == (1ul << 40));
  CHECK(c.notification_num == (1u << 24));
  CHECK(c.rw_list_elem_max == (1u << 20));
  CHECK(c.queue_size_max == (1u << 24));
  CHECK(c.passive_transfer_size_max == (1ul << 24));
  CHECK(c.allreduce_buf_size == (1ul << 24));

  gaspi_config_t w = hygaspi::default_config();
  w.segment_max = 300;
  w.group_max = 1000;
  w.allreduce_buf_size = 1ul << 40; // one MPI message among the leaders: int count
  REQUIRE(hygaspi::sanitize_config(w, error, &overruled));
  CHECK(w.segment_max == 256);
  CHECK(w.group_max == 256);
  CHECK(w.allreduce_buf_size == hygaspi::limits::kMaxAllreduceBuf);
  CHECK(overruled == "group_max 1000 -> 256, segment_max 300 -> 256, allreduce_buf_size 1099511627776 -> 2147483647");
  CHECK(overruled.find('\n') == std::string::npos); // one line
}

TEST_CASE("notification_num 0 is allowed: segments without notifications") {
  std::string error;
  gaspi_config_t c = hygaspi::default_config();
  c.notification_num = 0;
  REQUIRE(hygaspi::sanitize_config(c, error));
  CHECK(c.notification_num == 0);
}
