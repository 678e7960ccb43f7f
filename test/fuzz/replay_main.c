/* replay_main.c - a harness without libFuzzer: runs LLVMFuzzerTestOneInput on each file
 * given (or each file of each folder given), so that the findings kept in
 * test/fuzz/regressions/ are replayed by every build, under ASan in CI's second pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
  if (!data || (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n)) {
    fclose(f);
    free(data);
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(data, (size_t)n);
  free(data);
  printf("replayed %s (%ld bytes)\n", path, n);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, replayed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) { /* a misspelt or lost folder must not pass as "nothing to replay" */
      fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      bad = 1;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad |= replay_file(argv[i]);
      replayed++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    for (struct dirent *e; d && (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      bad |= replay_file(path);
      replayed++;
    }
    if (d) closedir(d);
  }
  if (!replayed && !bad) {
    fprintf(stderr, "replay: no input found\n");
    bad = 1;
  }
  return bad;
}
