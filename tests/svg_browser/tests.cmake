# Real-browser test of the SVG flame graph's script (zoom, search, details) and of hostile frame
# names: node + playwright-core (from tests/browser/node_modules) driving /usr/bin/chromium.
# Exits 77 (skipped) only when chromium is not installed.
find_program(FLAMEFOLD_SVG_NODE NAMES node nodejs)
if(NOT FLAMEFOLD_SVG_NODE)
  set(FLAMEFOLD_SVG_NODE node)
endif()
add_test(NAME browser.svg
  COMMAND ${FLAMEFOLD_SVG_NODE} ${CMAKE_SOURCE_DIR}/tests/svg_browser/svg.test.js
    --flamefold $<TARGET_FILE:flamefold>
    --tmp ${CMAKE_BINARY_DIR}/test-tmp
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/svg_browser)
set_tests_properties(browser.svg PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
