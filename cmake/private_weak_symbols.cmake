# Gives the weak functions and the COMDAT groups of one object file names of their own.
#   cmake -DIN=in.o -DOUT=out.o -DSUFFIX=.avx2 -DNM=nm -DREADELF=readelf -DOBJCOPY=objcopy -P private_weak_symbols.cmake
# Used for the Kineto reader's AVX2 object: its copies of inline functions (std::, simdjson::,
# flamefold headers) are compiled for AVX2, and under their usual names the linker could pick
# them for callers in other objects. Renamed, they serve only this object's own code. A group
# is kept or dropped by the linker by its signature, so the signatures are renamed too (else
# the linker could drop this object's copy in favour of another object's group of that name,
# leaving the renamed symbol undefined); the vague-linkage data this makes private (vtables,
# type_info, constant tables) is read-only, and type_info still compares equal by name.
execute_process(COMMAND ${NM} --defined-only ${IN} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${IN}")
endif()
execute_process(COMMAND ${READELF} -gW ${IN} OUTPUT_VARIABLE groups RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${IN}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
string(REPLACE "\n" ";" group_lines "${groups}")
set(names "")
set(renames "")
set(count 0)
foreach(line IN LISTS lines)
  # "<address> <type> <name>": W = weak function, V = weak object (vtables only: _ZTV...).
  if(line MATCHES "^[0-9a-fA-F]+ ([WV]) (.+)$")
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    if(type STREQUAL "W" OR name MATCHES "^_ZTV")
      list(APPEND names "${name}")
    endif()
  endif()
endforeach()
foreach(line IN LISTS group_lines)
  # "COMDAT group section [    2] `.group' [_ZN8simdjson14simdjson_errorD5Ev] contains 4 sections:"
  if(line MATCHES "COMDAT group section .*\\[([^] ]+)\\] contains")
    list(APPEND names "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES names)
foreach(name IN LISTS names)
  string(APPEND renames "${name} ${name}${SUFFIX}\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "no weak symbols found in ${IN}: is ${NM} the right tool?")
endif()
set(map "${OUT}.renames")
file(WRITE "${map}" "${renames}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${map} ${IN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJCOPY} failed on ${IN}")
endif()
