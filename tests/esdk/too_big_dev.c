/* 36 KiB of statics: more than an eCore's 32 KiB; e-gcc must refuse it. */
int big[9216];
int main(void) {
  big[9215] = 1;
  return big[0];
}
