# `cmake --install`: the libraries, their public headers, the tools, a CMake
# package (find_package(HloToolchain), targets HloToolchain::hlo_ir, ::hlo_client etc.)
# and a pkg-config file (hlo_toolchain.pc). docs/library.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HLO_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/hlo_toolchain)
set(HLO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/HloToolchain)
# The libraries a user links, in link order (users before what they use).
set(HLO_EXPORTED_LIBS hlo_client hlo_analysis hlo_passes hlo_backend_cpu hlo_parser hlo_ir)

# Headers are included as "ir/module.h": the source root in the build
# tree, include/hlo_toolchain once installed.
target_include_directories(hlo_ir PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}> $<INSTALL_INTERFACE:${HLO_INSTALL_INCLUDEDIR}>)

install(TARGETS ${HLO_EXPORTED_LIBS} EXPORT HloToolchainTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The installed tools keep the run path to OpenBLAS's directory (Debian
# puts it outside the default search path), as the built ones have it.
set_target_properties(hlo-opt hlo-run hlo-bisect PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS hlo-opt hlo-run hlo-bisect RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir ir parser passes backend_cpu analysis)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION ${HLO_INSTALL_INCLUDEDIR}/${dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*_test*" EXCLUDE)
endforeach()
# The builder's public headers (builder.h, ops.h, literal_util.h,
# broadcasting.h); its golden examples and internals are not part of it.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/client/ DESTINATION ${HLO_INSTALL_INCLUDEDIR}/client
  FILES_MATCHING PATTERN "*.h" PATTERN "*_test*" EXCLUDE
  PATTERN "golden_examples*" EXCLUDE PATTERN "ops_internal.h" EXCLUDE)

install(EXPORT HloToolchainTargets NAMESPACE HloToolchain:: DESTINATION ${HLO_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/HloToolchainConfig.cmake.in
  ${CMAKE_BINARY_DIR}/HloToolchainConfig.cmake INSTALL_DESTINATION ${HLO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/HloToolchainConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/HloToolchainConfig.cmake ${CMAKE_BINARY_DIR}/HloToolchainConfigVersion.cmake
  DESTINATION ${HLO_INSTALL_CMAKEDIR})

# Relocatable: the prefix is found from the .pc file's own place, so
# `cmake --install --prefix DIR` needs no reconfiguration.
file(RELATIVE_PATH HLO_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${CMAKE_SOURCE_DIR}/cmake/hlo_toolchain.pc.in ${CMAKE_BINARY_DIR}/hlo_toolchain.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hlo_toolchain.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
