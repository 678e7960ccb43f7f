/* threads.c - the one owner of a library's thread count: SHAPEC_NUM_THREADS or every CPU
 * the process may run on until shapec_model_set_num_threads changes it; and of the team a
 * loop starts now: that count less the threads that would share a core with another busy
 * process (core_load.c), unless SHAPEC_ADAPTIVE_THREADS=0.  The thread pool (pool.c),
 * oneDNN's calls (onednn.c) and the products (gemm.c) read them here; nothing here calls
 * them. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"

static atomic_int wanted; /* threads a loop may use, the caller included; 0 = not yet chosen */

static int default_threads(void) {
  const char *env = getenv("SHAPEC_NUM_THREADS");
  long n = env ? strtol(env, NULL, 10) : 0;
  /* the CPUs this process may run on, as PyTorch and OpenMP count them: under `taskset -c 0`
   * or a container's cpuset, a worker per online CPU would share the allowed cores with the
   * caller and wait for it (the encoder at batch 1 under `taskset -c 1`: 3.10-3.26 ms with
   * two threads, 2.77-2.85 with one) */
  cpu_set_t allowed;
  if (n <= 0 && sched_getaffinity(0, sizeof allowed, &allowed) == 0) n = CPU_COUNT(&allowed);
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

static int adaptive = -1; /* SHAPEC_ADAPTIVE_THREADS, read once (a benign race: every reader gets the same) */

int sc_rt_team_threads(void) {
  int n = sc_rt_num_threads();
  if (n == 1) return 1;
  if (adaptive < 0) {
    const char *env = getenv("SHAPEC_ADAPTIVE_THREADS");
    adaptive = !(env && strcmp(env, "0") == 0);
  }
  int allowed = 0, held = adaptive ? sc_rt_cores_held_elsewhere(&allowed) : -1;
  if (held <= 0) return n;
  /* the team's threads that cannot find a core of their own: more threads than allowed
   * CPUs was the caller's choice and stays, only the cores others hold are left out */
  int crowded = n + held - allowed;
  if (crowded > held) crowded = held;
  if (crowded <= 0) return n;
  return n - crowded < 1 ? 1 : n - crowded;
}

__attribute__((visibility("default"))) int shapec_model_get_num_threads(void) { return sc_rt_num_threads(); }

__attribute__((visibility("default"))) int shapec_model_get_active_threads(void) { return sc_rt_team_threads(); }

__attribute__((visibility("default"))) int shapec_model_set_num_threads(int n) {
  if (n <= 0) n = default_threads();
  if (n > SC_RT_MAX_THREADS) n = SC_RT_MAX_THREADS;
  atomic_store(&wanted, n);
  return n;
}
