# The CLI end-to-end test helper, shared by tests/cli and the family test
# folders that test their own subcommands (tests/host).
set(CLI_EXPECT ${CMAKE_CURRENT_LIST_DIR}/expect.sh)

# cli_test(<name> [RC <status>] [HAS <text>...] [LACKS <text>...] [TIMEOUT <s>] [DISABLED <why>] [NO_CORE]
#          CMD <command>...)
# adds the test ${CLI_PREFIX}<name> (default prefix "cli."), run by expect.sh in
# ${CLI_WORK}/<name> (${CLI_WORK}/<prefix><name> with a CLI_PREFIX of its own, so that
# two prefixes sharing a CLI_WORK never share a folder). Set CLI_WORK (and
# CLI_PREFIX) before calling.
function(cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "NO_CORE" "RC;TIMEOUT;DISABLED" "HAS;LACKS;CMD")
  if(NOT DEFINED T_RC)
    set(T_RC 0)
  endif()
  if(NOT DEFINED T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  set(dir ${CLI_WORK}/${name})
  if(DEFINED CLI_PREFIX)
    set(dir ${CLI_WORK}/${CLI_PREFIX}${name})
  endif()
  set(checks --dir ${dir} --rc ${T_RC})
  foreach(s IN LISTS T_HAS)
    list(APPEND checks --has "${s}")
  endforeach()
  foreach(s IN LISTS T_LACKS)
    list(APPEND checks --lacks "${s}")
  endforeach()
  if(T_NO_CORE)
    list(APPEND checks --no-core)  # core dumps allowed, none may be left
  endif()
  if(NOT DEFINED CLI_PREFIX)
    set(CLI_PREFIX cli.)
  endif()
  add_test(NAME ${CLI_PREFIX}${name} COMMAND bash ${CLI_EXPECT} ${checks} -- ${T_CMD})
  set_tests_properties(${CLI_PREFIX}${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS cli)
  if(DEFINED T_DISABLED)
    set_tests_properties(${CLI_PREFIX}${name} PROPERTIES DISABLED TRUE)
  endif()
endfunction()
