# Third-party dependencies: Debian packages, plus Arrow/Parquet C++ from the
# pyarrow wheel in the project venv. All are SYSTEM includes so their
# warnings stay out of ours.

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(simdjson REQUIRED)
find_package(absl REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Boost 1.74 REQUIRED)
pkg_check_modules(LMDB REQUIRED IMPORTED_TARGET lmdb)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# Debian's x86-64 libxxhash also exports XXH3 entry points that pick the
# CPU's widest vector unit at run time (store/journaled_file.cc).
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${XXHASH_INCLUDE_DIRS})
set(CMAKE_REQUIRED_LIBRARIES ${XXHASH_LINK_LIBRARIES})
check_symbol_exists(XXH3_64bits_dispatch "xxh_x86dispatch.h" SKADE_HAVE_XXH3_DISPATCH)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)

if(SKADE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SKADE_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

if(SKADE_WITH_ARROW)
  # The pyarrow wheel ships libarrow/libparquet with versioned names only
  # (libarrow.so.2600); link them by full path and record an RPATH so the
  # binaries run without LD_LIBRARY_PATH.
  file(GLOB _pyarrow_dirs "${SKADE_VENV}/lib/python3*/site-packages/pyarrow")
  list(GET _pyarrow_dirs 0 PYARROW_DIR)
  if(NOT PYARROW_DIR OR NOT EXISTS "${PYARROW_DIR}/include/arrow/api.h")
    message(FATAL_ERROR "pyarrow with C++ headers not found under ${SKADE_VENV}; run `make setup`")
  endif()
  file(GLOB _libarrow "${PYARROW_DIR}/libarrow.so.[0-9]*")
  file(GLOB _libparquet "${PYARROW_DIR}/libparquet.so.[0-9]*")
  file(GLOB _libarrow_s3 "${PYARROW_DIR}/libarrow_s3.so.[0-9]*")
  list(FILTER _libarrow EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
  list(FILTER _libparquet EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
  list(FILTER _libarrow_s3 EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
  if(NOT _libarrow_s3)
    message(FATAL_ERROR "libarrow_s3 not found in ${PYARROW_DIR} (the S3 FileIO needs it)")
  endif()
  add_library(skade_arrow SHARED IMPORTED GLOBAL)
  set_target_properties(skade_arrow PROPERTIES
    IMPORTED_LOCATION "${_libarrow}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${PYARROW_DIR}/include"
    INTERFACE_INCLUDE_DIRECTORIES "${PYARROW_DIR}/include")
  add_library(skade_parquet SHARED IMPORTED GLOBAL)
  set_target_properties(skade_parquet PROPERTIES
    IMPORTED_LOCATION "${_libparquet}"
    INTERFACE_LINK_LIBRARIES skade_arrow)
  # Arrow's S3 file system (the AWS SDK is linked inside it), for s3/.
  add_library(skade_arrow_s3 SHARED IMPORTED GLOBAL)
  set_target_properties(skade_arrow_s3 PROPERTIES
    IMPORTED_LOCATION "${_libarrow_s3}"
    INTERFACE_LINK_LIBRARIES skade_arrow)
  # CRoaring (Debian libroaring-dev) for the 32-bit bitmaps inside v3
  # deletion vectors (read/).
  find_package(roaring REQUIRED)
  find_package(CURL REQUIRED)
  find_package(OpenSSL REQUIRED)
  add_library(Skade::arrow ALIAS skade_arrow)
  add_library(Skade::arrow_s3 ALIAS skade_arrow_s3)
  add_library(Skade::parquet ALIAS skade_parquet)
  # pyarrow's libparquet exports its own simdjson (4.x, used for GeoArrow metadata only) under the
  # same symbol names as Debian's libsimdjson (3.0.1), which skade is compiled against. Listed
  # first on the link line, libparquet satisfied skade's references and --as-needed dropped
  # libsimdjson, so skade's inline 3.0.1 code called 4.x functions through 3.0.1's vtable layout:
  # a dom::parser growing its buffers jumped into parse_wobbly_string and crashed (skade serve
  # with an s3:// warehouse, skade_rest_bench against Nessie). Naming libsimdjson before any
  # object makes it the first definition in every binary's lookup scope.
  add_link_options("LINKER:--push-state,--no-as-needed" "$<TARGET_FILE:simdjson::simdjson>"
                   "LINKER:--pop-state")
  message(STATUS "Arrow/Parquet from pyarrow: ${_libarrow}")
endif()
