/* An instruction hopsim cannot give a meaning on the host. */
int main(void) {
  unsigned status;
  __asm__ __volatile__("movfs %0, r12" : "=r"(status));
  return (int)status;
}
