#pragma once
// Ctrl-C and SIGTERM set a flag that every family's runs check, so a run
// stops cleanly (traces marked incomplete, earlier results kept) instead of
// dying.
namespace hopsim {

void catch_interrupts();
bool interrupted();

}  // namespace hopsim
