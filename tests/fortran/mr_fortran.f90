! mr_fortran.f90 -- HyGASPI multi-rank test of the Fortran module GASPI (fortran/gaspi.f90).
! Checks the bind(C) layout of gaspi_config_t against C, then: configuration by value,
! a notified ring exchange (gaspi_write_notify / gaspi_notify_waitsome / gaspi_notify_reset),
! allreduce (SUM of doubles, exact; MAX of ints), a global atomic counter, and the strings.
! Rank 0 prints "SUCCESS mr_fortran" (tests/run_mr.sh).
module mr_fortran_util
  use GASPI
  implicit none
  integer(gaspi_rank_t) :: my_rank = -1

contains

  subroutine check(ret, what)
    integer(gaspi_return_t), intent(in) :: ret
    character(len=*), intent(in) :: what
    if (ret /= GASPI_SUCCESS) then
      write(*, '(a,i0,a,a,a,i0,a,a)') 'rank ', my_rank, ': ', what, ' returned ', ret, ': ', &
          gaspi_f_string(gaspi_error_str(ret))
      error stop 1
    end if
  end subroutine check

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write(*, '(a,i0,a,a)') 'rank ', my_rank, ': check failed: ', what
      error stop 1
    end if
  end subroutine expect

  ! Byte offset of field from base.
  integer(c_long) function offset_of(field, base)
    type(c_ptr), intent(in) :: field, base
    offset_of = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_long)
  end function offset_of

  subroutine check_config_layout()
    interface
      subroutine c_layout(out) bind(C, name="hygaspi_test_config_layout")
        import
        implicit none
        integer(c_long), intent(out) :: out(*)
      end subroutine c_layout
    end interface
    integer, parameter :: nfields = 32
    type(gaspi_config_t), target :: c
    type(c_ptr) :: b
    integer(c_long) :: want(nfields), have(nfields)
    integer :: i

    call c_layout(want)
    b = c_loc(c)
    have = [c_sizeof(c), c_sizeof(c%dev_config), &
        offset_of(c_loc(c%logger), b), offset_of(c_loc(c%sn_port), b), &
        offset_of(c_loc(c%net_info), b), offset_of(c_loc(c%user_net), b), &
        offset_of(c_loc(c%sn_persistent), b), offset_of(c_loc(c%sn_timeout), b), &
        offset_of(c_loc(c%dev_config), b), offset_of(c_loc(c%dev_config%network_type), b), &
        offset_of(c_loc(c%dev_config%params), b), offset_of(c_loc(c%dev_config%params%ib%netdev_id), b), &
        offset_of(c_loc(c%dev_config%params%ib%mtu), b), offset_of(c_loc(c%dev_config%params%ib%port_check), b), &
        offset_of(c_loc(c%dev_config%params%tcp%port), b), offset_of(c_loc(c%dev_config%params%ofi%use_shm), b), &
        offset_of(c_loc(c%dev_config%params%ofi%provider_info), b), &
        offset_of(c_loc(c%dev_config%params%ofi%progress_auto), b), &
        offset_of(c_loc(c%network), b), offset_of(c_loc(c%queue_size_max), b), &
        offset_of(c_loc(c%queue_num), b), offset_of(c_loc(c%group_max), b), &
        offset_of(c_loc(c%segment_max), b), offset_of(c_loc(c%transfer_size_max), b), &
        offset_of(c_loc(c%notification_num), b), offset_of(c_loc(c%passive_queue_size_max), b), &
        offset_of(c_loc(c%passive_transfer_size_max), b), offset_of(c_loc(c%allreduce_buf_size), b), &
        offset_of(c_loc(c%allreduce_elem_max), b), offset_of(c_loc(c%rw_list_elem_max), b), &
        offset_of(c_loc(c%build_infrastructure), b), offset_of(c_loc(c%user_defined), b)]
    do i = 1, nfields
      if (have(i) /= want(i)) then
        write(*, '(a,i0,a,i0,a,i0)') 'gaspi_config_t layout entry ', i, ': Fortran ', have(i), &
            ', C ', want(i)
        error stop 1
      end if
    end do
  end subroutine check_config_layout

