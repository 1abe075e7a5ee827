#pragma once
namespace hopsim::epiphany {
// Installs an sc_report handler that logs through spdlog (logger "systemc")
// and keeps SystemC's own actions for errors (throw/stop/abort).
void route_sc_reports_to_spdlog();
}  // namespace hopsim::epiphany
