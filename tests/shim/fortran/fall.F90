! Every intercepted collective once from Fortran, blocking and non-blocking,
! through `use mpi` (default) or `use mpi_f08` (-DF08): 4 integers per rank
! (16 bytes), root 0, on MPI_COMM_WORLD.  Rank 0 writes what every rank
! called to the file named by argument 1, in the format of mix.c
! ("COLL COMM_SIZE BYTES ROOT RANK_CALLS"), for shim_check; fall.sh also
! checks that every call site is in this program, not in the MPI library.
! It checks a few results too (the arguments must reach MPI intact).
! Neighborhood collectives run on a ring (a distributed graph); with
! -DMPI4 (MPICH 4) persistent collectives too, each start counted in the
! cell of its blocking form.
program fall
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: NC = 4
  integer :: ierr, me, np, i, u, bad
  integer :: sb(NC * 64), rb(NC * 64), cnts(64), displs(64), bdispls(64)
  integer :: ncnt(2), ndsp(2), left
  integer(kind=MPI_ADDRESS_KIND) :: ndis(2)
#ifdef F08
  type(MPI_Request) :: req
  type(MPI_Datatype) :: types(64), ntypes(2)
  type(MPI_Comm) :: ring
#ifdef MPI4
  type(MPI_Request) :: preqs(2)
#endif
#else
  integer :: req
  integer :: types(64), ntypes(2)
  integer :: ring
#ifdef MPI4
  integer :: preqs(2)
#endif
#endif
#ifdef MPI4
  integer(kind=MPI_ADDRESS_KIND) :: addr
