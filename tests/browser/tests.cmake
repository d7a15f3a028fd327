# Real-browser tests of the HTML viewer: node + playwright-core (tests/browser/node_modules,
# installed by scripts/setup.sh --test) driving Debian's /usr/bin/chromium headless.
# The scripts exit 77 (skipped) only when chromium is not installed.
find_program(FLAMEFOLD_NODE NAMES node nodejs)
if(NOT FLAMEFOLD_NODE)
  set(FLAMEFOLD_NODE node)  # the test then fails saying node is missing: setup installs it
endif()
# browser.viewer: the normal viewer; browser.diff: its differential mode (flamefold diff);
# browser.sandwich: the sandwich view, keys, left-heavy order, status line (issue 13);
# browser.timeline: the flame chart of traced inputs; browser.ranks: the rank view; browser.ml:
# short names, merged modules, kernels table, source lines.
foreach(name viewer diff sandwich timeline ranks ml)
  add_test(NAME browser.${name}
    COMMAND ${FLAMEFOLD_NODE} ${CMAKE_SOURCE_DIR}/tests/browser/${name}.test.js
      --flamefold $<TARGET_FILE:flamefold>
      --fixtures $<TARGET_FILE:flamefold_tests>
      --tmp ${CMAKE_BINARY_DIR}/test-tmp
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/browser)
  set_tests_properties(browser.${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
