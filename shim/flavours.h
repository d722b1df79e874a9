/* The MPI flavours of collsel (command-line side): one build per MPI
 * library, installed side by side, and which one a program needs.
 *
 * A flavour's files carry its suffix: libcollsel.so / collsel-replay
 * (Open MPI), libcollsel-mpich.so / collsel-replay-mpich (MPICH).  They
 * are found next to the running collsel executable: ../shim and ../replay
 * in a build tree (that build's flavour only), ../LIBDIR and the same bin
 * directory once installed (every flavour installed into that prefix).
 *
 * Which MPI library a program uses is read from its dynamic dependencies,
 * resolved by the system's loader (the program's ELF interpreter run with
 * LD_TRACE_LOADED_OBJECTS, as ldd does: direct and indirect dependencies,
 * LD_LIBRARY_PATH and run paths included); the same is read from each
 * flavour's preload library, and the two must name the same MPI library
 * (libmpi.so.40, libmpich.so.12, ...).
 */
#ifndef COLLSEL_FLAVOURS_H
#define COLLSEL_FLAVOURS_H

#include <stddef.h>

#include "common/util.h"

#ifndef COLLSEL_LIBDIR
#define COLLSEL_LIBDIR "lib" /* where libraries are installed, under the prefix */
#endif

typedef struct cs_flavour {
    const char *name;   /* as in -Dmpi= and --mpi: openmpi, mpich */
    const char *title;  /* for people: Open MPI, MPICH */
    const char *suffix; /* of every file of the flavour: "", "-mpich" */
} cs_flavour;

extern const cs_flavour cs_flavours[] CS_HIDDEN;
extern const int cs_nflavours CS_HIDDEN;

/* The index of flavour name, or -1. */
int cs_flavour_by_name(const char *name) CS_HIDDEN;

/* Path (absolute) of flavour f's preload library, installed next to this
 * collsel; -1 if it is not there. */
int cs_flavour_lib(int f, char *path, size_t len) CS_HIDDEN;

/* Path of flavour f's TOOL (collsel-replay, collsel-bench): "TOOL" plus
 * the flavour's suffix, next to this collsel; -1 if it is not there. */
int cs_flavour_tool(int f, const char *tool, char *path, size_t len) CS_HIDDEN;

/* The MPI library that the program or library at path loads: 1 and its
 * soname (libmpi.so.40) and resolved path; 0 if none (*why says: a
 * script, statically linked, no MPI among its dependencies); -1 if the
 * file cannot be read (*why says why). */
int cs_mpi_of(const char *path, char *soname, size_t sn, char *where, size_t wn, char *why,
              size_t yn) CS_HIDDEN;

/* The installed flavour for program prog (a path, or a name looked up in
 * PATH as execvp does): its index, -1 with one line in why when there is
 * none (not an MPI program, or an MPI no installed flavour is built for).
 * A program with no MPI among its dependencies (an interpreter such as
 * python3 with mpi4py, a script) gets the flavour of the launcher that
 * started it, when the environment names one (Open MPI's mpirun, MPICH's
 * hydra) and it is installed, else -3 (why says so);
 * -2 when prog is not found (execvp will say so). */
int cs_flavour_for(const char *prog, char *why, size_t yn) CS_HIDDEN;

/* The installed flavour whose launcher prog is (looked up in PATH, links
 * followed, as Debian's alternatives point mpirun at mpirun.openmpi or
 * mpirun.mpich; orterun, prterun, mpiexec.hydra): its index, or -1. */
int cs_flavour_of_launcher(const char *prog) CS_HIDDEN;

/* One line per installed flavour (for collsel --version). */
void cs_flavours_print(FILE *f) CS_HIDDEN;

#endif
