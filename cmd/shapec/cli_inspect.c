/* cli_inspect.c - `shapec inspect`: its command line (inspect.c reads the library). */
#include <stdbool.h>
#include <stddef.h>

#include "commands.h"
#include "inspect.h"
#include "options.h"

const char sc_usage_inspect[] =
    "usage: shapec inspect MODEL.so [--json]\n"
    "\n"
    "What a built library expects, read from the library alone (the report it embeds): its\n"
    "inputs and outputs with their dtypes and symbolic shapes, the ranges of the symbols,\n"
    "the replacements, the guards it checks on every call, its runtime asserts, its targets\n"
    "(CPU features, CUDA architecture), and the model and spec it was built from.\n"
    "\n"
    "options:\n"
    "  --json           print the embedded report (constraints.json) as it is\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 printed; 2 usage error; 3 not a loadable shapec library\n";


enum { OPT_JSON = 2 };

static const sc_option inspect_options[] = {{"json", 0, false, OPT_JSON}};

int sc_main_inspect(int argc, char **argv) {
  const char *path = NULL;
  bool as_json = false;
  sc_options p;
  sc_options_begin(&p, "inspect", sc_usage_inspect, inspect_options, 1, argc, argv);
  int id, status = -1;
  const char *v;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case SC_OPTIONS_POSITIONAL:
      if (path) status = sc_options_error(&p, "more than one MODEL.so given ('%s')", v);
      path = v;
      break;
    case OPT_JSON: as_json = true; break;
    }
  }
  if (status < 0 && !path) status = sc_options_error(&p, "%s", "no MODEL.so given");
  sc_options_end(&p);
  return status >= 0 ? status : sc_cmd_inspect(path, as_json);
}
