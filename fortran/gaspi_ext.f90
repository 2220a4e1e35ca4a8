! gaspi_ext.f90 -- HyGASPI
!
! Module GASPI_Ext: the Fortran bindings of GASPI_Ext.h under GPI-2's module name, so that
! GPI-2 Fortran programs with "use GASPI_Ext" build unchanged.
!
! The interfaces of the extensions already live in module GASPI (gaspi.f90); this module
! re-exports those same entities, so a program may use both modules without any name clash.
! It adds what module GASPI leaves out: gaspi_printf and gaspi_printf_to, whose C versions are
! variadic. Here they take one Fortran string (a trailing C_NULL_CHAR is allowed, as GPI-2
! programs pass one) and print it verbatim, with the rank in front: no format is interpreted.
!
! Where GPI-2's own module declares a C prototype wrongly, this one follows the C prototype:
!   - gaspi_printf_to takes the rank by value (GPI-2's module passes its address);
!   - gaspi_error_str returns a type(c_ptr) to the static C string (GPI-2's returns one
!     character); gaspi_f_string() turns it into a Fortran string;
!   - gaspi_print_affinity_mask is a subroutine (the C function returns nothing).

!-----------------------------------------------------------------------------------------
module GASPI_Ext
!-----------------------------------------------------------------------------------------
  use, intrinsic :: iso_c_binding
  use GASPI_types
  use GASPI, only: gaspi_initialized, gaspi_proc_local_rank, gaspi_proc_local_num, &
      gaspi_proc_ping, gaspi_cpu_frequency, gaspi_numa_socket, gaspi_set_socket_affinity, &
      gaspi_print_affinity_mask, gaspi_error_str, gaspi_segment_avail_local, gaspi_segment_size, &
      gaspi_rw_list_elem_max, gaspi_transfer_size_min, gaspi_passive_transfer_size_min, &
      gaspi_delay, gaspi_queue_max, gaspi_f_string
  implicit none

  private :: hygaspi_c_text

contains

  ! text up to its first C_NULL_CHAR (or all of it), NUL-terminated for C.
  function hygaspi_c_text(text) result(c_text)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=:), allocatable :: c_text
    integer :: n
    n = index(text, c_null_char) - 1
    if (n < 0) n = len(text)
    c_text = text(1:n) // c_null_char
  end function hygaspi_c_text

  ! Prints text with "[rank R] " in front (gaspi_printf).
  subroutine gaspi_printf(text)
    character(len=*), intent(in) :: text
    interface ! the C entry point, called with the format "%s" and the text as its one argument
      subroutine c_printf(fmt, c_text) bind(C, name="gaspi_printf")
        import
        implicit none
        character(kind=c_char), dimension(*), intent(in) :: fmt
        character(kind=c_char), dimension(*), intent(in) :: c_text
      end subroutine c_printf
    end interface
    call c_printf('%s' // c_null_char, hygaspi_c_text(text))
  end subroutine gaspi_printf

  ! Prints text with "[rank <rank>] " in front (gaspi_printf_to).
  subroutine gaspi_printf_to(rank, text)
    integer(gaspi_rank_t), intent(in) :: rank
    character(len=*), intent(in) :: text
    interface ! the C entry point, called with the format "%s" and the text as its one argument
      subroutine c_printf_to(c_rank, fmt, c_text) bind(C, name="gaspi_printf_to")
        import
        implicit none
        integer(gaspi_rank_t), value :: c_rank
        character(kind=c_char), dimension(*), intent(in) :: fmt
        character(kind=c_char), dimension(*), intent(in) :: c_text
      end subroutine c_printf_to
    end interface
    call c_printf_to(rank, '%s' // c_null_char, hygaspi_c_text(text))
  end subroutine gaspi_printf_to

end module GASPI_Ext
