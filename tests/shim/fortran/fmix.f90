! A known collective mix from Fortran (`use mpi`: in Open MPI these bindings
! call PMPI_* directly: only the shim's Fortran entry points see them).
! Rank 0 writes what every rank called to the file named by argument 1, in
! the format of mix.c ("COLL COMM_SIZE BYTES ROOT RANK_CALLS"), for
! shim_check.  MPI_IN_PLACE is used at the roots and in MPI_ALLREDUCE.
program fmix
  use mpi
  implicit none
  integer :: ierr, me, np, i, req, u
  integer :: ibuf(1000), ibuf2(1000), counts(64), displs(64)
  double precision :: dbuf(5)
  character(len=4096) :: path

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  ibuf = me
  dbuf = 1.0d0

  do i = 1, 2
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end do
  do i = 1, 3
    call MPI_BCAST(ibuf, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end do
  do i = 1, 2
    if (me == np - 1) then
      call MPI_REDUCE(MPI_IN_PLACE, dbuf, 5, MPI_DOUBLE_PRECISION, MPI_SUM, np - 1, &
                      MPI_COMM_WORLD, ierr)
    else
      call MPI_REDUCE(dbuf, dbuf, 5, MPI_DOUBLE_PRECISION, MPI_SUM, np - 1, &
                      MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, ibuf, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    call MPI_GATHER(MPI_IN_PLACE, 3, MPI_INTEGER, ibuf2, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_GATHER(ibuf, 3, MPI_INTEGER, ibuf2, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_IBCAST(ibuf, 25, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call MPI_ALLTOALL(ibuf, 2, MPI_INTEGER, ibuf2, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, np
    counts(i) = i
    displs(i) = i * (i - 1) / 2
  end do
  call MPI_ALLGATHERV(ibuf, me + 1, MPI_INTEGER, ibuf2, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  call MPI_SCAN(ibuf, ibuf2, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) stop 1

  if (me == 0) then
    call get_command_argument(1, path)
    open(newunit=u, file=trim(path), status='replace')
    write(u, '(A,I0,A,I0)') 'Barrier ', np, ' 0 -1 ', 2 * np
    write(u, '(A,I0,A,I0)') 'Bcast ', np, ' 40 0 ', 3 * np
    write(u, '(A,I0,A,I0,A,I0)') 'Reduce ', np, ' 40 ', np - 1, ' ', 2 * np
    write(u, '(A,I0,A,I0)') 'Allreduce ', np, ' 16 -1 ', np
    write(u, '(A,I0,A,I0)') 'Gather ', np, ' 12 0 ', np
    write(u, '(A,I0,A,I0)') 'Ibcast ', np, ' 100 0 ', np
    write(u, '(A,I0,A,I0)') 'Alltoall ', np, ' 8 -1 ', np
    write(u, '(A,I0,A,I0,A,I0)') 'Allgatherv ', np, ' ', (2 * np * (np + 1) + np / 2) / np, &
      ' -1 ', np
    write(u, '(A,I0,A,I0)') 'Scan ', np, ' 4 -1 ', np
    close(u)
  end if
  call MPI_FINALIZE(ierr)
end program fmix
