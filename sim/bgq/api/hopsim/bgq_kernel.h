/* hopsim's hooks for BG/Q kernels: arguments from the scenario, timings
 * and data checks back to the run's report, the compute model, and the
 * polling hook a spin loop must call. */
#ifndef HOPSIM_BGQ_KERNEL_H
#define HOPSIM_BGQ_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Integer argument `name` of kernel.args (KernelError if the kernel has none of that name). */
long hopsim_bgq_arg(const char* name);
/* One timing of this rank: `what` in iteration `iter`, in time-base cycles. */
void hopsim_bgq_record(const char* what, int iter, uint64_t cycles);
/* Result of a data check: `checked` values of which `wrong` differ; example describes the first bad one. */
void hopsim_bgq_check(const char* what, uint64_t checked, uint64_t wrong, const char* example);
/* Folds bytes into this rank's data digest (compared between native and simulated runs). */
void hopsim_bgq_digest(const void* data, size_t bytes);
/* Charges the compute model for a loop of `elements` elements spread over `threads` hardware threads
 * (simulated runs; native runs measure the real loop). */
void hopsim_bgq_compute(uint64_t elements, int threads);
/* One iteration of a polling loop on memory the MU writes. */
void hopsim_bgq_spin(void);
#define HOPSIM_SPIN_WAIT() hopsim_bgq_spin()

#ifdef __cplusplus
}
#endif

#endif
