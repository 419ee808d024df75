/* Callgrind's client requests for Python through ctypes; no-ops outside valgrind.
   Run under: valgrind --tool=callgrind --instr-atstart=no (collection stays on: every thread counts). */
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void cg_stop(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
