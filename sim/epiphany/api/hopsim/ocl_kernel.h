/* What the COPRTHR stdcl kernel compiler gives an OpenCL-C kernel on the
 * Epiphany, as hopsim provides it (force-included into .cl kernel files). */
#ifndef HOPSIM_OCL_KERNEL_H
#define HOPSIM_OCL_KERNEL_H

#include "e_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define __kernel
#define __global
#define __local
#define __private
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

/* The work-item id: the core's index in the workgroup, row-major (0..15 on the E16). */
unsigned int get_global_id(unsigned int dim);
unsigned int get_local_id(unsigned int dim);
unsigned int get_global_size(unsigned int dim);
/* Synchronises every core of the launch. */
void barrier(int flags);

#ifdef __cplusplus
}
#endif
#endif
