# Install layout, the exported CMake package HyGASPI (target HyGASPI::gaspi), pkg-config files
# hygaspi.pc and GPI2.pc, and GPI-2's library names libGPI2.so / libGPI2-dbg.so as links to
# libhygaspi.so (in the build tree too, so tests can link -lGPI2 without installing). The GASNet
# front ends as GASNet's conduits install theirs: gasnet.h, gasnetex.h and gasnet_tools.h with the
# other headers, the mode libraries libgasnet-hygaspi-{seq,parsync,par}, pkg-config
# gasnet-hygaspi-<mode>.pc and the makefile fragments <includedir>/hygaspi-conduit/hygaspi-<mode>.mak.
# Included by the top-level CMakeLists.txt after every subdirectory, so that optional tool targets
# (gaspi_run, hygaspi-info) are known here when they exist.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HYGASPI_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/HyGASPI)
# The GPI-2 interface version the headers reproduce (GPI2_VERSION.h), reported by GPI2.pc.
set(HYGASPI_GPI2_VERSION 1.6.0)
# The .pc files find their prefix from their own place (${pcfiledir}), so an install with
# `cmake --install --prefix DIR` or DESTDIR is relocatable.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(HYGASPI_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(HYGASPI_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(HYGASPI_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH rel "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  set(HYGASPI_PC_PREFIX "\${pcfiledir}/${rel}")
endif()

