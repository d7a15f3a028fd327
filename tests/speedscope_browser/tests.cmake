# The real speedscope app (npm package speedscope in tests/speedscope_browser/node_modules,
# installed by scripts/setup.sh --test) reading flamefold's .speedscope.json offline in headless
# Chromium, driven by playwright-core from tests/browser. Exits 77 (skipped) only when chromium
# is not installed.
find_program(FLAMEFOLD_SPEEDSCOPE_NODE NAMES node nodejs)
if(NOT FLAMEFOLD_SPEEDSCOPE_NODE)
  set(FLAMEFOLD_SPEEDSCOPE_NODE node)
endif()
add_test(NAME browser.speedscope
  COMMAND ${FLAMEFOLD_SPEEDSCOPE_NODE} ${CMAKE_SOURCE_DIR}/tests/speedscope_browser/speedscope.test.js
    --flamefold $<TARGET_FILE:flamefold>
    --tmp ${CMAKE_BINARY_DIR}/test-tmp
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/speedscope_browser)
set_tests_properties(browser.speedscope PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
