# What `cmake --install` puts where, by component; each component is one Debian package
# (cmake/Packaging.cmake): console -> tollgate, cli -> tollgatectl, service -> tollgated,
# dev -> libtollgate-dev.

set(TOLLGATE_LUA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/tollgate/lua)
set(TOLLGATE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tollgate)
set(TOLLGATE_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)

# Debian wants man pages and changelogs gzip-compressed, without a timestamp (-n).
function(tollgate_gzip source output)
    get_filename_component(directory ${output} DIRECTORY)
    file(MAKE_DIRECTORY ${directory})
    execute_process(COMMAND gzip -9nc ${source} OUTPUT_FILE ${output} RESULT_VARIABLE failed)
    if(failed)
        message(FATAL_ERROR "gzip ${source} failed")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
endfunction()

# Every package carries the licence summary and the changelog in /usr/share/doc/<package>.
configure_file(${CMAKE_SOURCE_DIR}/resources/debian/changelog.in
               ${TOLLGATE_GENERATED_DIR}/debian/changelog @ONLY)
tollgate_gzip(${TOLLGATE_GENERATED_DIR}/debian/changelog ${TOLLGATE_GENERATED_DIR}/debian/changelog.gz)
set(TOLLGATE_COMPONENT_PACKAGES console:tollgate cli:tollgatectl dev:libtollgate-dev)
if(TARGET tollgated)
    list(APPEND TOLLGATE_COMPONENT_PACKAGES service:tollgated)
endif()
foreach(component_package IN LISTS TOLLGATE_COMPONENT_PACKAGES)
    string(REPLACE ":" ";" pair ${component_package})
    list(GET pair 0 component)
    list(GET pair 1 package)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/debian/copyright
                  ${TOLLGATE_GENERATED_DIR}/debian/changelog.gz
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()

# Man pages (resources/man/<page>.<section>, written in roff).
foreach(page tollgate.1 tollgatectl.1 tollgated.8)
    tollgate_gzip(${CMAKE_SOURCE_DIR}/resources/man/${page} ${TOLLGATE_GENERATED_DIR}/man/${page}.gz)
endforeach()

# The console: executable, desktop entry, icon, AppStream metadata, man page.
if(TARGET tollgate)
    install(TARGETS tollgate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT console)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/tollgate.desktop
            DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT console)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/tollgate.svg
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT console)
    configure_file(${CMAKE_SOURCE_DIR}/resources/org.tollgate.Tollgate.metainfo.xml.in
                   ${TOLLGATE_GENERATED_DIR}/org.tollgate.Tollgate.metainfo.xml @ONLY)
    install(FILES ${TOLLGATE_GENERATED_DIR}/org.tollgate.Tollgate.metainfo.xml
            DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo COMPONENT console)
    install(FILES ${TOLLGATE_GENERATED_DIR}/man/tollgate.1.gz
            DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT console)
endif()

# The CLI: executable, man page, shell completions.
install(TARGETS tollgatectl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES ${TOLLGATE_GENERATED_DIR}/man/tollgatectl.1.gz
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/resources/completions/tollgatectl.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME tollgatectl COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/resources/completions/_tollgatectl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT cli)
# The exporter as a service, not enabled: `systemctl enable --now tollgate-exporter`. Debian 12
# keeps units in /lib/systemd/system.
install(FILES ${CMAKE_SOURCE_DIR}/resources/systemd/tollgate-exporter.service
        DESTINATION /lib/systemd/system COMPONENT cli)

# The rate limit service: executable, man page, its systemd unit (not enabled: `systemctl enable
# --now tollgated`), and two conffiles (resources/debian/tollgated/conffiles): the example
# configuration the unit loads and the unit's environment.
if(TARGET tollgated)
    install(TARGETS tollgated RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT service)
    install(FILES ${TOLLGATE_GENERATED_DIR}/man/tollgated.8.gz
            DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT service)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/systemd/tollgated.service
            DESTINATION /lib/systemd/system COMPONENT service)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/tollgated/ratelimit.yaml
            DESTINATION /etc/tollgate COMPONENT service)
    install(FILES ${CMAKE_SOURCE_DIR}/resources/tollgated/tollgated.default
            DESTINATION /etc/default RENAME tollgated COMPONENT service)
endif()

# The library for other C++ projects: headers, the static library, the CMake package, and the
# Lua scripts for clients in other languages.
install(TARGETS ${TOLLGATE_CORE_EXPORT_TARGETS} EXPORT TollgateTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/tollgate COMPONENT dev)
# Debug information stays out of the package, as Debian's own static libraries do (executables
# are stripped by CPack).
install(CODE "execute_process(COMMAND ${CMAKE_STRIP} --strip-debug
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libtollgate_core.a\")"
    COMPONENT dev)
# The headers: the public API and nothing else (include/tollgate, <tollgate/Limiter.h>), with
# the generated Version.h. They name no header of core/, which stays private
# (docs/architecture.md, "The public API and its version").
file(GLOB TOLLGATE_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/tollgate/*.h)
install(FILES ${TOLLGATE_PUBLIC_HEADERS} ${TOLLGATE_GENERATED_DIR}/tollgate/Version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tollgate COMPONENT dev)
# the assembled scripts (lua/CMakeLists.txt) and their line maps, not their sources
install(FILES ${TOLLGATE_LUA_SCRIPTS} ${TOLLGATE_LUA_MAPS} ${CMAKE_SOURCE_DIR}/lua/README.md
        DESTINATION ${TOLLGATE_LUA_INSTALL_DIR} COMPONENT dev)
install(EXPORT TollgateTargets NAMESPACE Tollgate:: DESTINATION ${TOLLGATE_CMAKE_INSTALL_DIR}
        COMPONENT dev)

include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/TollgateConfig.cmake.in
    ${TOLLGATE_GENERATED_DIR}/cmake/TollgateConfig.cmake
    INSTALL_DESTINATION ${TOLLGATE_CMAKE_INSTALL_DIR}
    PATH_VARS TOLLGATE_LUA_INSTALL_DIR)
write_basic_package_version_file(${TOLLGATE_GENERATED_DIR}/cmake/TollgateConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${TOLLGATE_GENERATED_DIR}/cmake/TollgateConfig.cmake
              ${TOLLGATE_GENERATED_DIR}/cmake/TollgateConfigVersion.cmake
        DESTINATION ${TOLLGATE_CMAKE_INSTALL_DIR} COMPONENT dev)
