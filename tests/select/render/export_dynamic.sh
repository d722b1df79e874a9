#!/bin/sh
# export_dynamic.sh COLLSEL DIR: a tree whose leaves are the dynamic methods
# (reduce/allreduce .shm.dynamic and .node.dynamic, bcast.node.dynamic) exports to both formats,
# and each of them is reported as having no native counterpart (the
# libraries keep their own choice there; no node-aware or shared-memory
# algorithm of theirs stands in for it).
collsel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); dir=$2/export_dynamic; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
awk 'BEGIN {
    print "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps"
    for (p = 2; p <= 16; p *= 2)
        for (n = 8; n <= 1048576; n *= 8) {
            kind = n < 4096 ? "shm" : "node"
            print "reduce," p "," n ",reduce.native,10,9,11,5"
            print "reduce," p "," n ",reduce." kind ".dynamic,5,4,6,5"
            print "allreduce," p "," n ",allreduce.native,10,9,11,5"
            print "allreduce," p "," n ",allreduce." kind ".dynamic,5,4,6,5"
            print "bcast," p "," n ",bcast.native,10,9,11,5"
            print "bcast," p "," n ",bcast.node.dynamic,5,4,6,5"
        }
}' > perf.csv
"$collsel" tune --perf perf.csv -o d.tree > tune.txt 2>&1 || { cat tune.txt; exit 1; }
fails=0
for fmt in ompi-rules mpich-json; do
    "$collsel" export d.tree --format $fmt -o d.$fmt > out.$fmt 2>&1 || { echo "FAILED: export $fmt"; cat out.$fmt; fails=1; }
    for m in reduce.shm.dynamic allreduce.shm.dynamic reduce.node.dynamic allreduce.node.dynamic bcast.node.dynamic; do
        if ! grep -A1 "^  $m " out.$fmt | grep -q "no native counterpart exists"; then
            echo "FAILED: $fmt: $m not reported as having no native counterpart:"
            cat out.$fmt
            fails=1
        fi
    done
done
[ $fails -eq 0 ] && echo "export_dynamic: the 5 dynamic methods have no native counterpart in either format"
exit $fails
