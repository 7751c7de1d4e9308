# Debian packages with CPack, one per install component (cmake/Install.cmake); built by
# scripts/package.sh. Dependencies on Debian's libraries come from dpkg-shlibdeps.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tollgate)
set(CPACK_PACKAGE_VENDOR "The Tollgate authors")
set(CPACK_PACKAGE_CONTACT "Tollgate maintainers <maintainers@tollgate.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's own description starts with its one-line summary (below); an empty common
# summary keeps CPack from putting the project's in front of it.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
if(TARGET tollgate)
    list(PREPEND CPACK_COMPONENTS_ALL console)
endif()
if(TARGET tollgated)
    list(APPEND CPACK_COMPONENTS_ALL service)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_CONSOLE_PACKAGE_NAME tollgate)
set(CPACK_DEBIAN_CONSOLE_PACKAGE_SECTION net)
# `tollgate --demo` starts a private redis-server.
set(CPACK_DEBIAN_CONSOLE_PACKAGE_RECOMMENDS "redis-server, tollgatectl")
set(CPACK_DEBIAN_CONSOLE_DESCRIPTION
"desktop console for rate limits on Redis
Tollgate counts what users do (comments, likes, uploads, API calls) in Redis
with atomic Lua scripts, so a counter can never be left without its expiry.
The console shows operators counters, bans and charts live, lets support
staff find a user, see why they are blocked and unban them with an audited
reason, and lets developers inspect keys and TTLs, repair keys that lost
their TTL and run the scripts by hand. It works with a single redis-server
and with a Redis Cluster.")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME tollgatectl)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION net)
set(CPACK_DEBIAN_CLI_DESCRIPTION
"command-line tool for rate limits on Redis
tollgatectl manages Tollgate's rate-limit policies, counts and inspects hits,
bans and unbans users with an audited reason, lists subjects, repairs keys
that lost their TTL and reads the audit trail, against a single redis-server
or a Redis Cluster. Its output can be JSON for scripts.")

set(CPACK_DEBIAN_SERVICE_PACKAGE_NAME tollgated)
set(CPACK_DEBIAN_SERVICE_PACKAGE_SECTION net)
# The unit's ExecReload runs /bin/kill (procps, not essential); dpkg-shlibdeps adds the libraries.
set(CPACK_DEBIAN_SERVICE_PACKAGE_DEPENDS procps)
set(CPACK_DEBIAN_SERVICE_PACKAGE_RECOMMENDS redis-server)
# dpkg-deb marks nothing as a conffile by itself; the maintainer scripts tell systemd about the
# unit as dh_installsystemd's would, without enabling or starting it. Strict permissions: the
# scripts 0755, conffiles 0644, as lintian wants them.
set(TOLLGATE_SERVICE_CONTROL ${CMAKE_SOURCE_DIR}/resources/debian/tollgated)
set(CPACK_DEBIAN_SERVICE_PACKAGE_CONTROL_EXTRA
    ${TOLLGATE_SERVICE_CONTROL}/conffiles ${TOLLGATE_SERVICE_CONTROL}/postinst
    ${TOLLGATE_SERVICE_CONTROL}/prerm ${TOLLGATE_SERVICE_CONTROL}/postrm)
set(CPACK_DEBIAN_SERVICE_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_SERVICE_DESCRIPTION
"rate limit service for Envoy and HTTP clients, on Redis
tollgated answers Envoy's rate limit service API (RLS v3) over gRPC and the
same decisions as JSON over HTTP, with Tollgate's atomic Lua scripts on a
single redis-server, a Redis Cluster or behind Redis Sentinel. Its
configuration is envoyproxy/ratelimit's YAML, with Tollgate's own policy
fields (bans, several windows, other algorithms) where wanted; its policies
show in tollgatectl and the console like any other. Refusals already decided
are answered from memory, so an abusive client costs no Redis call. The
package installs a systemd unit, not enabled, and an example configuration.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libtollgate-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "qt6-base-dev (>= 6.4), libhiredis-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION
"C++ library and Lua scripts for rate limits on Redis
The Tollgate library counts hits against rate-limit policies (fixed window,
sliding log, sliding window, token bucket) with one atomic Lua script per
operation, and manages policies, bans and the audit trail. This package holds
the headers, the static library and its CMake package (find_package(Tollgate)
gives Tollgate::core), and the Lua scripts in /usr/share/tollgate/lua for
clients in other languages.")

include(CPack)
