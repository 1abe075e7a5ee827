#pragma once
namespace hopsim::bgq {
// Registers the shipped BG/Q kernels (idempotent).
void register_bgq_kernels();
}  // namespace hopsim::bgq
