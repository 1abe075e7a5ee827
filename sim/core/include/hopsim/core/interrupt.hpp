#pragma once
// Ctrl-C and SIGTERM set a flag that every family's runs check, so a run
// stops cleanly (traces marked incomplete, earlier results kept) instead of
// dying.
#include <string>

namespace hopsim {

void catch_interrupts();
bool interrupted();
// The signal that interrupted the run (SIGINT, SIGTERM), 0 when none did.
int interrupt_signal();
// The message of an interrupted run, naming what interrupted it:
// "interrupted (Ctrl-C)" for SIGINT, "interrupted (SIGTERM)" for SIGTERM.
std::string interrupted_by();

}  // namespace hopsim
