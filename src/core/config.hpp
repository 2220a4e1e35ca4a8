// gaspi_config_t defaults (GPI-2's, docs/COMPATIBILITY.md) and the rules for a proposed configuration
// (spec §5.2.1: values are proposals; above what the machine can give they are clamped, impossible
// ones rejected).
#pragma once
#include <GASPI.h>

#include <string>

namespace hygaspi {

gaspi_config_t default_config() noexcept;

// Clamps `config` to the limits (core/limits.hpp). Returns false, with `error` set, if a value is
// impossible. `overruled`, when given, gets "name proposed -> granted" for each clamped value,
// comma-separated (empty when every proposal was granted).
bool sanitize_config(gaspi_config_t &config, std::string &error, std::string *overruled = nullptr);

} // namespace hygaspi