end module mr_fortran_util

program mr_fortran
  use GASPI_C_BINDING          ! the spec's module name; the same contents as GASPI
  use mr_fortran_util
  implicit none

  integer(gaspi_segment_id_t), parameter :: seg = 0
  integer(gaspi_queue_id_t), parameter :: queue = 0
  integer(gaspi_size_t), parameter :: seg_size = 65536
  integer(gaspi_offset_t), parameter :: send_off = 0, recv_off = 4096, counter_off = 8192
  integer, parameter :: nv = 64, na = 16, rounds = 3
  integer(gaspi_notification_id_t), parameter :: ring_id = 0

  type(gaspi_config_t) :: cfg
  integer(gaspi_rank_t) :: nprocs, left, right
  integer(gaspi_number_t) :: num
  integer(gaspi_notification_id_t) :: first_id
  integer(gaspi_notification_t) :: old_val
  integer(gaspi_atomic_value_t) :: old, total, counter
  type(c_ptr) :: seg_ptr
  real(c_double), pointer :: dbl(:)
  integer(c_long), pointer :: lng(:)
  real(c_double), target :: x(na), y(na)
  integer(c_int), target :: ix(1), iy(1)
  integer :: i, r

  call check_config_layout()

  ! Configuration: defaults read through the bind(C) type, then passed back by value.
  call check(gaspi_config_get(cfg), 'gaspi_config_get')
  call expect(cfg%queue_num == 8, 'default queue_num == 8')
  call expect(cfg%group_max == 32, 'default group_max == 32')
  call expect(cfg%build_infrastructure == GASPI_TOPOLOGY_STATIC, 'default build_infrastructure')
  call expect(cfg%dev_config%params%tcp%port == 19000, 'default dev_config%params%tcp%port')
  cfg%group_max = 16
  cfg%dev_config%params%tcp%port = 23456
  call check(gaspi_config_set(cfg), 'gaspi_config_set')
  call check(gaspi_config_get(cfg), 'gaspi_config_get')
  call expect(cfg%dev_config%params%tcp%port == 23456, 'dev_config%params%tcp%port kept')

  call check(gaspi_proc_init(GASPI_BLOCK), 'gaspi_proc_init')
  call check(gaspi_proc_rank(my_rank), 'gaspi_proc_rank')
  call check(gaspi_proc_num(nprocs), 'gaspi_proc_num')
  call expect(my_rank >= 0 .and. my_rank < nprocs, 'rank in [0, num)')
  call check(gaspi_queue_num(num), 'gaspi_queue_num')
  call expect(num == 8, 'gaspi_queue_num == 8')
  call check(gaspi_group_max(num), 'gaspi_group_max')
  call expect(num == 16, 'gaspi_group_max == 16 (set through gaspi_config_set)')
  call expect(gaspi_f_string(gaspi_error_str(GASPI_TIMEOUT)) /= '', 'gaspi_error_str text')

  call check(gaspi_segment_create(seg, seg_size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), &
      'gaspi_segment_create')
  call check(gaspi_segment_ptr(seg, seg_ptr), 'gaspi_segment_ptr')
  call expect(c_associated(seg_ptr), 'segment pointer')
  call c_f_pointer(seg_ptr, dbl, [seg_size / 8])
  call c_f_pointer(seg_ptr, lng, [seg_size / 8])
  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier (after create)')

  ! Ring: each rank writes nv doubles to its right neighbour and notifies it.
  right = int(mod(int(my_rank) + 1, int(nprocs)), gaspi_rank_t)
  left = int(mod(int(my_rank) - 1 + nprocs, int(nprocs)), gaspi_rank_t)
  do r = 1, rounds
    do i = 1, nv
      dbl(send_off / 8 + i) = real(my_rank, c_double) * 1000 + r * 100 + i
    end do
    call check(gaspi_write_notify(seg, send_off, right, seg, recv_off, int(nv * 8, gaspi_size_t), &
        ring_id, int(my_rank + 1, gaspi_notification_t), queue, GASPI_BLOCK), 'gaspi_write_notify')
    call check(gaspi_notify_waitsome(seg, ring_id, 1_gaspi_number_t, first_id, GASPI_BLOCK), &
        'gaspi_notify_waitsome')
    call expect(first_id == ring_id, 'waitsome first_id')
    call check(gaspi_notify_reset(seg, first_id, old_val), 'gaspi_notify_reset')
    call expect(old_val == left + 1, 'notification value == left + 1')
    do i = 1, nv
      call expect(dbl(recv_off / 8 + i) == real(left, c_double) * 1000 + r * 100 + i, 'ring data')
    end do
    call check(gaspi_wait(queue, GASPI_BLOCK), 'gaspi_wait')
    ! nobody writes round r + 1 before every rank has read round r
    call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier (ring)')
  end do

  ! Allreduce: SUM of doubles (exact: small integers and halves), MAX of ints.
  do i = 1, na
    x(i) = real(my_rank + 1, c_double) * i + 0.5_c_double
  end do
  y = -1
  call check(gaspi_allreduce(c_loc(x), c_loc(y), int(na, gaspi_number_t), GASPI_OP_SUM, &
      GASPI_TYPE_DOUBLE, GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_allreduce (sum)')
  do i = 1, na
    call expect(y(i) == real(i, c_double) * (nprocs * (nprocs + 1) / 2) + 0.5_c_double * nprocs, &
        'allreduce SUM of doubles')
  end do
  ix(1) = my_rank
  call check(gaspi_allreduce(c_loc(ix), c_loc(iy), 1_gaspi_number_t, GASPI_OP_MAX, &
      GASPI_TYPE_INT, GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_allreduce (max)')
  call expect(iy(1) == nprocs - 1, 'allreduce MAX of ints')

  ! Atomic counter on rank 0: every rank adds rank + 1.
  total = int(nprocs, gaspi_atomic_value_t) * (nprocs + 1) / 2
  call check(gaspi_atomic_fetch_add(seg, counter_off, 0_gaspi_rank_t, &
      int(my_rank + 1, gaspi_atomic_value_t), old, GASPI_BLOCK), 'gaspi_atomic_fetch_add')
  call expect(old >= 0 .and. old + my_rank + 1 <= total, 'fetch_add old value in range')
  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier (atomics)')
  call check(gaspi_atomic_fetch_add(seg, counter_off, 0_gaspi_rank_t, 0_gaspi_atomic_value_t, &
      counter, GASPI_BLOCK), 'gaspi_atomic_fetch_add (read)')
  call expect(counter == total, 'counter == n (n + 1) / 2 after the barrier')
  if (my_rank == 0) call expect(lng(counter_off / 8 + 1) == total, 'counter in rank 0 memory')
  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier (reads)')
  if (my_rank == 0) then
    call check(gaspi_atomic_compare_swap(seg, counter_off, 0_gaspi_rank_t, total, 0_gaspi_atomic_value_t, &
        old, GASPI_BLOCK), 'gaspi_atomic_compare_swap')
    call expect(old == total .and. lng(counter_off / 8 + 1) == 0, 'compare_swap')
  end if

  call check(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), 'gaspi_barrier (final)')
  call check(gaspi_segment_delete(seg), 'gaspi_segment_delete')
  call check(gaspi_proc_term(GASPI_BLOCK), 'gaspi_proc_term')
  if (my_rank == 0) then
    write(*, '(a)') 'SUCCESS mr_fortran'
    flush(6)
  end if
end program mr_fortran
