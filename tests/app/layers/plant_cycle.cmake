# Plants a cycle between two folders of a copy of the real app/: app/gui/store (below app/gui/chat)
# includes a header of app/gui/chat. The check must pass on the untouched copy, then fail on the
# planted one with EXPECT in its message, under the real manifest (DECLARE OFF: the include is
# refused) or under one that declares the edge (DECLARE ON: the graph has a cycle).
#   cmake -DROOT=<repository> -DMANIFEST=<app manifest> -DBELOW=<engine manifest> -DCHECK=<check_layers.cmake>
#         -DWORK=<scratch folder> -DDECLARE=ON|OFF -DEXPECT=<regex> -P plant_cycle.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var ROOT MANIFEST BELOW CHECK WORK DECLARE EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plant_cycle.cmake: -D${var}=... is missing")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/tree/engine" "${WORK}/tree/kernels")  # includes of these resolve by name
file(COPY "${ROOT}/app" DESTINATION "${WORK}/tree")
function(run_check manifest out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK}/tree -DMANIFEST=${manifest} -DBELOW=${BELOW} -DSCOPE=app
                          "-DGRAPH=app/CMakeLists.txt FOLIO_APP_MODULES" -P ${CHECK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${out}${err}" PARENT_SCOPE)
endfunction()

run_check("${MANIFEST}" rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the untouched copy of app/ fails the check, so the planted cycle proves nothing:\n${text}")
endif()

set(victim "${WORK}/tree/app/gui/store/store_types.h")
file(READ "${victim}" source)
string(REPLACE "#pragma once\n" "#pragma once\n#include \"app/gui/chat/message_parts_model.h\"\n" planted "${source}")
if(planted STREQUAL source)
  message(FATAL_ERROR "${victim} has no '#pragma once' line to plant the include after")
endif()
file(WRITE "${victim}" "${planted}")

set(manifest "${MANIFEST}")
if(DECLARE)
  file(STRINGS "${MANIFEST}" lines)
  set(declared "")
  set(found FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^gui/store ")
      string(APPEND line " gui/chat")
      set(found TRUE)
    endif()
    string(APPEND declared "${line}\n")
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "${MANIFEST} has no line for gui/store")
  endif()
  set(manifest "${WORK}/declared.txt")
  file(WRITE "${manifest}" "${declared}")
endif()

run_check("${manifest}" rc text)
if(rc EQUAL 0)
  message(FATAL_ERROR "the check passed on app/ with a planted cycle (gui/store includes gui/chat):\n${text}")
endif()
if(NOT text MATCHES "${EXPECT}")
  message(FATAL_ERROR "the check failed, but without '${EXPECT}':\n${text}")
endif()
message(STATUS "the check refused the planted cycle as expected:\n${text}")
file(REMOVE_RECURSE "${WORK}")
