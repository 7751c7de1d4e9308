// The layers of the tree point one way (docs/architecture.md, "Layers and folders"): every
// #include "..." line of the product code is read, and one that reaches a layer above its own
// file's fails. The layer table below is the one place that says the order.

// The public API's umbrella, compiled here so that a public header that no longer compiles in
// the tree fails the build, not only integration.Packages.
#include "tests/support/TestEnv.h"
#include "tollgate/tollgate.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>
#include <algorithm>

namespace {

struct Layer
{
    const char* name;
    QStringList folders;
};

// Lowest first. A file may include its own layer and the layers below it. The Redis client
// (core/client) and the modes it knows (core/cluster, core/sentinel) share a layer: a cluster's
// and a Sentinel deployment's own connections (to each node, to each sentinel) are Clients.
// Each public header (include/tollgate/<Name>.h, "tollgate/<Name>") has the layer of what it
// declares: ConnectionOptions.h holds the SSH options the tunnels read, so it sits with them.
const std::vector<Layer>& layers()
{
    static const std::vector<Layer> table{
        {"one connection",
         {QStringLiteral("core/redis"), QStringLiteral("core"), QStringLiteral("tollgate/Result"),
          QStringLiteral("tollgate/Reply"), QStringLiteral("tollgate/ServerOptions"),
          QStringLiteral("tollgate/Version")}},
        {"tunnels", {QStringLiteral("core/ssh"), QStringLiteral("tollgate/ConnectionOptions")}},
        {"the client and its modes",
         {QStringLiteral("core/client"), QStringLiteral("core/cluster"),
          QStringLiteral("core/sentinel"), QStringLiteral("tollgate/Client"),
          QStringLiteral("tollgate/Blocking")}},
        {"the library's features",
         {QStringLiteral("core/scripts"),
          QStringLiteral("core/keys"),
          QStringLiteral("core/policies"),
          QStringLiteral("core/limiter"),
          QStringLiteral("core/moderation"),
          QStringLiteral("core/subjects"),
          QStringLiteral("core/audit"),
          QStringLiteral("core/json"),
          QStringLiteral("core/http"),
          QStringLiteral("core/metrics"),
          QStringLiteral("core/registry"),
          QStringLiteral("tollgate/KeySchema"),
          QStringLiteral("tollgate/Policy"),
          QStringLiteral("tollgate/PolicyStore"),
          QStringLiteral("tollgate/HitResult"),
          QStringLiteral("tollgate/Limiter"),
          QStringLiteral("tollgate/RefusalCache"),
          QStringLiteral("tollgate/Moderation"),
          QStringLiteral("tollgate/Overrides"),
          QStringLiteral("tollgate/Refunds"),
          QStringLiteral("tollgate/Repair"),
          QStringLiteral("tollgate/Subjects"),
          QStringLiteral("tollgate/AuditLog"),
          QStringLiteral("tollgate/tollgate")}},
        {"the service and the console", {QStringLiteral("service"), QStringLiteral("ui")}},
        {"the executables and their libraries", {QStringLiteral("app")}},
    };
    return table;
}

// Folders of one layer that still must not include each other.
const std::vector<std::pair<QString, QString>>& forbidden()
{
    static const std::vector<std::pair<QString, QString>> pairs{
        {QStringLiteral("core/sentinel"), QStringLiteral("core/cluster")},
        {QStringLiteral("ui"), QStringLiteral("service")},
        {QStringLiteral("service"), QStringLiteral("ui")},
    };
    return pairs;
}

// "core/limiter/Limiter.h" -> "core/limiter"; "ui/keys/KeysPage.h" -> "ui"; "core/Global.h" ->
// "core"; a public header, included ("tollgate/Client.h") or read (include/tollgate/Client.h),
// -> "tollgate/Client".
QString folderOf(const QString& path)
{
    QStringList parts = path.split(QLatin1Char('/'));
    if (parts.front() == QLatin1String("include"))
        parts.removeFirst();
    if (parts.size() == 2 && parts.front() == QLatin1String("tollgate"))
        return parts.join(QLatin1Char('/')).chopped(2); // without ".h"
    if (parts.front() == QLatin1String("core"))
        return parts.size() > 2 ? QStringLiteral("core/") + parts[1] : QStringLiteral("core");
    return parts.front();
}

int layerOf(const QString& folder)
{
    for (size_t i = 0; i < layers().size(); ++i)
        if (layers()[i].folders.contains(folder))
            return int(i);
    return -1;
}

struct Include
{
    QString file; // relative to the repository
    int line = 0;
    QString target; // as written: "core/redis/Connection.h"
};

// Every quoted include of the product code, public headers included, into the product code
// (not the generated protobuf headers, not Qt's).
std::vector<Include> productIncludes()
{
    static const QRegularExpression includeLine(
        QStringLiteral("^\\s*#\\s*include\\s+\"([^\"]+)\""));
    const QDir root(tollgate::test::sourceDir());
    std::vector<Include> includes;
    for (const QString& top :
         {QStringLiteral("core"), QStringLiteral("include/tollgate"), QStringLiteral("service"),
          QStringLiteral("ui"), QStringLiteral("app")}) {
        QDirIterator it(root.filePath(top), {QStringLiteral("*.h"), QStringLiteral("*.cpp")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            int number = 0;
            while (!file.atEnd()) {
                ++number;
                const QString text = QString::fromUtf8(file.readLine());
                const QRegularExpressionMatch match = includeLine.match(text);
                if (!match.hasMatch())
                    continue;
                const QString target = match.captured(1);
                if (layerOf(folderOf(target)) < 0 && !target.startsWith(QLatin1String("core/")) &&
                    !target.startsWith(QLatin1String("tollgate/")))
                    continue; // not ours (envoy/..., a generated header of another tree)
                includes.push_back({root.relativeFilePath(path), number, target});
            }
        }
    }
    return includes;
}

} // namespace

class LayersTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFolderHasALayer();
    void noIncludePointsUp();
    void theNetworkStackIsOneWay();
};

