/* Stores beyond core (1,1)'s local memory: outside every memory. */
#include <e_lib.h>
int main(void) {
  volatile int* p = (volatile int*)e_get_global_address(1, 1, (void*)0x8000);
  *p = 42;
  return 0;
}
