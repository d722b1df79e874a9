! A known collective mix through the `use mpi_f08` bindings (Open MPI 4.1:
! mpi_*_f08_ procedures; handles are TYPE(MPI_Comm) etc., ierror optional
! and left out in some calls).  Rank 0 writes the expected counts (format of
! mix.c) to the file named by argument 1.
program f08mix
  use mpi_f08
  implicit none
  integer :: ierr, me, np, i, u
  integer :: ibuf(100), ibuf2(100)
  double precision :: dbuf(6)
  type(MPI_Request) :: req
  character(len=4096) :: path

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  ibuf = me
  dbuf = 1.0d0
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 1, 3
    call MPI_Bcast(ibuf, 7, MPI_INTEGER, np - 1, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, dbuf, 6, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (abs(dbuf(1) - np) > 1.0d-9) stop 2
  if (me == 0) then
    call MPI_Reduce(MPI_IN_PLACE, ibuf, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(ibuf, ibuf2, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Iallreduce(ibuf, ibuf2, 20, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (me == 0) then
    call get_command_argument(1, path)
    open(newunit=u, file=trim(path), status='replace')
    write(u, '(A,I0,A,I0)') 'Barrier ', np, ' 0 -1 ', 2 * np
    write(u, '(A,I0,A,I0,A,I0)') 'Bcast ', np, ' 28 ', np - 1, ' ', 3 * np
    write(u, '(A,I0,A,I0)') 'Allreduce ', np, ' 48 -1 ', np
    write(u, '(A,I0,A,I0)') 'Reduce ', np, ' 12 0 ', np
    write(u, '(A,I0,A,I0)') 'Iallreduce ', np, ' 80 -1 ', np
    close(u)
  end if
  call MPI_Finalize(ierr)
end program f08mix
