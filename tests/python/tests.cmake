# The Python package's pytest suite (tests/python/package/), when the extension is built.
include(${CMAKE_CURRENT_LIST_DIR}/package.cmake)

# Tests that load flamefold's pstats output with Python's own pstats module, and compare
# `flamefold top --sort KEY` with what `python3 -m pstats` prints for the real files in
# ../shared/data/pstats (skipped, saying so, when ../shared is absent).
find_program(PYTHON3_FOR_TESTS python3)
if(NOT PYTHON3_FOR_TESTS)
  message(STATUS "python3 not found: the pstats tests that run Python are not registered")
  return()
endif()
set(PSTATS_DATA ${CMAKE_SOURCE_DIR}/../shared/data/pstats)
if(EXISTS ${PSTATS_DATA})
  file(GLOB_RECURSE PSTATS_FILES ${PSTATS_DATA}/*.prof2 ${PSTATS_DATA}/*.prof3 ${PSTATS_DATA}/*.prof ${PSTATS_DATA}/*.pstats)
  foreach(key cumulative tottime ncalls nfl stdname)
    add_test(NAME python.pstats_top_equal.${key}
             COMMAND ${PYTHON3_FOR_TESTS} ${CMAKE_SOURCE_DIR}/tests/python/pstats_top_equal.py
                     $<TARGET_FILE:flamefold> 30 ${key} ${PSTATS_FILES})
  endforeach()
  add_test(NAME python.pstats_top_equal.all_rows
           COMMAND ${PYTHON3_FOR_TESTS} ${CMAKE_SOURCE_DIR}/tests/python/pstats_top_equal.py
                   $<TARGET_FILE:flamefold> 100000 cumulative ${PSTATS_FILES})
  add_test(NAME python.pstats_roundtrip
           COMMAND ${PYTHON3_FOR_TESTS} ${CMAKE_SOURCE_DIR}/tests/python/pstats_roundtrip.py
                   $<TARGET_FILE:flamefold> ${CMAKE_BINARY_DIR}/test-tmp/python.pstats_roundtrip ${PSTATS_FILES})
else()
  message(STATUS "../shared/data/pstats is absent: the real-file pstats comparisons are skipped")
endif()
# Always: a profile built from a folded file and from a generated cProfile run, written as
# .prof and read back by Python with equal totals.
add_test(NAME python.pstats_from_cprofile
         COMMAND ${PYTHON3_FOR_TESTS} ${CMAKE_SOURCE_DIR}/tests/python/pstats_from_cprofile.py
                 $<TARGET_FILE:flamefold> ${CMAKE_BINARY_DIR}/test-tmp/python.pstats_from_cprofile)
if(EXISTS ${CMAKE_SOURCE_DIR}/../shared/baselines/seed001_driver.py)
  add_test(NAME python.pstats_vs_seed001
           COMMAND ${PYTHON3_FOR_TESTS} ${CMAKE_SOURCE_DIR}/tests/python/pstats_vs_seed001.py
                   $<TARGET_FILE:flamefold> ${CMAKE_SOURCE_DIR}/../shared ${CMAKE_BINARY_DIR}/test-tmp/python.pstats_vs_seed001)
endif()
