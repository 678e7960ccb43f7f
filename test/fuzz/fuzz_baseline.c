/* fuzz_baseline.c - `shapec check`'s baseline: any JSON compared with a real report's
 * contract (test/golden/expected/tutorial_auto.report.json). */
#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "lib/report/contract.h"

#ifndef FUZZ_REPORT
#error "FUZZ_REPORT: the path of a report"
#endif

static cJSON *current;

static void load_report(void) {
  FILE *f = fopen(FUZZ_REPORT, "rb");
  if (!f) abort();
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  current = cJSON_Parse(buf);
  if (!current) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!current) load_report();
  char *text = fuzz_text(data, size);
  cJSON *baseline = cJSON_Parse(text);
  if (baseline) {
    sc_contract_diff diff;
    memset(&diff, 0, sizeof diff);
    sc_contract_compare(baseline, current, &diff);
    sc_contract_diff_free(&diff);
    cJSON_Delete(baseline);
  }
  free(text);
  return 0;
}
