/* collsel: the command line.  One table of commands; each command lives
 * with the code it drives (record/show.c, select/cmd_*.c, ...) and has the
 * signature int cs_cmd_NAME(int argc, char **argv), argv[0] being the
 * command name.  Exit codes: 0 ok, 1 failure, 2 bad input or usage. */
#include <stdio.h>
#include <string.h>

#include "shim/flavours.h"
#include "collsel_config.h"

typedef int (*cs_cmd_fn)(int argc, char **argv);

#define CS_COMMANDS(X)                                                              \
    X(autotune, "autotune [--launcher CMD | -n N] [--budget T] [-o TREE] -- APP ARGS",  \
      "record, measure, tune and check in one command, with a report")             \
    X(exec, "exec [--record F] [--tree F] [--force SPEC] -- APP ARGS",              \
      "run APP with the collsel preload library (recording and/or selection)")     \
    X(show, "show PROFILE [--csv|--json]", "the recorded collective distribution") \
    X(methods, "methods [--csv]", "every method: name, collective, parameters")     \
    X(tune, "tune --perf PERF [--profile P] [--max-depth N] [--threshold PCT] "    \
            "[--max-leaves N] [--c45 [-m N] [-c PCT] [--combined]] -o TREE",       \
      "build the decision trees (quadtree or C4.5) from measured performance")    \
    X(compare, "compare --perf PERF [--profile P] [-o CURVE.png] [--csv]",         \
      "quadtree and C4.5 trees side by side: size, penalty, decision time")       \
    X(tree, "tree show TREE", "print a decision tree, one line per leaf")          \
    X(penalty, "penalty TREE --perf PERF [--profile P]",                           \
      "the performance penalty of a tree against measured data")                   \
    X(map, "map (TREE|PERF) -o FILE.png [--penalty] [--profile P]",                \
      "draw decision maps (or penalty heat maps) as PNG")                          \
    X(codegen, "codegen TREE -o FILE.c", "generate C decision functions")          \
    X(export, "export TREE --format ompi-rules|mpich-json -o FILE",                \
      "export the tree as an Open MPI or MPICH tuning file")

#define CS_DECLARE(name, usage, doc) int cs_cmd_##name(int argc, char **argv) __attribute__((weak));
CS_COMMANDS(CS_DECLARE)

static const struct {
    const char *name, *usage, *doc;
} commands[] = {
#define CS_ENTRY(name, usage, doc) {#name, usage, doc},
    CS_COMMANDS(CS_ENTRY)
};

static cs_cmd_fn command_fn(size_t i)
{
    static const cs_cmd_fn fns[] = {
#define CS_FN(name, usage, doc) cs_cmd_##name,
        CS_COMMANDS(CS_FN)
    };
    return fns[i];
}

static void usage(FILE *f)
{
    fprintf(f, "collsel %s: find and use faster MPI collective methods\n\n"
               "usage: collsel COMMAND [ARGS]   (collsel COMMAND --help for details;\n"
               "       collsel --version: the version and the MPI flavours installed)\n\n",
            COLLSEL_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n            collsel %s\n", commands[i].name, commands[i].doc,
                commands[i].usage);
    fprintf(f, "\nenvironment of the preload library (libcollsel.so): COLLSEL_RECORD=FILE,\n"
               "COLLSEL_TREE=FILE, COLLSEL_FORCE=bcast=NAME,reduce=NAME,barrier=NAME,\n"
               "COLLSEL_VERBOSE=0..3\n");
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
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        cs_cmd_fn fn = command_fn(i);
        if (!fn) {
            fprintf(stderr, "collsel: command '%s' is not built in this version\n", argv[1]);
            return 2;
        }
        return fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "collsel: unknown command '%s' (collsel --help lists them)\n", argv[1]);
    return 2;
}
