/* Does not compile: the variable is not declared. */
__kernel void bad(__global float* a) {
  const unsigned int i = get_global_id(0);
  a[i] = undeclared_value;
}
