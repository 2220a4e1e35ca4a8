// gaspi_config_t defaults (GPI-2's, GPI2-COMPAT.md) and the rules for a proposed configuration
// (spec §5.2.1: values are proposals; above a limit they are clamped, impossible ones rejected).
#pragma once
#include <GASPI.h>

#include <string>

namespace hygaspi {

gaspi_config_t default_config() noexcept;

// Clamps `config` to the limits. Returns false, with `error` set, if a value is impossible.
bool sanitize_config(gaspi_config_t &config, std::string &error);

} // namespace hygaspi
