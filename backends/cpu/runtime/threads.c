/* threads.c - the one owner of a library's thread count: SHAPEC_NUM_THREADS or every
 * online CPU until shapec_model_set_num_threads changes it.  The thread pool (pool.c) and
 * OpenBLAS (gemm.c) read it here; nothing here calls them. */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernels.h"

static atomic_int wanted; /* threads a loop may use, the caller included; 0 = not yet chosen */

static int default_threads(void) {
  const char *env = getenv("SHAPEC_NUM_THREADS");
  long n = env ? strtol(env, NULL, 10) : 0;
  if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n <= 0) n = 1;
  return n > SC_RT_MAX_THREADS ? SC_RT_MAX_THREADS : (int)n;
}

int sc_rt_num_threads(void) {
  int n = atomic_load(&wanted);
  if (n == 0) {
    int expected = 0;
    atomic_compare_exchange_strong(&wanted, &expected, default_threads());
    n = atomic_load(&wanted);
  }
  return n;
}

__attribute__((visibility("default"))) int shapec_model_get_num_threads(void) { return sc_rt_num_threads(); }

__attribute__((visibility("default"))) int shapec_model_set_num_threads(int n) {
  if (n <= 0) n = default_threads();
  if (n > SC_RT_MAX_THREADS) n = SC_RT_MAX_THREADS;
  atomic_store(&wanted, n);
  return n;
}
