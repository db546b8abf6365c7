# skade_module(<name> SOURCES … DEPS …): one static library per module,
# named skade_<name>, with `src/` as the include root (#include "skade/…").
function(skade_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(skade_${name} STATIC ${ARG_SOURCES})
  target_include_directories(skade_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(skade_${name} PUBLIC ${ARG_DEPS})
  set_target_properties(skade_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# skade_test(<name> SOURCES … DEPS …): a GoogleTest executable registered
# with CTest (one CTest entry per test case).
function(skade_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()
