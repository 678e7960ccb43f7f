/* core_load.c - how many of the cores this process may run on other processes keep busy.
 *
 * oneDNN's primitives and the pool's loops split their work evenly between a team's
 * threads, so a thread that shares its core with another busy process holds the whole team
 * back: with a busy loop on one of two cores, two-thread calls took 1.7-2.7x their
 * one-thread time (bench/contention.py, Zen 5).  threads.c leaves such cores out of the
 * team.  The estimate: the busy time of the allowed CPUs in /proc/stat less this process's
 * own CPU time, over the last window of at least WINDOW_NS, taken on a calling thread when
 * a loop asks and the window has passed (one read of /proc/stat, tens of microseconds, five
 * times a second at most).  A core counts as held once others keep it busy HELD_FRACTION of
 * the time: a busy process sharing a core with one of the team's threads gets about half of
 * it, and the team waits for that thread all the same. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"

#define WINDOW_NS 200000000LL /* 10 ms ticks: +-0.1 of a core per CPU over 200 ms */
#define HELD_FRACTION 0.4

typedef struct sample {
  long long wall_ns, own_ns;          /* CLOCK_MONOTONIC, this process's CPU time */
  unsigned long long busy, total;     /* ticks summed over the allowed CPUs */
  int cpus;                           /* allowed CPUs seen in /proc/stat */
} sample;

static atomic_flag sampling = ATOMIC_FLAG_INIT; /* one thread samples; others use the last estimate */
static sample last;                             /* guarded by `sampling` */
static atomic_llong next_sample_ns;             /* 0: no sample yet */
static atomic_int held = 0, allowed_cpus = 0;   /* the last estimate; allowed_cpus 0: none yet */
static atomic_bool unreadable;                  /* no /proc/stat (a sandbox): never adapt */

static long long clock_ns(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Adds one "cpuN user nice system idle iowait irq softirq steal ..." line's ticks when N is
 * allowed; the aggregate "cpu " line has no number and is skipped. */
static void add_cpu_line(const char *line, const cpu_set_t *allowed, sample *s) {
  if (!isdigit((unsigned char)line[3])) return;
  char *end;
  long cpu = strtol(line + 3, &end, 10);
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, allowed)) return;
  unsigned long long v[8] = {0};
  for (int k = 0; k < 8; k++) v[k] = strtoull(end, &end, 10);
  unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]; /* steal: the host's other guests */
  s->busy += busy;
  s->total += busy + v[3] + v[4];
  s->cpus++;
}

/* The allowed CPUs' ticks from /proc/stat, whose "cpu" lines come first: read in pieces
 * until the first other line (its interrupt counts can run to many kilobytes). */
static bool read_ticks(sample *s) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[8192];
  size_t have = 0;
  bool done = false;
  while (!done) {
    ssize_t got = read(fd, buf + have, sizeof buf - 1 - have);
    if (got <= 0) break;
    have += (size_t)got;
    buf[have] = '\0';
    char *line = buf, *nl;
    while ((nl = memchr(line, '\n', (size_t)(buf + have - line)))) {
      *nl = '\0';
      if (strncmp(line, "cpu", 3) != 0) {
        done = true;
        break;
      }
      add_cpu_line(line, &allowed, s);
      line = nl + 1;
    }
    have = (size_t)(buf + have - line);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) break; /* a line longer than the buffer: not /proc/stat as known */
  }
  close(fd);
  return s->cpus > 0 && s->total > 0;
}

static void resample(long long now) {
  sample s = {.wall_ns = now, .own_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID)};
  if (!read_ticks(&s)) {
    atomic_store(&unreadable, true);
    return;
  }
  if (last.cpus == s.cpus && s.total > last.total && s.wall_ns > last.wall_ns) {
    double busy_cores = (double)s.cpus * (double)(s.busy - last.busy) / (double)(s.total - last.total);
    double own_cores = (double)(s.own_ns - last.own_ns) / (double)(s.wall_ns - last.wall_ns);
    int cores = (int)(busy_cores - own_cores + (1.0 - HELD_FRACTION));
    atomic_store(&held, cores < 0 ? 0 : cores > s.cpus ? s.cpus : cores);
    atomic_store(&allowed_cpus, s.cpus);
  }
  last = s;
}

int sc_rt_cores_held_elsewhere(int *allowed) {
  if (atomic_load_explicit(&unreadable, memory_order_relaxed)) return -1;
  long long now = clock_ns(CLOCK_MONOTONIC);
  long long due = atomic_load_explicit(&next_sample_ns, memory_order_relaxed);
  if (now >= due && !atomic_flag_test_and_set(&sampling)) {
    if (now >= atomic_load(&next_sample_ns)) {
      resample(now);
      atomic_store(&next_sample_ns, now + WINDOW_NS);
    }
    atomic_flag_clear(&sampling);
  }
  int cpus = atomic_load_explicit(&allowed_cpus, memory_order_relaxed);
  if (cpus == 0) return -1;
  *allowed = cpus;
  return atomic_load_explicit(&held, memory_order_relaxed);
}