#endif
  character(len=4096) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > 64) stop 2
  do i = 1, np
    cnts(i) = NC
    displs(i) = (i - 1) * NC
    bdispls(i) = (i - 1) * NC * 4
    types(i) = MPI_INTEGER
  end do
  sb = me + 1
  rb = 0
  bad = 0

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Bcast(sb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (sb(1) /= 1) bad = bad + 1
  sb = me + 1
  call MPI_Reduce(sb, rb, NC, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0 .and. rb(1) /= np * (np + 1) / 2) bad = bad + 1
  call MPI_Allreduce(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rb(NC) /= np * (np + 1) / 2) bad = bad + 1
  call MPI_Gather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gatherv(sb, NC, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Scatter(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Scatterv(sb, cnts, displs, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allgather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (rb(NC * (np - 1) + 1) /= np) bad = bad + 1
  call MPI_Allgatherv(sb, NC, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Alltoall(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Alltoallv(sb, cnts, displs, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call MPI_Alltoallw(sb, cnts, bdispls, types, rb, cnts, bdispls, types, MPI_COMM_WORLD, ierr)
  call MPI_Reduce_scatter(sb, rb, cnts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce_scatter_block(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Scan(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rb(1) /= (me + 1) * (me + 2) / 2) bad = bad + 1
  call MPI_Exscan(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ibcast(sb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (sb(NC) /= 1) bad = bad + 1
  sb = me + 1
  call MPI_Ireduce(sb, rb, NC, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iallreduce(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Igather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Igatherv(sb, NC, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                    req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iscatter(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iscatterv(sb, cnts, displs, MPI_INTEGER, rb, NC, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                     req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iallgather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iallgatherv(sb, NC, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                       req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ialltoall(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ialltoallv(sb, cnts, displs, MPI_INTEGER, rb, cnts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ialltoallw(sb, cnts, bdispls, types, rb, cnts, bdispls, types, MPI_COMM_WORLD, &
                      req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ireduce_scatter(sb, rb, cnts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ireduce_scatter_block(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iscan(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rb(1) /= (me + 1) * (me + 2) / 2) bad = bad + 1
  call MPI_Iexscan(sb, rb, NC, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  ! neighborhood collectives on a ring (a distributed graph: MPICH 4.0.2's
  ! f08 Neighbor_alltoallw asks for one): neighbours (left, right)
  left = mod(me + np - 1, np)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, [left, mod(me + 1, np)], &
                                      MPI_UNWEIGHTED, 2, [left, mod(me + 1, np)], &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring, ierr)
  ncnt = NC
  ndsp = [0, NC]
  ndis = [0_MPI_ADDRESS_KIND, int(NC * 4, MPI_ADDRESS_KIND)]
  ntypes = MPI_INTEGER
  sb = me + 1
  call MPI_Neighbor_allgather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, ring, ierr)
  if (rb(1) /= left + 1) bad = bad + 1
  call MPI_Neighbor_allgatherv(sb, NC, MPI_INTEGER, rb, ncnt, ndsp, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_alltoall(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, ring, ierr)
  call MPI_Neighbor_alltoallv(sb, ncnt, ndsp, MPI_INTEGER, rb, ncnt, ndsp, MPI_INTEGER, &
                              ring, ierr)
  rb = 0
  call MPI_Neighbor_alltoallw(sb, ncnt, ndis, ntypes, rb, ncnt, ndis, ntypes, ring, ierr)
  if (rb(1) /= left + 1) bad = bad + 1
  call MPI_Ineighbor_allgather(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ineighbor_allgatherv(sb, NC, MPI_INTEGER, rb, ncnt, ndsp, MPI_INTEGER, ring, &
                                req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ineighbor_alltoall(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Ineighbor_alltoallv(sb, ncnt, ndsp, MPI_INTEGER, rb, ncnt, ndsp, MPI_INTEGER, &
                               ring, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  rb = 0
  call MPI_Ineighbor_alltoallw(sb, ncnt, ndis, ntypes, rb, ncnt, ndis, ntypes, ring, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (rb(1) /= left + 1) bad = bad + 1

#ifdef MPI4
  ! persistent: a bcast of 8 integers started twice, then with a barrier
  ! by MPI_Startall; a neighborhood allgather started once
  call MPI_Bcast_init(sb, 2 * NC, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, preqs(1), ierr)
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, preqs(2), ierr)
  do i = 1, 2
    call MPI_Start(preqs(1), ierr)
    call MPI_Wait(preqs(1), MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Startall(2, preqs, ierr)
  call MPI_Wait(preqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(preqs(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Get_address(sb, addr, ierr) ! sb not kept in registers over the start
  if (sb(2 * NC) /= 1) bad = bad + 1
  call MPI_Request_free(preqs(1), ierr)
  call MPI_Request_free(preqs(2), ierr)
  sb = me + 1
  call MPI_Neighbor_allgather_init(sb, NC, MPI_INTEGER, rb, NC, MPI_INTEGER, ring, &
                                   MPI_INFO_NULL, preqs(1), ierr)
  rb = 0
  call MPI_Start(preqs(1), ierr)
  call MPI_Wait(preqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Get_address(rb, addr, ierr)
  if (rb(1) /= left + 1) bad = bad + 1
  call MPI_Request_free(preqs(1), ierr)
#endif
  call MPI_Comm_free(ring, ierr)

  if (bad /= 0) then
    print '(A,I0,A,I0)', 'fall: rank ', me, ': wrong results: ', bad
    stop 1
  end if
  if (me == 0) then
    call get_command_argument(1, path)
    open(newunit=u, file=trim(path), status='replace')
    write(u, '(A,I0,A,I0)') 'Barrier ', np, ' 0 -1 ', np
    write(u, '(A,I0,A,I0)') 'Ibarrier ', np, ' 0 -1 ', np
    call rooted('Bcast')
    call rooted('Reduce')
    call rooted('Gather')
    call rooted('Gatherv')
    call rooted('Scatter')
    call rooted('Scatterv')
    call rooted('Ibcast')
    call rooted('Ireduce')
    call rooted('Igather')
    call rooted('Igatherv')
    call rooted('Iscatter')
    call rooted('Iscatterv')
    call unrooted('Allreduce')
    call unrooted('Allgather')
    call unrooted('Allgatherv')
    call unrooted('Alltoall')
    call unrooted('Alltoallv')
    call unrooted('Alltoallw')
    call unrooted('Reduce_scatter')
    call unrooted('Reduce_scatter_block')
    call unrooted('Scan')
    call unrooted('Exscan')
    call unrooted('Iallreduce')
    call unrooted('Iallgather')
    call unrooted('Iallgatherv')
    call unrooted('Ialltoall')
    call unrooted('Ialltoallv')
    call unrooted('Ialltoallw')
    call unrooted('Ireduce_scatter')
    call unrooted('Ireduce_scatter_block')
    call unrooted('Iscan')
    call unrooted('Iexscan')
    call unrooted('Neighbor_allgather')
    call unrooted('Neighbor_allgatherv')
    call unrooted('Neighbor_alltoall')
    call unrooted('Neighbor_alltoallv')
    call unrooted('Neighbor_alltoallw')
    call unrooted('Ineighbor_allgather')
    call unrooted('Ineighbor_allgatherv')
    call unrooted('Ineighbor_alltoall')
    call unrooted('Ineighbor_alltoallv')
    call unrooted('Ineighbor_alltoallw')
#ifdef MPI4
    write(u, '(A,I0,A,I0)') 'Bcast ', np, ' 32 0 ', 3 * np
    write(u, '(A,I0,A,I0)') 'Barrier ', np, ' 0 -1 ', np
    call unrooted('Neighbor_allgather')
#endif
    close(u)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine rooted(name)
    character(len=*), intent(in) :: name
    write(u, '(A,A,I0,A,I0)') name, ' ', np, ' 16 0 ', np
  end subroutine rooted

  subroutine unrooted(name)
    character(len=*), intent(in) :: name
    write(u, '(A,A,I0,A,I0)') name, ' ', np, ' 16 -1 ', np
  end subroutine unrooted

end program fall
