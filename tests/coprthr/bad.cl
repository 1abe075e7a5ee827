/* Does not compile: the variable is not declared. */
__kernel void bad(__global float* a) {
  a[get_global_id(0)] = undeclared_value;
}
