#pragma once

#include <QByteArray>
#include <QDir>
#include <QString>
#include <QtTest>

namespace tollgate::test {

// The repository root: set by ctest (TOLLGATE_SOURCE_DIR, see tests/CMakeLists.txt); when a test
// binary is run by hand without it, the compile-time path of this header is used instead.
inline QString sourceDir()
{
    const QByteArray fromEnv = qgetenv("TOLLGATE_SOURCE_DIR");
    if (!fromEnv.isEmpty())
        return QDir::cleanPath(QString::fromLocal8Bit(fromEnv));
    return QDir::cleanPath(QString::fromUtf8(__FILE__) + QStringLiteral("/../../.."));
}

// Absolute path of a file in the repository, e.g. sourcePath("lua/README.md").
inline QString sourcePath(const QString& relative)
{
    return QDir(sourceDir()).filePath(relative);
}

// The folder of the assembled Lua scripts (build/lua, lua/CMakeLists.txt): what clients load and
// core compiles in. lua/'s own files are their sources, not loadable as they are.
inline QString luaScriptDir()
{
    return QStringLiteral(TOLLGATE_LUA_BUILD_DIR);
}

// Absolute path of an assembled script, e.g. luaScriptPath("hit.lua").
inline QString luaScriptPath(const QString& name)
{
    return QDir(luaScriptDir()).filePath(name);
}

} // namespace tollgate::test

// Fails the current test function at once, with the fixture's own explanation, when a fixture
// call returns false:
//     TOLLGATE_REQUIRE(m_redis, start());
//     TOLLGATE_REQUIRE(m_redis, startTls(m_certs.files()));
//     TOLLGATE_REQUIRE(m_certs, generate());
// Use it in initTestCase()/init() too: a failed initTestCase() fails the whole executable.
#define TOLLGATE_REQUIRE(fixture, call)                                                            \
    do {                                                                                           \
        if (!(fixture).call)                                                                       \
            QFAIL(qPrintable(                                                                      \
                QStringLiteral(#fixture "." #call " failed: ").append((fixture).errorString())));  \
    } while (false)