# --- library and headers ----------------------------------------------------------------------
# Consumers see HyGASPI::gaspi; its installed include directory is ${CMAKE_INSTALL_INCLUDEDIR}
# ($<INSTALL_INTERFACE:...> in src/CMakeLists.txt). The library links Threads, rt and Boost (header-only) privately;
# as a shared library those stay out of the exported interface, so the package needs no
# find_dependency and consumers need only -lhygaspi.
set_target_properties(hygaspi PROPERTIES EXPORT_NAME gaspi)
install(TARGETS hygaspi EXPORT HyGASPITargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel)
# include/*.h: the GASPI headers and the GASNet ones (gasnet.h, gasnetex.h, gasnet_tools.h).
file(GLOB HYGASPI_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${HYGASPI_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

# The GASNet mode libraries (src/CMakeLists.txt), in the CMake package as
# HyGASPI::gasnet-hygaspi-<mode>, which gives an installed consumer its -DGASNET_<MODE> too (the
# build tree's targets leave that to each test, as before).
set(HYGASPI_GASNET_MODES seq parsync par)
foreach(mode IN LISTS HYGASPI_GASNET_MODES)
  string(TOUPPER ${mode} MODE)
  set_property(TARGET gasnet-hygaspi-${mode} APPEND PROPERTY
    INTERFACE_COMPILE_DEFINITIONS $<INSTALL_INTERFACE:GASNET_${MODE}>)
  install(TARGETS gasnet-hygaspi-${mode} EXPORT HyGASPITargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel)
endforeach()

# --- launchers and tools -------------------------------------------------------------------------
foreach(tool IN ITEMS hygaspi-run hygaspi-info)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  endif()
endforeach()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/gaspi_run DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# --- CMake package: find_package(HyGASPI) ----------------------------------------------------------
install(EXPORT HyGASPITargets NAMESPACE HyGASPI:: FILE HyGASPITargets.cmake
  DESTINATION ${HYGASPI_CMAKE_DIR} COMPONENT devel)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/HyGASPIConfig.cmake.in
  ${PROJECT_BINARY_DIR}/HyGASPIConfig.cmake INSTALL_DESTINATION ${HYGASPI_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/HyGASPIConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/HyGASPIConfig.cmake ${PROJECT_BINARY_DIR}/HyGASPIConfigVersion.cmake
  DESTINATION ${HYGASPI_CMAKE_DIR} COMPONENT devel)
# The build tree is a package too: -DHyGASPI_DIR=<build dir> uses it without installing.
export(EXPORT HyGASPITargets NAMESPACE HyGASPI:: FILE ${PROJECT_BINARY_DIR}/HyGASPITargets.cmake)


# --- GASNet: gasnet-hygaspi-<mode>.pc and hygaspi-conduit/hygaspi-<mode>.mak ----------------------
# The GASNET_* variables GASNet clients read (GASNET_CC, GASNET_CPPFLAGS, GASNET_CFLAGS, GASNET_CXX,
# GASNET_CXXFLAGS, GASNET_LD, GASNET_LDFLAGS, GASNET_LIBS), the same in both. The libraries link MPI
# themselves, so the compiler is the one that built HyGASPI, not mpicc; the link sets an rpath to
# the library directory, so that a client runs as built. The fragment finds the installation from
# its own place (GNU make's MAKEFILE_LIST), as the .pc files do from ${pcfiledir}.
# As GASNet's do, GASNET_CFLAGS and GASNET_CXXFLAGS carry the optimisation level (-O3, that of
# GASNet's optimised build; a client that wants another puts its own -O after them), and
# GASNET_LIBS alone links a client: -L and an rpath to the library directory, the HyGASPI
# libraries, and the system libraries GASNet's fragments list (pthread, rt, m), so
# `$(GASNET_LD) -o x x.o $(GASNET_LIBS)` works without GASNET_LDFLAGS.
set(HYGASPI_GASNET_OPT_FLAGS "-O3")
set(HYGASPI_GASNET_EXTRALIBS "-lpthread -lrt -lm")
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(HYGASPI_MAK_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(HYGASPI_MAK_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH rel "/p/${CMAKE_INSTALL_INCLUDEDIR}/hygaspi-conduit" "/p")
  set(HYGASPI_MAK_PREFIX "$(abspath $(hygaspi_conduit_dir)/${rel})")
  set(HYGASPI_MAK_INCLUDEDIR "$(HYGASPI_PREFIX)/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(HYGASPI_MAK_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(HYGASPI_MAK_LIBDIR "$(HYGASPI_PREFIX)/${CMAKE_INSTALL_LIBDIR}")
endif()

# --- pkg-config files and makefile fragments, twice -----------------------------------------------
# hygaspi.pc, GPI2.pc (-lGPI2, as GPI-2's own GPI2.pc), gasnet-hygaspi-<mode>.pc and
# hygaspi-<mode>.mak. The installed ones (written to install-files/) find the installation from
# their own place; the build tree's (pkgconfig/ and hygaspi-conduit/ of the build directory) name
# this build's libraries and the source tree's headers, so that a client builds against an
# uninstalled build as GASNet's build tree serves its clients: PKG_CONFIG_PATH=<build>/pkgconfig,
# or include <build>/hygaspi-conduit/hygaspi-<mode>.mak.
function(hygaspi_client_files pc_dir mak_dir)
  foreach(pc IN ITEMS hygaspi GPI2)
    configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${pc}.pc.in ${pc_dir}/${pc}.pc @ONLY)
  endforeach()
  foreach(mode IN LISTS HYGASPI_GASNET_MODES)
    set(HYGASPI_GASNET_MODE_LOWER ${mode})
    string(TOUPPER ${mode} HYGASPI_GASNET_MODE)
    configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gasnet-hygaspi.pc.in ${pc_dir}/gasnet-hygaspi-${mode}.pc @ONLY)
    configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/hygaspi-conduit.mak.in ${mak_dir}/hygaspi-${mode}.mak @ONLY)
  endforeach()
endfunction()
set(install_files ${PROJECT_BINARY_DIR}/install-files)
hygaspi_client_files(${install_files}/pkgconfig ${install_files}/hygaspi-conduit)
foreach(pc IN ITEMS hygaspi GPI2 gasnet-hygaspi-seq gasnet-hygaspi-parsync gasnet-hygaspi-par)
  install(FILES ${install_files}/pkgconfig/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
endforeach()
foreach(mode IN LISTS HYGASPI_GASNET_MODES)
  install(FILES ${install_files}/hygaspi-conduit/hygaspi-${mode}.mak
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hygaspi-conduit COMPONENT devel)
endforeach()
block()
  get_target_property(build_libdir hygaspi LIBRARY_OUTPUT_DIRECTORY)
  if(NOT build_libdir)
    get_target_property(build_libdir hygaspi BINARY_DIR)
  endif()
  set(HYGASPI_PC_PREFIX ${PROJECT_BINARY_DIR})
  set(HYGASPI_PC_LIBDIR ${build_libdir})
  set(HYGASPI_PC_INCLUDEDIR ${PROJECT_SOURCE_DIR}/include)
  set(HYGASPI_MAK_PREFIX ${PROJECT_BINARY_DIR})
  set(HYGASPI_MAK_LIBDIR ${build_libdir})
  set(HYGASPI_MAK_INCLUDEDIR ${PROJECT_SOURCE_DIR}/include)
  hygaspi_client_files(${PROJECT_BINARY_DIR}/pkgconfig ${PROJECT_BINARY_DIR}/hygaspi-conduit)
endblock()

# --- GPI-2 library names ---------------------------------------------------------------------------
# libGPI2.so and libGPI2-dbg.so are link-time names for libhygaspi.so: -lGPI2 (or -lGPI2-dbg)
# links HyGASPI, and the program records libhygaspi's soname. GPI-2's "dbg" variant is its
# argument-checking build; HyGASPI checks every argument unless built with
# -DHYGASPI_ARG_CHECKS=OFF, so both names point at the one library.
set(HYGASPI_GPI2_NAMES libGPI2.so libGPI2-dbg.so)
get_target_property(libdir hygaspi LIBRARY_OUTPUT_DIRECTORY)
if(NOT libdir)
  get_target_property(libdir hygaspi BINARY_DIR)
endif()
set(links)
set(commands)
foreach(name IN LISTS HYGASPI_GPI2_NAMES)
  list(APPEND links ${libdir}/${name})
  list(APPEND commands COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_LINKER_FILE_NAME:hygaspi> ${libdir}/${name})
endforeach()
add_custom_command(OUTPUT ${links} ${commands} DEPENDS hygaspi
  COMMENT "Linking libGPI2.so, libGPI2-dbg.so -> libhygaspi.so" VERBATIM)
add_custom_target(hygaspi_gpi2_links ALL DEPENDS ${links})
foreach(name IN LISTS HYGASPI_GPI2_NAMES)
  # A link relative to its own directory, made at install time (DESTDIR-aware).
  install(CODE "
    set(dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    message(STATUS \"Installing: \${dir}/${name} -> $<TARGET_LINKER_FILE_NAME:hygaspi>\")
    file(CREATE_LINK $<TARGET_LINKER_FILE_NAME:hygaspi> \"\${dir}/${name}\" SYMBOLIC)"
    COMPONENT devel)
endforeach()
