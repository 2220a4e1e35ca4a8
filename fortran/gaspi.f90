! gaspi.f90 -- HyGASPI
!
! Fortran 2003 bindings of the GASPI 17.1 API (spec section 2.2: every procedure has an
! interface bind(C, name="gaspi_...")) plus the common GPI-2 extensions of GASPI_Ext.h
! (all but the variadic gaspi_printf / gaspi_printf_to).
!
! Modules:
!   GASPI_types      kind parameters of the GASPI types (GPI-2's module name)
!   GASPI            kinds, constants, gaspi_config_t and all interfaces (GPI-2's module name);
!                    re-exports iso_c_binding, as GPI-2's module does
!   GASPI_C_BINDING  the module name the specification's Fortran listings use; same contents
!
! Kinds follow the C widths of GASPI_types.h (GPI-2 on x86-64). Fortran has no unsigned
! integers: the unsigned C types map to the signed kind of the same width, e.g. a rank
! above 32767 reads as a negative integer(gaspi_rank_t), GASPI_BLOCK is -1 (all bits set).
! Value arguments must have the exact kind, e.g. 0_gaspi_segment_id_t, not 0.
!
! Conventions (those of GPI-2's GASPI.f90 and of the spec's Fortran listings):
!   - scalar inputs are passed with VALUE; scalar outputs by reference (intent(out));
!   - arrays and memory buffers (group_ranks, segment_id_list, the *_list arguments,
!     allreduce buffers, state_vector, segment_bind/use memory) are type(c_ptr), value:
!     pass c_loc(array) of an array with the TARGET attribute;
!   - char ** outputs (gaspi_print_error, gaspi_error_message, gaspi_statistic_counter_info)
!     are type(c_ptr), intent(out) receiving a pointer to a static C string. The spec's
!     listing declares them character(c_char), dimension(*), which does not match its C
!     prototype (gaspi_string_t *); gaspi_f_string() converts the returned pointer.

!-----------------------------------------------------------------------------------------
module GASPI_types
!-----------------------------------------------------------------------------------------
  use, intrinsic :: iso_c_binding
  implicit none

  ! basic data types (GASPI_types.h, spec section 3.3)
  integer, parameter :: gaspi_char = c_char
  integer, parameter :: gaspi_uchar = c_signed_char
  integer, parameter :: gaspi_short = c_short
  integer, parameter :: gaspi_ushort = c_short
  integer, parameter :: gaspi_int = c_int
  integer, parameter :: gaspi_uint = c_int
  integer, parameter :: gaspi_long = c_long
  integer, parameter :: gaspi_ulong = c_long
  integer, parameter :: gaspi_float = c_float
  integer, parameter :: gaspi_double = c_double

  ! GASPI-specific types (spec section 4)
  integer, parameter :: gaspi_return_t = c_int
  integer, parameter :: gaspi_rank_t = c_short
  integer, parameter :: gaspi_segment_id_t = c_signed_char
  integer, parameter :: gaspi_queue_id_t = c_signed_char
  integer, parameter :: gaspi_group_t = c_signed_char
  integer, parameter :: gaspi_number_t = c_int
  integer, parameter :: gaspi_notification_id_t = c_int
  integer, parameter :: gaspi_notification_t = c_int
  integer, parameter :: gaspi_statistic_counter_t = c_int
  integer, parameter :: gaspi_offset_t = c_long
  integer, parameter :: gaspi_size_t = c_long
  integer, parameter :: gaspi_atomic_value_t = c_long
  integer, parameter :: gaspi_timeout_t = c_long
  integer, parameter :: gaspi_cycles_t = c_long
  integer, parameter :: gaspi_alloc_t = c_long
  integer, parameter :: gaspi_time_t = c_float          ! real kind: milliseconds
  integer, parameter :: gaspi_memory_description_t = c_int

  ! C enumerations (all int-sized)
  integer, parameter :: gaspi_state_t = c_int
  integer, parameter :: gaspi_topology_t = c_int
  integer, parameter :: gaspi_network_t = c_int
  integer, parameter :: gaspi_operation_t = c_int
  integer, parameter :: gaspi_datatype_t = c_int
  integer, parameter :: gaspi_statistic_argument_t = c_int

  integer(gaspi_group_t), parameter :: GASPI_GROUP_ALL = 0_gaspi_group_t
end module GASPI_types

!-----------------------------------------------------------------------------------------
module GASPI
!-----------------------------------------------------------------------------------------
  use, intrinsic :: iso_c_binding
  use GASPI_types
  implicit none

  ! timeouts (spec section 4)
  integer(gaspi_timeout_t), parameter :: GASPI_BLOCK = -1_gaspi_timeout_t
  integer(gaspi_timeout_t), parameter :: GASPI_TEST = 0_gaspi_timeout_t

  ! return values (gaspi_return_t, GPI-2 numbering)
  integer(gaspi_return_t), parameter :: GASPI_ERROR = -1
  integer(gaspi_return_t), parameter :: GASPI_SUCCESS = 0
  integer(gaspi_return_t), parameter :: GASPI_TIMEOUT = 1
  integer(gaspi_return_t), parameter :: GASPI_ERR_EMFILE = 2
  integer(gaspi_return_t), parameter :: GASPI_ERR_ENV = 3
  integer(gaspi_return_t), parameter :: GASPI_ERR_SN_PORT = 4
  integer(gaspi_return_t), parameter :: GASPI_ERR_CONFIG = 5
  integer(gaspi_return_t), parameter :: GASPI_ERR_NOINIT = 6
  integer(gaspi_return_t), parameter :: GASPI_ERR_INITED = 7
  integer(gaspi_return_t), parameter :: GASPI_ERR_NULLPTR = 8
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_SEGSIZE = 9
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_SEG = 10
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_GROUP = 11
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_RANK = 12
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_QUEUE = 13
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_LOC_OFF = 14
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_REM_OFF = 15
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_COMMSIZE = 16
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_NOTIF_VAL = 17
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_NOTIF_ID = 18
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_NUM = 19
  integer(gaspi_return_t), parameter :: GASPI_ERR_INV_SIZE = 20
  integer(gaspi_return_t), parameter :: GASPI_ERR_MANY_SEG = 21
  integer(gaspi_return_t), parameter :: GASPI_ERR_MANY_GRP = 22
  integer(gaspi_return_t), parameter :: GASPI_QUEUE_FULL = 23
  integer(gaspi_return_t), parameter :: GASPI_ERR_UNALIGN_OFF = 24
  integer(gaspi_return_t), parameter :: GASPI_ERR_ACTIVE_COLL = 25
  integer(gaspi_return_t), parameter :: GASPI_ERR_DEVICE = 26
  integer(gaspi_return_t), parameter :: GASPI_ERR_SN = 27
  integer(gaspi_return_t), parameter :: GASPI_ERR_MEMALLOC = 28

  ! process states (gaspi_state_t)
  integer(gaspi_state_t), parameter :: GASPI_STATE_HEALTHY = 0
  integer(gaspi_state_t), parameter :: GASPI_STATE_CORRUPT = 1

  ! segment allocation policies (gaspi_alloc_t bit flags; NUMA bits are HyGASPI extensions)
  integer(gaspi_alloc_t), parameter :: GASPI_MEM_UNINITIALIZED = 0
  integer(gaspi_alloc_t), parameter :: GASPI_MEM_INITIALIZED = 1
  integer(gaspi_alloc_t), parameter :: GASPI_ALLOC_DEFAULT = GASPI_MEM_UNINITIALIZED
  integer(gaspi_alloc_t), parameter :: GASPI_ALLOC_NUMA_LOCAL = 2
  integer(gaspi_alloc_t), parameter :: GASPI_ALLOC_NUMA_INTERLEAVE = 4

  ! topologies (gaspi_topology_t)
  integer(gaspi_topology_t), parameter :: GASPI_TOPOLOGY_NONE = 0
  integer(gaspi_topology_t), parameter :: GASPI_TOPOLOGY_STATIC = 1
  integer(gaspi_topology_t), parameter :: GASPI_TOPOLOGY_DYNAMIC = 2

  ! networks (gaspi_network_t)
  integer(gaspi_network_t), parameter :: GASPI_IB = 0
  integer(gaspi_network_t), parameter :: GASPI_ROCE = 1
  integer(gaspi_network_t), parameter :: GASPI_ETHERNET = 2
  integer(gaspi_network_t), parameter :: GASPI_GEMINI = 3
  integer(gaspi_network_t), parameter :: GASPI_ARIES = 4
  integer(gaspi_network_t), parameter :: GASPI_OFI = 5

  ! reductions (gaspi_operation_t, gaspi_datatype_t; GPI-2's datatype order)
  integer(gaspi_operation_t), parameter :: GASPI_OP_MIN = 0
  integer(gaspi_operation_t), parameter :: GASPI_OP_MAX = 1
  integer(gaspi_operation_t), parameter :: GASPI_OP_SUM = 2
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_INT = 0
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_UINT = 1
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_FLOAT = 2
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_DOUBLE = 3
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_LONG = 4
  integer(gaspi_datatype_t), parameter :: GASPI_TYPE_ULONG = 5

  ! statistics (gaspi_statistic_argument_t)
  integer(gaspi_statistic_argument_t), parameter :: GASPI_STATISTIC_ARGUMENT_NONE = 0
  integer(gaspi_statistic_argument_t), parameter :: GASPI_STATISTIC_ARGUMENT_RANK = 1

  ! Network device settings: the C struct gaspi_dev_config_t, field for field (GPI-2's
  ! layout: cfg%dev_config%params%tcp%port and so on). HyGASPI keeps and ignores them.
  type, bind(C) :: gaspi_dev_config_ib_t
    integer(gaspi_int) :: netdev_id
    integer(gaspi_uint) :: mtu
    integer(gaspi_uint) :: port_check
  end type gaspi_dev_config_ib_t

  type, bind(C) :: gaspi_dev_config_tcp_t
    integer(gaspi_uint) :: port
  end type gaspi_dev_config_tcp_t

  type, bind(C) :: gaspi_dev_config_ofi_t
    integer(gaspi_int) :: use_shm
    integer(gaspi_int) :: provider_info
    integer(gaspi_int) :: progress_auto
  end type gaspi_dev_config_ofi_t

  type, bind(C) :: gaspi_dev_config_params_t
    type(gaspi_dev_config_ib_t) :: ib
    type(gaspi_dev_config_tcp_t) :: tcp
    type(gaspi_dev_config_ofi_t) :: ofi
  end type gaspi_dev_config_params_t

  type, bind(C) :: gaspi_dev_config_t
    integer(gaspi_network_t) :: network_type
    type(gaspi_dev_config_params_t) :: params
  end type gaspi_dev_config_t

  ! Configuration (spec section 5.2.1): the C struct gaspi_config_t, field for field
  ! (GPI-2-only fields first, then the fields the specification names).
  type, bind(C) :: gaspi_config_t
    integer(gaspi_uint) :: logger
    integer(gaspi_uint) :: sn_port
    integer(gaspi_int) :: net_info
    integer(gaspi_int) :: user_net
    integer(gaspi_int) :: sn_persistent
    integer(gaspi_timeout_t) :: sn_timeout
    type(gaspi_dev_config_t) :: dev_config
    integer(gaspi_network_t) :: network
    integer(gaspi_number_t) :: queue_size_max
    integer(gaspi_number_t) :: queue_num
    integer(gaspi_number_t) :: group_max
    integer(gaspi_number_t) :: segment_max
    integer(gaspi_size_t) :: transfer_size_max
    integer(gaspi_number_t) :: notification_num
    integer(gaspi_number_t) :: passive_queue_size_max
    integer(gaspi_size_t) :: passive_transfer_size_max
    integer(gaspi_size_t) :: allreduce_buf_size
    integer(gaspi_number_t) :: allreduce_elem_max
    integer(gaspi_number_t) :: rw_list_elem_max
    integer(gaspi_topology_t) :: build_infrastructure
    type(c_ptr) :: user_defined
  end type gaspi_config_t

  ! A user-defined reduction (gaspi_allreduce_user's reduce_operation, spec section 11.4.2)
  ! has this interface; pass c_funloc(my_operation).
  abstract interface
    function gaspi_reduce_operation_t(op1, op2, res, state, num, element_size, timeout_ms) &
        result(ret) bind(C)
      import
      implicit none
      type(c_ptr), value :: op1
      type(c_ptr), value :: op2
      type(c_ptr), value :: res
      type(c_ptr), value :: state
      integer(gaspi_number_t), value :: num
      integer(gaspi_size_t), value :: element_size
      integer(gaspi_timeout_t), value :: timeout_ms
      integer(gaspi_return_t) :: ret
    end function gaspi_reduce_operation_t
  end interface

  interface
    ! -------------------------------------------------------------------------------------
    ! GASPI.h: the GASPI 17.1 API
    ! -------------------------------------------------------------------------------------
      function gaspi_config_get(config) &
          result(res) bind(C, name="gaspi_config_get")
        import
        implicit none
        type(gaspi_config_t), intent(out) :: config
        integer(gaspi_return_t) :: res
      end function gaspi_config_get

      function gaspi_config_set(new_config) &
          result(res) bind(C, name="gaspi_config_set")
        import
        implicit none
        type(gaspi_config_t), value :: new_config
        integer(gaspi_return_t) :: res
      end function gaspi_config_set

      function gaspi_proc_init(timeout_ms) &
          result(res) bind(C, name="gaspi_proc_init")
        import
        implicit none
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_proc_init

      function gaspi_proc_num(proc_num) &
          result(res) bind(C, name="gaspi_proc_num")
        import
        implicit none
        integer(gaspi_rank_t), intent(out) :: proc_num
        integer(gaspi_return_t) :: res
      end function gaspi_proc_num

      function gaspi_proc_rank(rank) &
          result(res) bind(C, name="gaspi_proc_rank")
        import
        implicit none
        integer(gaspi_rank_t), intent(out) :: rank
        integer(gaspi_return_t) :: res
      end function gaspi_proc_rank

      function gaspi_proc_term(timeout_ms) &
          result(res) bind(C, name="gaspi_proc_term")
        import
        implicit none
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_proc_term

      function gaspi_proc_kill(rank, timeout_ms) &
          result(res) bind(C, name="gaspi_proc_kill")
        import
        implicit none
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_proc_kill

      function gaspi_connect(rank, timeout_ms) &
          result(res) bind(C, name="gaspi_connect")
        import
        implicit none
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_connect

      function gaspi_disconnect(rank, timeout_ms) &
          result(res) bind(C, name="gaspi_disconnect")
        import
        implicit none
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_disconnect

      function gaspi_state_vec_get(state_vector) &
          result(res) bind(C, name="gaspi_state_vec_get")
        import
        implicit none
        type(c_ptr), value :: state_vector
        integer(gaspi_return_t) :: res
      end function gaspi_state_vec_get

      function gaspi_group_create(group) &
          result(res) bind(C, name="gaspi_group_create")
        import
        implicit none
        integer(gaspi_group_t), intent(out) :: group
        integer(gaspi_return_t) :: res
      end function gaspi_group_create

      function gaspi_group_add(group, rank) &
          result(res) bind(C, name="gaspi_group_add")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_return_t) :: res
      end function gaspi_group_add

      function gaspi_group_commit(group, timeout_ms) &
          result(res) bind(C, name="gaspi_group_commit")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_group_commit

      function gaspi_group_delete(group) &
          result(res) bind(C, name="gaspi_group_delete")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        integer(gaspi_return_t) :: res
      end function gaspi_group_delete

      function gaspi_group_num(group_num) &
          result(res) bind(C, name="gaspi_group_num")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: group_num
        integer(gaspi_return_t) :: res
      end function gaspi_group_num

      function gaspi_group_size(group, group_size) &
          result(res) bind(C, name="gaspi_group_size")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        integer(gaspi_number_t), intent(out) :: group_size
        integer(gaspi_return_t) :: res
      end function gaspi_group_size

      function gaspi_group_ranks(group, group_ranks) &
          result(res) bind(C, name="gaspi_group_ranks")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        type(c_ptr), value :: group_ranks
        integer(gaspi_return_t) :: res
      end function gaspi_group_ranks

      function gaspi_segment_alloc(segment_id, size, alloc_policy) &
          result(res) bind(C, name="gaspi_segment_alloc")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_size_t), value :: size
        integer(gaspi_alloc_t), value :: alloc_policy
        integer(gaspi_return_t) :: res
      end function gaspi_segment_alloc

      function gaspi_segment_register(segment_id, rank, timeout_ms) &
          result(res) bind(C, name="gaspi_segment_register")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_segment_register

      function gaspi_segment_create(segment_id, size, group, timeout_ms, &
          alloc_policy) &
          result(res) bind(C, name="gaspi_segment_create")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_size_t), value :: size
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_alloc_t), value :: alloc_policy
        integer(gaspi_return_t) :: res
      end function gaspi_segment_create

      function gaspi_segment_bind(segment_id, pointer, size, memory_description) &
          result(res) bind(C, name="gaspi_segment_bind")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        type(c_ptr), value :: pointer
        integer(gaspi_size_t), value :: size
        integer(gaspi_memory_description_t), value :: memory_description
        integer(gaspi_return_t) :: res
      end function gaspi_segment_bind

      function gaspi_segment_use(segment_id, pointer, size, group, &
          timeout_ms, memory_description) &
          result(res) bind(C, name="gaspi_segment_use")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        type(c_ptr), value :: pointer
        integer(gaspi_size_t), value :: size
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_memory_description_t), value :: memory_description
        integer(gaspi_return_t) :: res
      end function gaspi_segment_use

      function gaspi_segment_delete(segment_id) &
          result(res) bind(C, name="gaspi_segment_delete")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_return_t) :: res
      end function gaspi_segment_delete

      function gaspi_segment_num(segment_num) &
          result(res) bind(C, name="gaspi_segment_num")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: segment_num
        integer(gaspi_return_t) :: res
      end function gaspi_segment_num

      function gaspi_segment_list(num, segment_id_list) &
          result(res) bind(C, name="gaspi_segment_list")
        import
        implicit none
        integer(gaspi_number_t), value :: num
        type(c_ptr), value :: segment_id_list
        integer(gaspi_return_t) :: res
      end function gaspi_segment_list

      function gaspi_segment_ptr(segment_id, pointer) &
          result(res) bind(C, name="gaspi_segment_ptr")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        type(c_ptr), intent(out) :: pointer
        integer(gaspi_return_t) :: res
      end function gaspi_segment_ptr

      function gaspi_write(segment_id_local, offset_local, rank, segment_id_remote, &
          offset_remote, size, queue, timeout_ms) &
          result(res) bind(C, name="gaspi_write")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_segment_id_t), value :: segment_id_remote
        integer(gaspi_offset_t), value :: offset_remote
        integer(gaspi_size_t), value :: size
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_write

      function gaspi_read(segment_id_local, offset_local, rank, segment_id_remote, &
          offset_remote, size, queue, timeout_ms) &
          result(res) bind(C, name="gaspi_read")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_segment_id_t), value :: segment_id_remote
        integer(gaspi_offset_t), value :: offset_remote
        integer(gaspi_size_t), value :: size
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_read

      function gaspi_wait(queue, timeout_ms) &
          result(res) bind(C, name="gaspi_wait")
        import
        implicit none
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_wait

      function gaspi_notify(segment_id_remote, rank, notification_id, notification_value, &
          queue, timeout_ms) &
          result(res) bind(C, name="gaspi_notify")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_remote
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_notification_t), value :: notification_value
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_notify

      function gaspi_notify_waitsome(segment_id_local, notification_begin, num, first_id, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_notify_waitsome")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_notification_id_t), value :: notification_begin
        integer(gaspi_number_t), value :: num
        integer(gaspi_notification_id_t), intent(out) :: first_id
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_notify_waitsome

      function gaspi_notify_reset(segment_id_local, notification_id, old_notification_val) &
          result(res) bind(C, name="gaspi_notify_reset")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_notification_t), intent(out) :: old_notification_val
        integer(gaspi_return_t) :: res
      end function gaspi_notify_reset

      function gaspi_write_notify(segment_id_local, offset_local, rank, segment_id_remote, &
          offset_remote, size, notification_id, notification_value, &
          queue, timeout_ms) &
          result(res) bind(C, name="gaspi_write_notify")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_segment_id_t), value :: segment_id_remote
        integer(gaspi_offset_t), value :: offset_remote
        integer(gaspi_size_t), value :: size
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_notification_t), value :: notification_value
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_write_notify

      function gaspi_write_list(num, segment_id_local, offset_local, rank, &
          segment_id_remote, offset_remote, size, queue, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_write_list")
        import
        implicit none
        integer(gaspi_number_t), value :: num
        type(c_ptr), value :: segment_id_local
        type(c_ptr), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        type(c_ptr), value :: segment_id_remote
        type(c_ptr), value :: offset_remote
        type(c_ptr), value :: size
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_write_list

      function gaspi_write_list_notify(num, segment_id_local, offset_local, rank, &
          segment_id_remote, offset_remote, size, segment_id_notification, &
          notification_id, notification_value, queue, timeout_ms) &
          result(res) bind(C, name="gaspi_write_list_notify")
        import
        implicit none
        integer(gaspi_number_t), value :: num
        type(c_ptr), value :: segment_id_local
        type(c_ptr), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        type(c_ptr), value :: segment_id_remote
        type(c_ptr), value :: offset_remote
        type(c_ptr), value :: size
        integer(gaspi_segment_id_t), value :: segment_id_notification
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_notification_t), value :: notification_value
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_write_list_notify

      function gaspi_read_notify(segment_id_local, offset_local, rank, segment_id_remote, &
          offset_remote, size, notification_id, queue, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_read_notify")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_segment_id_t), value :: segment_id_remote
        integer(gaspi_offset_t), value :: offset_remote
        integer(gaspi_size_t), value :: size
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_read_notify

      function gaspi_read_list(num, segment_id_local, offset_local, rank, &
          segment_id_remote, offset_remote, size, queue, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_read_list")
        import
        implicit none
        integer(gaspi_number_t), value :: num
        type(c_ptr), value :: segment_id_local
        type(c_ptr), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        type(c_ptr), value :: segment_id_remote
        type(c_ptr), value :: offset_remote
        type(c_ptr), value :: size
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_read_list

      function gaspi_read_list_notify(num, segment_id_local, offset_local, rank, &
          segment_id_remote, offset_remote, size, segment_id_notification, &
          notification_id, queue, timeout_ms) &
          result(res) bind(C, name="gaspi_read_list_notify")
        import
        implicit none
        integer(gaspi_number_t), value :: num
        type(c_ptr), value :: segment_id_local
        type(c_ptr), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        type(c_ptr), value :: segment_id_remote
        type(c_ptr), value :: offset_remote
        type(c_ptr), value :: size
        integer(gaspi_segment_id_t), value :: segment_id_notification
        integer(gaspi_notification_id_t), value :: notification_id
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_read_list_notify

      function gaspi_queue_create(queue, timeout_ms) &
          result(res) bind(C, name="gaspi_queue_create")
        import
        implicit none
        integer(gaspi_queue_id_t), intent(out) :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_queue_create

      function gaspi_queue_delete(queue) &
          result(res) bind(C, name="gaspi_queue_delete")
        import
        implicit none
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_return_t) :: res
      end function gaspi_queue_delete

      function gaspi_queue_size(queue, queue_size) &
          result(res) bind(C, name="gaspi_queue_size")
        import
        implicit none
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_number_t), intent(out) :: queue_size
        integer(gaspi_return_t) :: res
      end function gaspi_queue_size

      function gaspi_queue_purge(queue, timeout_ms) &
          result(res) bind(C, name="gaspi_queue_purge")
        import
        implicit none
        integer(gaspi_queue_id_t), value :: queue
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_queue_purge

      function gaspi_passive_send(segment_id_local, offset_local, rank, size, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_passive_send")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_size_t), value :: size
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_passive_send

      function gaspi_passive_receive(segment_id_local, offset_local, rem_rank, size, &
          timeout_ms) &
          result(res) bind(C, name="gaspi_passive_receive")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id_local
        integer(gaspi_offset_t), value :: offset_local
        integer(gaspi_rank_t), intent(out) :: rem_rank
        integer(gaspi_size_t), value :: size
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_passive_receive

      function gaspi_passive_queue_purge(timeout_ms) &
          result(res) bind(C, name="gaspi_passive_queue_purge")
        import
        implicit none
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_passive_queue_purge

      function gaspi_atomic_fetch_add(segment_id, offset, rank, val_add, &
          val_old, timeout_ms) &
          result(res) bind(C, name="gaspi_atomic_fetch_add")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_offset_t), value :: offset
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_atomic_value_t), value :: val_add
        integer(gaspi_atomic_value_t), intent(out) :: val_old
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_atomic_fetch_add

      function gaspi_atomic_compare_swap(segment_id, offset, rank, comparator, &
          val_new, val_old, timeout_ms) &
          result(res) bind(C, name="gaspi_atomic_compare_swap")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_offset_t), value :: offset
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_atomic_value_t), value :: comparator
        integer(gaspi_atomic_value_t), value :: val_new
        integer(gaspi_atomic_value_t), intent(out) :: val_old
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_atomic_compare_swap

      function gaspi_barrier(group, timeout_ms) &
          result(res) bind(C, name="gaspi_barrier")
        import
        implicit none
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_barrier

      function gaspi_allreduce(buffer_send, buffer_receive, num, operation, &
          datatype, group, timeout_ms) &
          result(res) bind(C, name="gaspi_allreduce")
        import
        implicit none
        type(c_ptr), value :: buffer_send
        type(c_ptr), value :: buffer_receive
        integer(gaspi_number_t), value :: num
        integer(gaspi_operation_t), value :: operation
        integer(gaspi_datatype_t), value :: datatype
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_allreduce

      function gaspi_allreduce_user(buffer_send, buffer_receive, num, element_size, &
          reduce_operation, reduce_state, group, timeout_ms) &
          result(res) bind(C, name="gaspi_allreduce_user")
        import
        implicit none
        type(c_ptr), value :: buffer_send
        type(c_ptr), value :: buffer_receive
        integer(gaspi_number_t), value :: num
        integer(gaspi_size_t), value :: element_size
        type(c_funptr), value :: reduce_operation
        type(c_ptr), value :: reduce_state
        integer(gaspi_group_t), value :: group
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_allreduce_user

      function gaspi_group_max(group_max) &
          result(res) bind(C, name="gaspi_group_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: group_max
        integer(gaspi_return_t) :: res
      end function gaspi_group_max

      function gaspi_segment_max(segment_max) &
          result(res) bind(C, name="gaspi_segment_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: segment_max
        integer(gaspi_return_t) :: res
      end function gaspi_segment_max

      function gaspi_queue_num(queue_num) &
          result(res) bind(C, name="gaspi_queue_num")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: queue_num
        integer(gaspi_return_t) :: res
      end function gaspi_queue_num

      function gaspi_queue_size_max(queue_size_max) &
          result(res) bind(C, name="gaspi_queue_size_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: queue_size_max
        integer(gaspi_return_t) :: res
      end function gaspi_queue_size_max

      function gaspi_queue_max(queue_max) &
          result(res) bind(C, name="gaspi_queue_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: queue_max
        integer(gaspi_return_t) :: res
      end function gaspi_queue_max

      function gaspi_transfer_size_max(transfer_size_max) &
          result(res) bind(C, name="gaspi_transfer_size_max")
        import
        implicit none
        integer(gaspi_size_t), intent(out) :: transfer_size_max
        integer(gaspi_return_t) :: res
      end function gaspi_transfer_size_max

      function gaspi_notification_num(notification_num) &
          result(res) bind(C, name="gaspi_notification_num")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: notification_num
        integer(gaspi_return_t) :: res
      end function gaspi_notification_num

      function gaspi_passive_transfer_size_max(passive_transfer_size_max) &
          result(res) bind(C, name="gaspi_passive_transfer_size_max")
        import
        implicit none
        integer(gaspi_size_t), intent(out) :: passive_transfer_size_max
        integer(gaspi_return_t) :: res
      end function gaspi_passive_transfer_size_max

      function gaspi_atomic_max(max_value) &
          result(res) bind(C, name="gaspi_atomic_max")
        import
        implicit none
        integer(gaspi_atomic_value_t), intent(out) :: max_value
        integer(gaspi_return_t) :: res
      end function gaspi_atomic_max

      function gaspi_allreduce_buf_size(buf_size) &
          result(res) bind(C, name="gaspi_allreduce_buf_size")
        import
        implicit none
        integer(gaspi_size_t), intent(out) :: buf_size
        integer(gaspi_return_t) :: res
      end function gaspi_allreduce_buf_size

      function gaspi_allreduce_elem_max(elem_max) &
          result(res) bind(C, name="gaspi_allreduce_elem_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: elem_max
        integer(gaspi_return_t) :: res
      end function gaspi_allreduce_elem_max

      function gaspi_rw_list_elem_max(elem_max) &
          result(res) bind(C, name="gaspi_rw_list_elem_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: elem_max
        integer(gaspi_return_t) :: res
      end function gaspi_rw_list_elem_max

      function gaspi_network_type(network_type) &
          result(res) bind(C, name="gaspi_network_type")
        import
        implicit none
        integer(gaspi_network_t), intent(out) :: network_type
        integer(gaspi_return_t) :: res
      end function gaspi_network_type

      function gaspi_build_infrastructure(build_infrastructure) &
          result(res) bind(C, name="gaspi_build_infrastructure")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: build_infrastructure
        integer(gaspi_return_t) :: res
      end function gaspi_build_infrastructure

      function gaspi_version(version) &
          result(res) bind(C, name="gaspi_version")
        import
        implicit none
        real(c_float), intent(out) :: version
        integer(gaspi_return_t) :: res
      end function gaspi_version

      function gaspi_time_get(wtime) &
          result(res) bind(C, name="gaspi_time_get")
        import
        implicit none
        real(gaspi_time_t), intent(out) :: wtime
        integer(gaspi_return_t) :: res
      end function gaspi_time_get

      function gaspi_time_ticks(ticks) &
          result(res) bind(C, name="gaspi_time_ticks")
        import
        implicit none
        integer(gaspi_cycles_t), intent(out) :: ticks
        integer(gaspi_return_t) :: res
      end function gaspi_time_ticks

      function gaspi_print_error(error_code, error_message) &
          result(res) bind(C, name="gaspi_print_error")
        import
        implicit none
        integer(gaspi_return_t), value :: error_code
        type(c_ptr), intent(out) :: error_message
        integer(gaspi_return_t) :: res
      end function gaspi_print_error

      function gaspi_error_message(error_code, error_message) &
          result(res) bind(C, name="gaspi_error_message")
        import
        implicit none
        integer(gaspi_return_t), value :: error_code
        type(c_ptr), intent(out) :: error_message
        integer(gaspi_return_t) :: res
      end function gaspi_error_message

      function gaspi_statistic_counter_max(counter_max) &
          result(res) bind(C, name="gaspi_statistic_counter_max")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: counter_max
        integer(gaspi_return_t) :: res
      end function gaspi_statistic_counter_max

      function gaspi_statistic_counter_info(counter, counter_argument, counter_name, counter_description, &
          verbosity_level) &
          result(res) bind(C, name="gaspi_statistic_counter_info")
        import
        implicit none
        integer(gaspi_statistic_counter_t), value :: counter
        integer(gaspi_statistic_argument_t), intent(out) :: counter_argument
        type(c_ptr), intent(out) :: counter_name
        type(c_ptr), intent(out) :: counter_description
        integer(gaspi_number_t), intent(out) :: verbosity_level
        integer(gaspi_return_t) :: res
      end function gaspi_statistic_counter_info

      function gaspi_statistic_verbosity_level(verbosity_level) &
          result(res) bind(C, name="gaspi_statistic_verbosity_level")
        import
        implicit none
        integer(gaspi_number_t), value :: verbosity_level
        integer(gaspi_return_t) :: res
      end function gaspi_statistic_verbosity_level

      function gaspi_statistic_counter_get(counter, argument, value) &
          result(res) bind(C, name="gaspi_statistic_counter_get")
        import
        implicit none
        integer(gaspi_statistic_counter_t), value :: counter
        integer(gaspi_number_t), value :: argument
        integer(gaspi_ulong), intent(out) :: value
        integer(gaspi_return_t) :: res
      end function gaspi_statistic_counter_get

      function gaspi_statistic_counter_reset(counter) &
          result(res) bind(C, name="gaspi_statistic_counter_reset")
        import
        implicit none
        integer(gaspi_statistic_counter_t), value :: counter
        integer(gaspi_return_t) :: res
      end function gaspi_statistic_counter_reset

      function gaspi_pcontrol(argument) &
          result(res) bind(C, name="gaspi_pcontrol")
        import
        implicit none
        type(c_ptr), value :: argument
        integer(gaspi_return_t) :: res
      end function gaspi_pcontrol
    ! -------------------------------------------------------------------------------------
    ! GASPI_Ext.h: GPI-2 extensions (gaspi_printf / gaspi_printf_to are variadic: not bound)
    ! -------------------------------------------------------------------------------------
      function gaspi_initialized(initialized) &
          result(res) bind(C, name="gaspi_initialized")
        import
        implicit none
        integer(gaspi_number_t), intent(out) :: initialized
        integer(gaspi_return_t) :: res
      end function gaspi_initialized

      function gaspi_proc_local_rank(local_rank) &
          result(res) bind(C, name="gaspi_proc_local_rank")
        import
        implicit none
        integer(gaspi_rank_t), intent(out) :: local_rank
        integer(gaspi_return_t) :: res
      end function gaspi_proc_local_rank

      function gaspi_proc_local_num(local_num) &
          result(res) bind(C, name="gaspi_proc_local_num")
        import
        implicit none
        integer(gaspi_rank_t), intent(out) :: local_num
        integer(gaspi_return_t) :: res
      end function gaspi_proc_local_num

      function gaspi_proc_ping(rank, timeout_ms) &
          result(res) bind(C, name="gaspi_proc_ping")
        import
        implicit none
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_timeout_t), value :: timeout_ms
        integer(gaspi_return_t) :: res
      end function gaspi_proc_ping

      function gaspi_cpu_frequency(cpu_mhz) &
          result(res) bind(C, name="gaspi_cpu_frequency")
        import
        implicit none
        real(gaspi_float), intent(out) :: cpu_mhz
        integer(gaspi_return_t) :: res
      end function gaspi_cpu_frequency

      function gaspi_numa_socket(socket) &
          result(res) bind(C, name="gaspi_numa_socket")
        import
        implicit none
        integer(gaspi_uchar), intent(out) :: socket
        integer(gaspi_return_t) :: res
      end function gaspi_numa_socket

      function gaspi_set_socket_affinity(socket) &
          result(res) bind(C, name="gaspi_set_socket_affinity")
        import
        implicit none
        integer(gaspi_uchar), value :: socket
        integer(gaspi_return_t) :: res
      end function gaspi_set_socket_affinity

      subroutine gaspi_print_affinity_mask() bind(C, name="gaspi_print_affinity_mask")
        import
        implicit none
      end subroutine gaspi_print_affinity_mask

      function gaspi_error_str(error_code) &
          result(res) bind(C, name="gaspi_error_str")
        import
        implicit none
        integer(gaspi_return_t), value :: error_code
        type(c_ptr) :: res
      end function gaspi_error_str

      function gaspi_segment_avail_local(avail_seg_id) &
          result(res) bind(C, name="gaspi_segment_avail_local")
        import
        implicit none
        integer(gaspi_segment_id_t), intent(out) :: avail_seg_id
        integer(gaspi_return_t) :: res
      end function gaspi_segment_avail_local

      function gaspi_segment_size(segment_id, rank, size) &
          result(res) bind(C, name="gaspi_segment_size")
        import
        implicit none
        integer(gaspi_segment_id_t), value :: segment_id
        integer(gaspi_rank_t), value :: rank
        integer(gaspi_size_t), intent(out) :: size
        integer(gaspi_return_t) :: res
      end function gaspi_segment_size

      function gaspi_transfer_size_min(transfer_size_min) &
          result(res) bind(C, name="gaspi_transfer_size_min")
        import
        implicit none
        integer(gaspi_size_t), intent(out) :: transfer_size_min
        integer(gaspi_return_t) :: res
      end function gaspi_transfer_size_min

      function gaspi_passive_transfer_size_min(passive_transfer_size_min) &
          result(res) bind(C, name="gaspi_passive_transfer_size_min")
        import
        implicit none
        integer(gaspi_size_t), intent(out) :: passive_transfer_size_min
        integer(gaspi_return_t) :: res
      end function gaspi_passive_transfer_size_min

      subroutine gaspi_delay() bind(C, name="gaspi_delay")
        import
        implicit none
      end subroutine gaspi_delay
  end interface

  interface
    pure function hygaspi_c_strlen(s) result(n) bind(C, name="strlen")
      import
      implicit none
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function hygaspi_c_strlen
  end interface
  private :: hygaspi_c_strlen

contains

  ! Copies the NUL-terminated C string at s (e.g. from gaspi_error_str or gaspi_print_error)
  ! into a Fortran string; a null pointer gives "".
  function gaspi_f_string(s) result(str)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: str
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n

    if (.not. c_associated(s)) then
      str = ''
      return
    end if
    n = int(hygaspi_c_strlen(s))
    call c_f_pointer(s, chars, [n])
    allocate(character(len=n) :: str)
    do i = 1, n
      str(i:i) = chars(i)
    end do
  end function gaspi_f_string

end module GASPI

!-----------------------------------------------------------------------------------------
module GASPI_C_BINDING
!-----------------------------------------------------------------------------------------
  ! The module name of the specification's Fortran listings ("use GASPI_C_BINDING").
  use GASPI
  implicit none
end module GASPI_C_BINDING
