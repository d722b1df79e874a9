/* plant TARGET FROM TO NAME...: a symbolic link to TARGET at every NAME; a
 * NAME holding "%d" is one link per number FROM..TO (process ids: the
 * names a writer that used "FILE.tmp.PID" would have chosen), each made
 * under a name of its own and renamed into place.  For the tests of files
 * in shared directories (links.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: plant TARGET FROM TO NAME...\n");
        return 2;
    }
    long from = atol(argv[2]), to = atol(argv[3]);
    int n = 0;
    for (int i = 4; i < argc; i++) {
        int many = strstr(argv[i], "%d") != NULL;
        for (long k = many ? from : 0; k <= (many ? to : 0); k++) {
            char name[4096];
            snprintf(name, sizeof name, argv[i], (int)k);
            /* made aside and renamed over NAME: a writer may rename its
             * own file to NAME at any moment (unlink then symlink lost
             * that race to a snapshot on MPICH 4.2: EEXIST) */
            char tmp[4200];
            snprintf(tmp, sizeof tmp, "%s.plant.%ld", name, (long)getpid());
            unlink(tmp);
            if (symlink(argv[1], tmp) != 0 || rename(tmp, name) != 0) {
                fprintf(stderr, "plant: %s: %s\n", name, strerror(errno));
                unlink(tmp);
                return 1;
            }
            n++;
        }
    }
    printf("plant: %d links to %s\n", n, argv[1]);
    return 0;
}
