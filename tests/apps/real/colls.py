# mpi4py under collsel: Python-object and buffer collectives over the world
# and a split communicator; every rank writes what it received to
# colls.RANK.out in the current directory.  The doubles summed are multiples of 1/8, so every sum
# is exact whatever the order of combination (an order that changes the
# last bits, as between the MPI library's own algorithms, is not a
# difference of collsel's).
import array
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
lines = []
for step in range(40):
    obj = comm.bcast({"step": step, "payload": list(range(step * 10))} if rank == step % size else None,
                     root=step % size)
    lines.append("bcast obj %d %d" % (obj["step"], sum(obj["payload"])))
    n = 1 + step * 97
    buf = array.array("d", [float(rank * n + i) / 8.0 for i in range(n)])
    out = array.array("d", [0.0] * n)
    comm.Allreduce(buf, out, op=MPI.SUM)
    lines.append("allreduce %d %.17g %.17g" % (n, out[0], out[-1]))
    ib = array.array("i", [rank + i for i in range(n)])
    io = array.array("i", [0] * n)
    comm.Reduce(ib, io, op=MPI.MAX, root=(step + 1) % size)
    if rank == (step + 1) % size:
        lines.append("reduce max %d %d" % (io[0], io[-1]))
    bb = array.array("b", [(step + i) % 127 for i in range(n * 8)]) if rank == 0 else array.array("b", [0] * (n * 8))
    comm.Bcast(bb, root=0)
    lines.append("Bcast %d" % sum(bb))
    comm.Barrier()
    lines.append("allreduce obj %d" % comm.allreduce(rank * step, op=MPI.SUM))
sub = comm.Split(rank % 2, rank)
lines.append("sub allreduce %d" % sub.allreduce(rank, op=MPI.SUM))
sub.Free()
with open("colls.%d.out" % rank, "w") as f:
    f.write("".join("%d: %s\n" % (rank, l) for l in lines))
