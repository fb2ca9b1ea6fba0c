# Script mode (cmake -P): writes the man page of PROGRAM from its own --help and --version
# with help2man, gzipped to OUT. For a program with subcommands (CLI11's "Subcommands:"
# list) every subcommand's --help is added as a section of its own, so the page documents
# each option the program accepts. INCLUDE is a help2man include file (ENVIRONMENT, FILES,
# SEE ALSO) kept under packaging/man/.
#   -DPROGRAM= -DNAME= -DSUMMARY= -DHELP2MAN= -DGZIP= -DINCLUDE= -DOUT=
cmake_minimum_required(VERSION 3.25)

# The GUI parses its options inside a QApplication: no display is needed for --help.
set(ENV{QT_QPA_PLATFORM} offscreen)

get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})

# Lines of `PROGRAM args... --help` under its "Subcommands:" heading: the subcommand names.
function(subcommands_of out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc
                  ERROR_QUIET)
  set(names "")
  if(rc EQUAL 0 AND help MATCHES "\nSubcommands:\n(.*)")
    string(REGEX REPLACE "\n\n.*" "" block "${CMAKE_MATCH_1}")
    string(REPLACE "\n" ";" lines "${block}")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ([a-z][a-z0-9-]*)")
        list(APPEND names ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# roff-safe text: backslashes doubled, a leading dot or quote made literal.
function(roff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(section "")
function(add_command_sections)
  subcommands_of(names ${ARGN})
  foreach(name IN LISTS names)
    execute_process(COMMAND ${PROGRAM} ${ARGN} ${name} --help
                    OUTPUT_VARIABLE help RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${PROGRAM} ${ARGN} ${name} --help failed (${rc})")
    endif()
    # The page describes the installed program, not the build folder it was made in.
    string(REPLACE "${PROGRAM}" "${NAME}" help "${help}")
    string(STRIP "${help}" help)
    roff_escape("${help}" help)
    string(JOIN " " title ${NAME} ${ARGN} ${name})
    string(APPEND section ".SS \"${title}\"\n.nf\n${help}\n.fi\n")
    add_command_sections(${ARGN} ${name})
  endforeach()
  set(section "${section}" PARENT_SCOPE)
endfunction()
add_command_sections()

file(READ ${INCLUDE} include_text)
if(section)
  set(include_text "${include_text}\n[COMMANDS]\nEach command's own --help:\n${section}")
endif()
set(include_file ${OUT}.h2m)
file(WRITE ${include_file} "${include_text}")

string(REGEX REPLACE "\\.gz$" "" page ${OUT})
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 --name=${SUMMARY} --include=${include_file}
          --output=${page} ${PROGRAM}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed for ${PROGRAM} (${rc}): ${err}")
endif()
execute_process(COMMAND ${GZIP} -9nf ${page} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on ${page}")
endif()
