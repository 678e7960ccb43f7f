# kernels.cmake - the CUDA kernels checked on the host (included from the top
# CMakeLists.txt): backends/cuda/device/*.c compiled for the host with SC_DEVICE_EMULATE,
# their launchers (backends/cuda/runtime/ops.c) over an emulated cuda_rt.h
# (test/cuda/emulate.c), compared with the CPU runtime's kernels (shapec_kernels).
file(GLOB SC_CUDA_DEVICE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/backends/cuda/device/*.c)

# Each device file also sees test/cuda/device_kernels.h, so that the emulator's
# prototypes are checked against the kernels (and -Wmissing-prototypes is satisfied).
add_library(sc_cuda_device_emulated OBJECT ${SC_CUDA_DEVICE_SOURCES})
target_compile_definitions(sc_cuda_device_emulated PRIVATE SC_DEVICE_EMULATE)
target_include_directories(sc_cuda_device_emulated PRIVATE ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/backends/cuda/device)
target_compile_options(sc_cuda_device_emulated PRIVATE
  "SHELL:-include ${CMAKE_SOURCE_DIR}/backends/cuda/device/device.h"
  "SHELL:-include ${CMAKE_SOURCE_DIR}/backends/cuda/emulate/device_kernels.h")

add_executable(test_device_kernels
  ${CMAKE_SOURCE_DIR}/test/cuda/test_device_kernels.c
  ${CMAKE_SOURCE_DIR}/backends/cuda/emulate/emulate.c
  ${CMAKE_SOURCE_DIR}/backends/cuda/emulate/cublas_host.c
  ${CMAKE_SOURCE_DIR}/backends/cuda/runtime/ops.c
  $<TARGET_OBJECTS:sc_cuda_device_emulated>)
target_include_directories(test_device_kernels PRIVATE
  ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/backends/cpu/runtime ${CMAKE_SOURCE_DIR}/backends/cuda/runtime
  ${CMAKE_SOURCE_DIR}/backends/cuda/emulate)
target_link_libraries(test_device_kernels PRIVATE shapec_kernels m ${CMAKE_DL_LIBS} pthread)
add_test(NAME cuda_device_kernels COMMAND test_device_kernels)
set_tests_properties(cuda_device_kernels PROPERTIES TIMEOUT 300)
