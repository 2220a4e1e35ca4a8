! mr_fortran_ext.f90 -- HyGASPI multi-rank test of the Fortran module GASPI_Ext
! (fortran/gaspi_ext.f90), used as GPI-2 Fortran programs use it: beside module
! GASPI, with no name clash. Calls every extension and checks results and return codes;
! gaspi_printf / gaspi_printf_to print texts with '%' in them verbatim (the ctest checks the
! output). Rank 0 prints "SUCCESS mr_fortran_ext" (tests/run_mr.sh).
program mr_fortran_ext
  use GASPI
  use GASPI_Ext
  implicit none

  integer(gaspi_segment_id_t), parameter :: seg = 3
  integer(gaspi_size_t), parameter :: seg_size = 8192
  integer(gaspi_rank_t) :: rank = -1, nprocs, local_rank, local_num, peer
  integer(gaspi_number_t) :: initialized, elem_max
  integer(gaspi_segment_id_t) :: avail
  integer(gaspi_size_t) :: size, size_min
  real(gaspi_float) :: mhz

  call check(gaspi_initialized(initialized), 'gaspi_initialized before init')
  call expect(initialized == 0, 'not initialised before gaspi_proc_init')
  call check(gaspi_cpu_frequency(mhz), 'gaspi_cpu_frequency before init')
  call expect(mhz > 0.0, 'cpu frequency > 0')

  call check(gaspi_proc_init(GASPI_BLOCK), 'gaspi_proc_init')
  call check(gaspi_initialized(initialized), 'gaspi_initialized')
  call expect(initialized == 1, 'initialised after gaspi_proc_init')
  call check(gaspi_proc_rank(rank), 'gaspi_proc_rank')
  call check(gaspi_proc_num(nprocs), 'gaspi_proc_num')
  call check(gaspi_proc_local_rank(local_rank), 'gaspi_proc_local_rank')
  call check(gaspi_proc_local_num(local_num), 'gaspi_proc_local_num')
  call expect(local_num >= 1 .and. local_num <= nprocs, 'local_num in [1, num]')
  call expect(local_rank >= 0 .and. local_rank < local_num, 'local_rank in [0, local_num)')

  call check(gaspi_segment_avail_local(avail), 'gaspi_segment_avail_local')
  call expect(avail == 0, 'segment 0 is free')
  call check(gaspi_segment_create(seg, seg_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), &
      'gaspi_segment_create')
  peer = mod(rank + 1_gaspi_rank_t, nprocs)
  call check(gaspi_segment_size(seg, peer, size), 'gaspi_segment_size of the peer')
  call expect(size == seg_size, 'peer segment size')
  call expect(gaspi_segment_size(seg, nprocs, size) == GASPI_ERR_INV_RANK, 'segment_size of a bad rank')
  call check(gaspi_proc_ping(peer, GASPI_BLOCK), 'gaspi_proc_ping')
  call check(gaspi_rw_list_elem_max(elem_max), 'gaspi_rw_list_elem_max')
  call expect(elem_max >= 1, 'rw_list_elem_max >= 1')
  call check(gaspi_transfer_size_min(size_min), 'gaspi_transfer_size_min')
  call expect(size_min >= 0, 'transfer_size_min >= 0')
  call expect(gaspi_f_string(gaspi_error_str(GASPI_ERR_INV_RANK)) /= '', 'gaspi_error_str')
  call gaspi_delay()

  ! Texts with '%' print verbatim; a trailing C_NULL_CHAR (GPI-2 style) ends the text.
  if (rank == 0) then
    call gaspi_printf('100% printf, %s %d' // achar(10) // c_null_char)
    call gaspi_printf_to(nprocs - 1_gaspi_rank_t, '100% printf_to' // achar(10))
  end if

  ! every rank has read its peer's segment size before any rank deletes its segment
  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier')
  call check(gaspi_segment_delete(seg), 'gaspi_segment_delete')
  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier')
  call check(gaspi_proc_term(GASPI_BLOCK), 'gaspi_proc_term')
  if (rank == 0) write(*, '(a)') 'SUCCESS mr_fortran_ext'

contains

  subroutine check(ret, what)
    integer(gaspi_return_t), intent(in) :: ret
    character(len=*), intent(in) :: what
    if (ret /= GASPI_SUCCESS) then
      write(*, '(a,i0,a,a,a,i0)') 'rank ', rank, ': ', what, ' returned ', ret
      error stop 1
    end if
  end subroutine check

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write(*, '(a,i0,a,a)') 'rank ', rank, ': check failed: ', what
      error stop 1
    end if
  end subroutine expect

end program mr_fortran_ext