void LayersTest::everyFolderHasALayer()
{
    const QDir core(tollgate::test::sourcePath(QStringLiteral("core")));
    for (const QString& folder : core.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        QVERIFY2(layerOf(QStringLiteral("core/") + folder) >= 0,
                 qPrintable(QStringLiteral("core/%1 is in no layer: add it to the table in "
                                           "tests/unit/tst_Layers.cpp and to the folder map in "
                                           "docs/architecture.md")
                                .arg(folder)));
    const QDir api(tollgate::test::sourcePath(QStringLiteral("include/tollgate")));
    for (const QString& header : api.entryList({QStringLiteral("*.h")}, QDir::Files))
        QVERIFY2(layerOf(folderOf(QStringLiteral("include/tollgate/") + header)) >= 0,
                 qPrintable(QStringLiteral("include/tollgate/%1 is in no layer: add it to the "
                                           "table in tests/unit/tst_Layers.cpp")
                                .arg(header)));
}

void LayersTest::noIncludePointsUp()
{
    const std::vector<Include> includes = productIncludes();
    // The reading itself works: the tree has a thousand includes, a Connection its codec.
    QVERIFY(includes.size() > 500);
    QVERIFY(std::any_of(includes.begin(), includes.end(), [](const Include& include) {
        return include.file == QLatin1String("core/redis/Connection.h") &&
               include.target == QLatin1String("core/redis/RespCodec.h");
    }));

    QStringList wrong;
    for (const Include& include : includes) {
        const QString from = folderOf(include.file);
        const QString to = folderOf(include.target);
        const int fromLayer = layerOf(from);
        const int toLayer = layerOf(to);
        const QString where = QStringLiteral("%1:%2 includes %3")
                                  .arg(include.file)
                                  .arg(include.line)
                                  .arg(include.target);
        if (toLayer < 0) {
            wrong << where + QStringLiteral(" (a folder in no layer)");
            continue;
        }
        if (toLayer > fromLayer)
            wrong << where + QStringLiteral(" (%1 is above %2)")
                                 .arg(QLatin1String(layers()[size_t(toLayer)].name),
                                      QLatin1String(layers()[size_t(fromLayer)].name));
        for (const auto& [low, high] : forbidden())
            if (from == low && to == high)
                wrong << where + QStringLiteral(" (%1 must not include %2)").arg(low, high);
    }
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
}

void LayersTest::theNetworkStackIsOneWay()
{
    // What the table above says, spelled out for the folders that matter most: one connection
    // includes nothing above it, and the Sentinel mode nothing of the cluster's.
    int checked = 0;
    for (const Include& include : productIncludes()) {
        const QString from = folderOf(include.file);
        const QString to = folderOf(include.target);
        if (from == QLatin1String("core/redis")) {
            ++checked;
            // ... or the public headers of its layer (Result.h, Reply.h, ServerOptions.h)
            QVERIFY2(to == QLatin1String("core/redis") || to == QLatin1String("core") ||
                         layerOf(to) == 0,
                     qPrintable(include.file + QStringLiteral(" includes ") + include.target));
        }
        if (from == QLatin1String("core/sentinel"))
            QVERIFY2(to != QLatin1String("core/cluster"),
                     qPrintable(include.file + QStringLiteral(" includes ") + include.target));
    }
    QVERIFY(checked > 20);
}

QTEST_GUILESS_MAIN(LayersTest)
#include "tst_Layers.moc"
