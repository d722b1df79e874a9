/* collsel: the command line.  One table of commands, the one list of them
 * (collsel --help prints it; cli/meson.build reads it for the man pages):
 * X(name, what it does).  Each command lives with the code it drives
 * (record/show.c, select/cmd_*.c, shim/exec_cmd.c, ...), has the signature
 * int cs_cmd_NAME(int argc, char **argv), argv[0] being the command name,
 * and its usage() is the only text of its options (collsel NAME --help).
 * Exit codes: 0 ok, 1 failure, 2 bad input or usage.  MPI-free. */
#include <stdio.h>
#include <string.h>

#include "collsel_config.h"
#include "shim/config.h"
#include "shim/flavours.h"

typedef int (*cs_cmd_fn)(int argc, char **argv);

/* clang-format off */
#define CS_COMMANDS(X) \
    X(autotune, "record, measure, tune and check in one command, with a report") \
    X(exec, "run a program with the collsel preload library (recording and/or selection)") \
    X(show, "the recorded collective distribution; two runs side by side") \
    X(methods, "every method: name, collective, parameters") \
    X(tune, "build the decision trees (quadtree or C4.5) from measured performance") \
    X(compare, "quadtree and C4.5 trees side by side: size, penalty, decision time") \
    X(tree, "print a decision tree, one line per leaf") \
    X(penalty, "the performance penalty of a tree against measured data") \
    X(map, "draw decision maps (or penalty heat maps) as PNG") \
    X(codegen, "generate C decision functions") \
    X(export, "export the tree as the tuning file of an Open MPI or MPICH release")
/* clang-format on */

#define CS_DECLARE(name, doc) int cs_cmd_##name(int argc, char **argv) __attribute__((weak));
CS_COMMANDS(CS_DECLARE)

static const struct {
    const char *name, *doc;
    cs_cmd_fn fn;
} commands[] = {
#define CS_ENTRY(name, doc) {#name, doc, cs_cmd_##name},
    CS_COMMANDS(CS_ENTRY)
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "collsel %s: find and use faster MPI collective methods\n\n"
               "usage: collsel COMMAND [ARGS]   (collsel COMMAND --help: its options;\n"
               "       collsel --version: the version and the MPI flavours installed)\n\n"
               "commands:\n",
            COLLSEL_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].doc);
    fprintf(f, "\n");
    cs_config_help(f);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("collsel %s\n", COLLSEL_VERSION);
        cs_flavours_print(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (!commands[i].fn) {
            fprintf(stderr, "collsel: command '%s' is not built in this version\n", argv[1]);
            return 2;
        }
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "collsel: unknown command '%s' (collsel --help lists them)\n", argv[1]);
    return 2;
}
