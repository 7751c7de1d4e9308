# Assembles one Lua operation into the standalone script clients load (lua/README.md):
#
#   cmake -DLUA_ROOT=<lua dir> -DSOURCE=<operation, relative to LUA_ROOT> -DOUTPUT=<file>
#         -P cmake/LuaAssemble.cmake
#
# A line that is exactly `--@include "<path>"` (path relative to LUA_ROOT) is replaced by that
# file's text, copied byte for byte (no minifier: the assembled script reads like its sources),
# and the included file's own include lines are resolved the same way. Refused, with the files
# named: a missing file, a file that includes itself through any chain (a cycle), a file
# included twice into one script, and a line starting `--@include` in any other form. A script
# only written when its text changed keeps its timestamp, and what is built from it stays built.
#
# Beside the script it writes <OUTPUT>.map, the way from a line of the script back to its source
# (an error from Redis names a line of the assembled script: "user_script:812"). After two
# comment lines, one line per run of lines copied from one source file:
#   <first line in the script> <source file, relative to LUA_ROOT> <its line there>
# ascending; a line of the script maps to the last run starting at or before it.
cmake_minimum_required(VERSION 3.22)

foreach(required LUA_ROOT SOURCE OUTPUT)
    if(NOT DEFINED ${required})
        message(FATAL_ERROR "LuaAssemble.cmake: -D${required}=... is required")
    endif()
endforeach()

# relative paths are taken from the working directory
get_filename_component(LUA_ROOT "${LUA_ROOT}" ABSOLUTE)
get_filename_component(OUTPUT "${OUTPUT}" ABSOLUTE)

# The number of lines in ${text} (its newlines), into ${out}.
function(tollgate_lua_count_lines text out)
    string(REGEX REPLACE "[^\n]" "" newlines "${text}")
    string(LENGTH "${newlines}" count)
    set(${out} ${count} PARENT_SCOPE)
endfunction()

# Sets ${out} to the text of ${file} (relative to LUA_ROOT) with its includes resolved, and
# ${out_map} to its runs of lines, each "<first line, 0-based in ${out}>|<source file>|<its line>";
# ${chain} is the list of files that include it, outermost first.
function(tollgate_lua_expand file chain out out_map)
    if(file IN_LIST chain)
        string(REPLACE ";" " -> " path "${chain};${file}")
        message(FATAL_ERROR "lua include cycle: ${path}")
    endif()
    if(NOT EXISTS "${LUA_ROOT}/${file}" OR IS_DIRECTORY "${LUA_ROOT}/${file}")
        list(GET chain -1 parent)
        message(FATAL_ERROR "lua/${parent}: includes \"${file}\", which does not exist (lua/${file})")
    endif()
    file(READ "${LUA_ROOT}/${file}" text)
    list(APPEND chain "${file}")

    set(done "")
    set(map "")
    set(lines_done 0)   # lines in ${done}
    set(source_line 1)  # the line of ${file} that ${text} starts at
    set(marker "--@include")
    while(TRUE)
        # the next include line: at the start of the text or after a newline
        string(FIND "${text}" "${marker}" at)
        if(at GREATER 0)
            string(FIND "${text}" "\n${marker}" at)
            if(at GREATER_EQUAL 0)
                math(EXPR at "${at} + 1")
            endif()
        endif()
        if(at LESS 0)
            break()
        endif()
        string(SUBSTRING "${text}" 0 ${at} before)
        string(SUBSTRING "${text}" ${at} -1 rest)
        string(FIND "${rest}" "\n" line_end)
        if(line_end LESS 0)
            set(line "${rest}")
            set(after "")
        else()
            string(SUBSTRING "${rest}" 0 ${line_end} line)
            math(EXPR after_at "${line_end} + 1")
            string(SUBSTRING "${rest}" ${after_at} -1 after)
        endif()
        string(REGEX MATCH "^--@include \"([^\"]+)\"$" matched "${line}")
        if(NOT matched)
            message(FATAL_ERROR "lua/${file}: \"${line}\" is not an include line; "
                "write --@include \"<path relative to lua/>\"")
        endif()
        set(target "${CMAKE_MATCH_1}")
        get_property(included GLOBAL PROPERTY tollgate_lua_included)
        if(target IN_LIST included AND NOT target IN_LIST chain)
            get_property(first GLOBAL PROPERTY "tollgate_lua_included_by_${target}")
            message(FATAL_ERROR "lua/${file}: includes \"${target}\" a second time (lua/${first} "
                "included it already); include a file once per script")
        endif()
        tollgate_lua_expand("${target}" "${chain}" body body_map)
        set_property(GLOBAL APPEND PROPERTY tollgate_lua_included "${target}")
        set_property(GLOBAL PROPERTY "tollgate_lua_included_by_${target}" "${file}")
        if(NOT body MATCHES "\n$")
            string(APPEND body "\n")
        endif()
        # ${before} ends with a newline (the include line starts a line): whole lines of ${file}
        tollgate_lua_count_lines("${before}" before_lines)
        if(before_lines GREATER 0)
            list(APPEND map "${lines_done}|${file}|${source_line}")
            math(EXPR lines_done "${lines_done} + ${before_lines}")
            math(EXPR source_line "${source_line} + ${before_lines}")
        endif()
        foreach(run IN LISTS body_map)
            string(REGEX MATCH "^([0-9]+)\\|(.*)$" matched "${run}")
            math(EXPR shifted "${lines_done} + ${CMAKE_MATCH_1}")
            list(APPEND map "${shifted}|${CMAKE_MATCH_2}")
        endforeach()
        tollgate_lua_count_lines("${body}" body_lines)
        math(EXPR lines_done "${lines_done} + ${body_lines}")
        math(EXPR source_line "${source_line} + 1")   # the include line itself
        string(APPEND done "${before}${body}")
        set(text "${after}")
    endwhile()
    if(NOT text STREQUAL "")
        list(APPEND map "${lines_done}|${file}|${source_line}")
    endif()
    set(${out} "${done}${text}" PARENT_SCOPE)
    set(${out_map} "${map}" PARENT_SCOPE)
endfunction()

set_property(GLOBAL PROPERTY tollgate_lua_included "")
tollgate_lua_expand("${SOURCE}" "" assembled runs)

get_filename_component(script_name "${OUTPUT}" NAME)
set(map_text "# ${script_name}: <first line in the script> <source file in lua/> <its line there>\n")
string(APPEND map_text "# (each line of the script maps to the last run starting at or before it)\n")
foreach(run IN LISTS runs)
    string(REGEX MATCH "^([0-9]+)\\|([^|]*)\\|([0-9]+)$" matched "${run}")
    math(EXPR first "${CMAKE_MATCH_1} + 1")
    string(APPEND map_text "${first} ${CMAKE_MATCH_2} ${CMAKE_MATCH_3}\n")
endforeach()

set(previous "")
if(EXISTS "${OUTPUT}")
    file(READ "${OUTPUT}" previous)
endif()
if(NOT previous STREQUAL assembled)
    file(WRITE "${OUTPUT}" "${assembled}")
endif()
set(previous "")
if(EXISTS "${OUTPUT}.map")
    file(READ "${OUTPUT}.map" previous)
endif()
if(NOT previous STREQUAL map_text)
    file(WRITE "${OUTPUT}.map" "${map_text}")
endif()
