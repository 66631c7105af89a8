/*
 * What process work costs on this machine right now, for the bench to print
 * beside its ratios: the first touch of a fresh anonymous page, and a fork,
 * _exit and wait of a process that has touched 4 MB.
 *
 * And the first read, in a forked child, of a page its parent had touched:
 * no page fault, as fork copied the page table entry, yet on a guest whose
 * page tables the host shadows (PVM) each such page costs the host's work
 * the first time the child uses it (5 us where a fault cost 14 us). A task
 * between fork and exec, running Slurm's callbacks, uses a few hundred of
 * its slurmstepd's pages; the floor's child, which only execs, almost none.
 *
 * On a virtual machine these are not constants. A guest whose balloon device
 * reports free memory to the host (virtio's free page reporting) gets pages
 * back that the host must map again on first touch: here a page fault has
 * cost 2.2-2.8 us in one phase and 13-15 us in another, and every fork, exec
 * and exit with it. plugstack's step forks and faults more than the floor
 * does, so its ratios move with this more than with the load average.
 *
 *   machine            prints "fault=<us> fork=<us> childread=<us>" (medians of 5 rounds)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 5, FAULT_BYTES = 16 << 20, CHILD_BYTES = 4 << 20, FORKS = 50 };

static double nowMicros(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int byValue(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, n, sizeof *v, byValue);
  return v[n / 2];
}

/* Microseconds per page for the first write to each page of a new mapping. */
static double faultMicros(void) {
  long page = sysconf(_SC_PAGESIZE);
  char* p = mmap(NULL, FAULT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  double t = nowMicros();
  for (long i = 0; i < FAULT_BYTES; i += page) p[i] = 1;
  double per = (nowMicros() - t) / (FAULT_BYTES / page);
  munmap(p, FAULT_BYTES);
  return per;
}

/* Microseconds per fork + _exit + waitpid of a parent that has touched CHILD_BYTES. */
static double forkMicros(void) {
  double t = nowMicros();
  for (int i = 0; i < FORKS; i++) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) _exit(0); /* _exit: nothing of the parent's (stdio buffers) runs twice */
    if (waitpid(pid, NULL, 0) < 0) return -1;
  }
  return (nowMicros() - t) / FORKS;
}

/* Microseconds per page for a forked child's first read of the parent's touched pages. */
static double childReadMicros(const char* heap) {
  long page = sysconf(_SC_PAGESIZE);
  int out[2];
  if (pipe(out) < 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    volatile long sum = 0;
    double t = nowMicros();
    for (long i = 0; i < CHILD_BYTES; i += page) sum += heap[i];
    double per = (nowMicros() - t) / (CHILD_BYTES / page);
    _exit(write(out[1], &per, sizeof per) == sizeof per ? 0 : 1);
  }
  close(out[1]);
  double per = -1;
  if (read(out[0], &per, sizeof per) != sizeof per) per = -1;
  close(out[0]);
  if (waitpid(pid, NULL, 0) < 0) return -1;
  return per;
}

int main(void) {
  /* The parent's own size, as a host's: the children copy its page tables. */
  char* heap = malloc(CHILD_BYTES);
  if (!heap) return 1;
  for (long i = 0; i < CHILD_BYTES; i += 4096) heap[i] = 1;
  double faults[ROUNDS], forks[ROUNDS], reads[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    faults[r] = faultMicros();
    forks[r] = forkMicros();
    reads[r] = childReadMicros(heap);
    if (faults[r] < 0 || forks[r] < 0 || reads[r] < 0) return 1;
  }
  printf("fault=%.2f fork=%.1f childread=%.2f\n", median(faults, ROUNDS), median(forks, ROUNDS), median(reads, ROUNDS));
  return 0;
}
