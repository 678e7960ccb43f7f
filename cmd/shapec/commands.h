/* commands.h - the shapec commands, each the main of its own command line: argv[0] is
 * the command's name ("export"), and the return value is the exit status. */
#ifndef SC_CMD_COMMANDS_H
#define SC_CMD_COMMANDS_H

int sc_main_export(int argc, char **argv);
int sc_main_run(int argc, char **argv);
int sc_main_check(int argc, char **argv);
int sc_main_explain(int argc, char **argv);
int sc_main_inspect(int argc, char **argv);
int sc_main_spec(int argc, char **argv);

/* Each command's usage, for `shapec help COMMAND`. */
extern const char sc_usage_export[], sc_usage_run[], sc_usage_check[], sc_usage_explain[], sc_usage_inspect[],
    sc_usage_spec[];

#endif
