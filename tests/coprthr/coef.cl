/* Compiled at run time by clopen; COEF comes from clbuild's options. */
#ifndef COEF
#define COEF 1
#endif
__kernel void coef(__global float* a, __global float* c) {
  int i = get_global_id(0);
  c[i] = COEF * a[i];
}
