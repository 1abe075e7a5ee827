#include "hopsim/epiphany/sc_log.hpp"

#include <systemc>

#include "hopsim/core/log.hpp"

namespace hopsim::epiphany {
namespace {
void handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  if (!(actions & (sc_core::SC_DISPLAY | sc_core::SC_LOG))) {
    sc_core::sc_report_handler::default_handler(rep, actions);  // silenced: only what else is asked
    return;
  }
  auto log = hopsim::log::get("systemc");
  std::string msg = rep.get_msg_type();
  if (*rep.get_msg() != '\0') msg += std::string(": ") + rep.get_msg();
  switch (rep.get_severity()) {
    case sc_core::SC_INFO:
      log->debug("{}", msg);
      break;
    case sc_core::SC_WARNING:
      log->warn("{}", msg);
      break;
    case sc_core::SC_ERROR:
      log->error("{}", msg);
      break;
    default:
      log->critical("{}", msg);
      break;
  }
  // Logging is done; let SystemC carry out the remaining actions (throw, stop, abort).
  sc_core::sc_report_handler::default_handler(rep, actions & ~(sc_core::SC_DISPLAY | sc_core::SC_LOG));
}
}  // namespace

void route_sc_reports_to_spdlog() {
  sc_core::sc_report_handler::set_handler(handler);
  // The 2.3.x deprecation chatter about sc_start() without arguments is not for users.
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  // A run that stops (an error, Ctrl-C) may ask twice; the second ask is harmless.
  sc_core::sc_report_handler::set_actions("sc_stop has already been called", sc_core::SC_DO_NOTHING);
}
}  // namespace hopsim::epiphany

// libsystemc's own main() would call sc_main; hopsim programs have their own
// main() and start the simulation themselves, so this is never called.
extern "C" int sc_main(int, char**) { return 1; }
