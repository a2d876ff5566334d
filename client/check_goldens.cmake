# cmake -DGENERATOR=<hlo-builder-goldens> -DGOLDENS=<testdata/builder>
#       -DSCRATCH=<empty dir to use> -P check_goldens.cmake
# Regenerates the builder golden files into SCRATCH and fails, with the
# differences, unless GOLDENS holds exactly the same files.
foreach(var GENERATOR GOLDENS SCRATCH)
  if(NOT ${var})
    message(FATAL_ERROR "check_goldens.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${GENERATOR} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hlo-builder-goldens failed (${rc})")
endif()
execute_process(COMMAND diff -r -u ${GOLDENS} ${SCRATCH} RESULT_VARIABLE rc OUTPUT_VARIABLE differences)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "testdata/builder differs from what the builder makes now; "
                      "run `build/client/hlo-builder-goldens testdata/builder` (and remove leftover files):\n"
                      "${differences}")
endif()
file(REMOVE_RECURSE ${SCRATCH})
