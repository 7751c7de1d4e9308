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
cmake_minimum_required(VERSION 3.22)

foreach(required LUA_ROOT SOURCE OUTPUT)
    if(NOT DEFINED ${required})
        message(FATAL_ERROR "LuaAssemble.cmake: -D${required}=... is required")
    endif()
endforeach()

# relative paths are taken from the working directory
get_filename_component(LUA_ROOT "${LUA_ROOT}" ABSOLUTE)
get_filename_component(OUTPUT "${OUTPUT}" ABSOLUTE)

# Sets ${out} to the text of ${file} (relative to LUA_ROOT) with its includes resolved; ${chain}
# is the list of files that include it, outermost first.
function(tollgate_lua_expand file chain out)
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
        tollgate_lua_expand("${target}" "${chain}" body)
        set_property(GLOBAL APPEND PROPERTY tollgate_lua_included "${target}")
        set_property(GLOBAL PROPERTY "tollgate_lua_included_by_${target}" "${file}")
        if(NOT body MATCHES "\n$")
            string(APPEND body "\n")
        endif()
        string(APPEND done "${before}${body}")
        set(text "${after}")
    endwhile()
    set(${out} "${done}${text}" PARENT_SCOPE)
endfunction()

set_property(GLOBAL PROPERTY tollgate_lua_included "")
tollgate_lua_expand("${SOURCE}" "" assembled)

set(previous "")
if(EXISTS "${OUTPUT}")
    file(READ "${OUTPUT}" previous)
endif()
if(NOT previous STREQUAL assembled)
    file(WRITE "${OUTPUT}" "${assembled}")
endif()
