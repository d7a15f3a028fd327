# pytest (Debian's python3-pytest) over tests/python/package/, one CTest test per test file, with
# the package as CMake assembled it in build/python (python/CMakeLists.txt, FLAMEFOLD_PYTHON=ON,
# which `make test` sets). A file whose every test skipped (a dependency truly absent, such as
# torch on a machine without python3-torch; ../shared absent) is reported as skipped (exit 77).
if(NOT FLAMEFOLD_PYTHON)
  message(STATUS "FLAMEFOLD_PYTHON is off: the Python package tests are not registered")
  return()
endif()
file(GLOB PACKAGE_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/python/package/test_*.py)
foreach(test_file IN LISTS PACKAGE_TESTS)
  get_filename_component(name ${test_file} NAME_WE)
  string(REGEX REPLACE "^test_" "" name ${name})
  add_test(NAME python.package.${name}
           COMMAND ${FLAMEFOLD_PYTHON_EXECUTABLE} -m pytest -q -rs -p no:cacheprovider
                   --basetemp=${CMAKE_BINARY_DIR}/test-tmp/python.package.${name} ${test_file}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/python/package)
  set_tests_properties(python.package.${name} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 900
    ENVIRONMENT "PYTHONPATH=${FLAMEFOLD_PYTHON_PATH};FLAMEFOLD_BINARY=$<TARGET_FILE:flamefold>;FLAMEFOLD_SHARED_DIR=${CMAKE_SOURCE_DIR}/../shared;FLAMEFOLD_TEST_TMP=${CMAKE_BINARY_DIR}/test-tmp/python.package.${name};FLAMEFOLD_SOURCE_DIR=${CMAKE_SOURCE_DIR};FLAMEFOLD_BUILD_DIR=${CMAKE_BINARY_DIR};PYTHONDONTWRITEBYTECODE=1")
  if(name STREQUAL "install")
    # pip runs CMake on this build tree (nothing to rebuild): alone, not beside other tests.
    set_tests_properties(python.package.${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()

# The notebook display (Profile._repr_html_) in real Chromium: the viewer inside its sandboxed
# srcdoc iframe (tests/browser/notebook.test.js, with the browser tests' harness).
find_program(FLAMEFOLD_NODE NAMES node nodejs)
if(NOT FLAMEFOLD_NODE)
  set(FLAMEFOLD_NODE node)
endif()
add_test(NAME browser.notebook
  COMMAND ${FLAMEFOLD_NODE} ${CMAKE_SOURCE_DIR}/tests/browser/notebook.test.js
    --flamefold $<TARGET_FILE:flamefold> --tmp ${CMAKE_BINARY_DIR}/test-tmp
    --python ${FLAMEFOLD_PYTHON_EXECUTABLE} --pythonpath ${FLAMEFOLD_PYTHON_PATH}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/browser)
set_tests_properties(browser.notebook PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
