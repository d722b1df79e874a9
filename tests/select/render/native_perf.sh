#!/bin/sh
# native_perf.sh OUT.csv: a small table where the native methods win in
# places (the exports map them to the library's own choice).
cat > "$1" <<'CSV'
collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps
bcast,2,8,bcast.native,5,5,5,10
bcast,2,8,bcast.binomial,2,2,2,10
bcast,2,65536,bcast.native,20,20,20,10
bcast,2,65536,bcast.binomial,40,40,40,10
bcast,8,8,bcast.native,3,3,3,10
bcast,8,8,bcast.binomial,6,6,6,10
bcast,8,65536,bcast.native,90,90,90,10
bcast,8,65536,bcast.binomial,50,50,50,10
reduce,2,8,reduce.native,2,2,2,10
reduce,2,8,reduce.rabenseifner,9,9,9,10
reduce,2,65536,reduce.native,60,60,60,10
reduce,2,65536,reduce.rabenseifner,30,30,30,10
reduce,8,8,reduce.native,2,2,2,10
reduce,8,8,reduce.rabenseifner,9,9,9,10
reduce,8,65536,reduce.native,60,60,60,10
reduce,8,65536,reduce.rabenseifner,30,30,30,10
allreduce,2,8,allreduce.native,2,2,2,10
allreduce,2,8,allreduce.rabenseifner,9,9,9,10
allreduce,2,65536,allreduce.native,60,60,60,10
allreduce,2,65536,allreduce.rabenseifner,30,30,30,10
allreduce,8,8,allreduce.native,2,2,2,10
allreduce,8,8,allreduce.rabenseifner,9,9,9,10
allreduce,8,65536,allreduce.native,60,60,60,10
allreduce,8,65536,allreduce.rabenseifner,30,30,30,10
barrier,2,0,barrier.native,1,1,1,10
barrier,2,0,barrier.dissemination,2,2,2,10
barrier,8,0,barrier.native,5,5,5,10
barrier,8,0,barrier.dissemination,4,4,4,10
CSV
