/* instr_c.c - a C program compiled with -finstrument-functions and linked
 * with scope-profiler::instrument; it places no region by hand (the
 * library sets up at load and writes at exit). Calls, per function:
 *   main 1, work 5, square 20 (static: named from .symtab), fib 15
 *   (recursive: fib(5)), tiny 25 (INSTR_TINY_CALLS: as many), skip_me 4. */
#include <stdio.h>
#include <stdlib.h>

int work(int i);
int fib(int n);
int tiny(int x);
int skip_me(int x);

static int square(int x) { return x * x; }

int work(int i) {
  int s = 0;
  for (int k = 0; k < 4; k++) s += square(i + k);
  return s;
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int tiny(int x) { return x + 1; }

int skip_me(int x) { return x - 1; }

int main(void) {
  volatile int acc = 0;
  for (int i = 0; i < 5; i++) acc += work(i);
  acc += fib(5) + fib(0) + fib(1) - fib(1) - fib(0); /* fib(5) = 15 calls, then 4 more */
  const char *tiny_calls = getenv("INSTR_TINY_CALLS");
  int ntiny = tiny_calls ? atoi(tiny_calls) : 25;
  for (int i = 0; i < ntiny; i++) acc = tiny(acc);
  for (int i = 0; i < 4; i++) acc = skip_me(acc);
  printf("%d\n", acc);
  return 0;
}
